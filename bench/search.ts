/**
 * Tool-search benchmark: builds an index over 10,000 synthetic tools and times 1,000 queries.
 * Run: `bun bench/search.ts` (or `deno run bench/search.ts`). The generator is deterministic, so
 * runs on one machine are comparable.
 */
import { buildSearchIndex } from "../src/discovery/mod.ts";
import type { SearchOptions, ToolDescriptor } from "../src/discovery/mod.ts";

/** Timings of one benchmark run, in milliseconds. */
export interface SearchBenchResult {
  tools: number;
  queries: number;
  buildMs: number;
  medianMs: number;
  p99Ms: number;
}

const SERVERS = [
  "github",
  "gitlab",
  "slack",
  "jira",
  "linear",
  "notion",
  "filesystem",
  "postgres",
  "sqlite",
  "redis",
  "memory",
  "browser",
  "puppeteer",
  "stripe",
  "sentry",
  "docker",
  "kubernetes",
  "aws",
  "gcp",
  "azure",
  "figma",
  "calendar",
  "gmail",
  "drive",
  "confluence",
  "zendesk",
  "hubspot",
  "salesforce",
  "twilio",
  "shopify",
];
const VERBS = [
  "get",
  "list",
  "create",
  "update",
  "delete",
  "search",
  "read",
  "write",
  "find",
  "add",
  "remove",
  "move",
  "copy",
  "rename",
  "archive",
  "restore",
  "export",
  "import",
  "sync",
  "merge",
  "close",
  "open",
  "assign",
  "comment",
  "approve",
  "query",
  "fetch",
  "upload",
  "download",
  "run",
];
const NOUNS = [
  "issue",
  "pull_request",
  "file",
  "directory",
  "user",
  "team",
  "project",
  "repository",
  "branch",
  "commit",
  "message",
  "channel",
  "thread",
  "page",
  "database",
  "table",
  "row",
  "record",
  "key",
  "bucket",
  "object",
  "instance",
  "cluster",
  "pod",
  "deployment",
  "secret",
  "event",
  "invoice",
  "customer",
  "payment",
  "subscription",
  "ticket",
  "label",
  "milestone",
  "release",
  "tag",
  "workflow",
  "job",
  "artifact",
  "comment",
  "attachment",
  "document",
  "folder",
  "sheet",
  "cell",
  "contact",
  "deal",
  "lead",
  "order",
  "product",
];
const QUALIFIERS = ["", "", "", "details", "metadata", "by_id", "batch", "status", "history", "v2"];
const FILLER = [
  "Returns the result as JSON.",
  "Requires write access.",
  "Supports pagination.",
  "Results are sorted by date.",
  "Use with care in production.",
  "Fast and cached.",
];
const PARAMS: readonly (readonly [string, string, string])[] = [
  ["query", "string", "Search text"],
  ["limit", "integer", "Maximum number of results"],
  ["offset", "integer", "Items to skip"],
  ["id", "string", "Identifier of the item"],
  ["path", "string", "Absolute path on disk"],
  ["owner", "string", "Repository owner"],
  ["repo", "string", "Repository name"],
  ["state", "string", "Filter by state"],
  ["labels", "array", "Labels to filter by"],
  ["since", "string", "Only items after this date"],
  ["recursive", "boolean", "Descend into sub-folders"],
  ["content", "string", "New content"],
  ["title", "string", "Title text"],
  ["body", "string", "Body in Markdown"],
  ["dryRun", "boolean", "Only report what would change"],
  ["timeoutMs", "integer", "Timeout"],
];

/** A small deterministic PRNG (mulberry32). */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function pick<T>(random: () => number, list: readonly T[]): T {
  return list[Math.floor(random() * list.length)] as T;
}

/** `count` distinct synthetic tools with plausible names, descriptions and 1–6 params. */
export function syntheticTools(count: number, seed = 42): ToolDescriptor[] {
  const random = rng(seed);
  const seen = new Set<string>();
  const tools: ToolDescriptor[] = [];
  while (tools.length < count) {
    const server = pick(random, SERVERS);
    const verb = pick(random, VERBS);
    const noun = pick(random, NOUNS);
    const qualifier = pick(random, QUALIFIERS);
    let name = `${server}__${verb}_${noun}${qualifier === "" ? "" : `_${qualifier}`}`;
    if (seen.has(name)) name = `${name}_${tools.length}`;
    seen.add(name);
    const properties: Record<string, object> = {};
    const paramCount = 1 + Math.floor(random() * 6);
    for (let i = 0; i < paramCount; i++) {
      const [param, type, doc] = pick(random, PARAMS);
      properties[param] = type === "array"
        ? { type, items: { type: "string" }, description: doc }
        : { type, description: doc };
    }
    const words = noun.replaceAll("_", " ");
    tools.push({
      name,
      server,
      description: `${cap(verb)} a ${words} in ${cap(server)}${
        qualifier === "" ? "" : ` (${qualifier.replaceAll("_", " ")})`
      }. ${pick(random, FILLER)} ${pick(random, FILLER)}`,
      inputSchema: { type: "object", properties, required: Object.keys(properties).slice(0, 1) },
      ...(random() < 0.2 ? { keywords: [pick(random, NOUNS), pick(random, VERBS)] } : {}),
    });
  }
  return tools;
}

function cap(word: string): string {
  return word.charAt(0).toUpperCase() + word.slice(1);
}

/** `count` query strings: word pairs, partial words, exact names, some with a server filter. */
export function syntheticQueries(
  tools: readonly ToolDescriptor[],
  count: number,
  seed = 7,
): { query: string; options: SearchOptions }[] {
  const random = rng(seed);
  const out: { query: string; options: SearchOptions }[] = [];
  for (let i = 0; i < count; i++) {
    const kind = i % 5;
    const verb = pick(random, VERBS);
    const noun = pick(random, NOUNS).replaceAll("_", " ");
    if (kind === 0) out.push({ query: `${verb} ${noun}`, options: {} });
    else if (kind === 1) {
      out.push({ query: `${noun}s`, options: { server: pick(random, SERVERS) } });
    } else if (kind === 2) out.push({ query: noun.slice(0, 4), options: { limit: 20 } });
    else if (kind === 3) out.push({ query: pick(random, tools).name, options: {} });
    else {out.push({
        query: `${pick(random, SERVERS)} ${verb} ${noun} with ${pick(random, PARAMS)[0]}`,
        options: { offset: 10 },
      });}
  }
  return out;
}

/** Builds a 10,000-tool index and times 1,000 queries. */
export async function benchSearch(tools = 10_000, queries = 1_000): Promise<SearchBenchResult> {
  const catalog = syntheticTools(tools);
  const t0 = performance.now();
  const index = buildSearchIndex(catalog);
  const buildMs = performance.now() - t0;
  const workload = syntheticQueries(catalog, queries);
  for (const { query, options } of workload.slice(0, 100)) index.search(query, options);
  const times: number[] = [];
  for (const { query, options } of workload) {
    const start = performance.now();
    index.search(query, options);
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  const at = (q: number): number =>
    times[Math.min(times.length - 1, Math.floor(q * times.length))] ?? 0;
  return { tools, queries, buildMs, medianMs: at(0.5), p99Ms: at(0.99) };
}

if ((import.meta as ImportMeta & { main?: boolean }).main) {
  const r = await benchSearch();
  const ms = (x: number): string => `${x.toFixed(3)} ms`;
  console.log(`tools ${r.tools}  build ${ms(r.buildMs)}`);
  console.log(`queries ${r.queries}  median ${ms(r.medianMs)}  p99 ${ms(r.p99Ms)}`);
}
