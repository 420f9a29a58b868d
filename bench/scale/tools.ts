/**
 * What an aggregated tool costs: RSS and full `tools/list` time with 50 … 20,000 tools (servers
 * of at most 1,000 tools each, shaped like real ones), against a gateway with one tool; and,
 * with `exposure: search`, the first `tool_search` after start — its time and the RSS it adds.
 */
import { join } from "node:path";
import { ROOT } from "../procs.ts";
import { median, mib, sleep, table } from "../stats.ts";
import type { ScalePlan } from "./run.ts";
import {
  openSession,
  POST_HEADERS,
  type ScaleGateway,
  settledRss,
  startScaleGateway,
} from "./gateway.ts";

const MANY_TOOLS = join(ROOT, "bench/scale/many-tools.mjs");
/** Full lists served, unmeasured, between the first one after a pause and the measured ones. */
const WARM_LISTS = 20;

/** What the tools part measured. */
export interface ToolsReport {
  largest: number;
  kbPerTool: number;
  largestIdleMiB: number;
  largestListP50Ms: number;
  firstSearchMs: number;
  firstSearchMiB: number;
  markdown: string;
}

function yamlFor(tools: number, exposure = "all"): string {
  const servers = Math.max(1, Math.ceil(tools / 1000));
  let yaml = `gateway:\n  exposure: ${exposure}\nservers:\n`;
  for (let i = 0; i < servers; i++) {
    const n = Math.floor(tools / servers) + (i < tools % servers ? 1 : 0);
    yaml += `  s${i}: { command: node, args: [${JSON.stringify(MANY_TOOLS)}], ` +
      `env: { TOOLS: "${n}", SERVER: "s${i}" }, timeout: 60s }\n`;
  }
  return yaml;
}

/** The answer's JSON text (the one event of a stream, or the JSON body). */
async function postText(url: string, sid: string, body: unknown): Promise<string> {
  const res = await fetch(`${url}/mcp`, {
    method: "POST",
    headers: { ...POST_HEADERS, "mcp-session-id": sid },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  return text.startsWith("{")
    ? text
    : text.split("\n").find((l) => l.startsWith("data:"))!.slice(5);
}

async function post(url: string, sid: string, body: unknown): Promise<Record<string, any>> {
  return JSON.parse(await postText(url, sid, body));
}

/**
 * Every tool listed, following cursors: the count, the milliseconds until every page's bytes had
 * arrived (the gateway's answer), and the milliseconds the client then spent parsing them. The
 * parse is the client's own work and grows with the catalog whatever the server does, so it is
 * reported beside the answer, not in it.
 */
async function fullList(
  url: string,
  sid: string,
): Promise<{ count: number; ms: number; parseMs: number }> {
  let ms = 0;
  let parseMs = 0;
  let count = 0;
  let cursor: string | undefined;
  do {
    const t0 = performance.now();
    const text = await postText(url, sid, {
      jsonrpc: "2.0",
      id: 1,
      method: "tools/list",
      params: cursor ? { cursor } : {},
    });
    const t1 = performance.now();
    const answer = JSON.parse(text);
    parseMs += performance.now() - t1;
    ms += t1 - t0;
    // The upstreams' tools only (local tools such as the meta-tools are not counted).
    count += (answer.result.tools as { name: string }[]).filter((t) => /^s\d+__/.test(t.name))
      .length;
    cursor = answer.result.nextCursor;
  } while (cursor);
  return { count, ms, parseMs };
}

async function ready(gw: ScaleGateway): Promise<void> {
  const deadline = performance.now() + 120_000;
  while (performance.now() < deadline) {
    const res = await fetch(`${gw.url}/readyz`);
    await res.body?.cancel();
    if (res.status === 200) return;
    await sleep(50);
  }
  throw new Error("upstreams not ready in 120 s");
}

/**
 * Waits until the status shows every upstream tool exposed: ready means every first start is
 * done, not that every server's list has joined the catalog, and a search while it still grows
 * measures the catalog's changes rather than the first search after one.
 */
async function allExposed(gw: ScaleGateway, n: number): Promise<void> {
  const deadline = performance.now() + 120_000;
  for (;;) {
    const res = await fetch(`${gw.url}/status.json`);
    const status = await res.json() as { upstreams?: { toolsExposed: number }[] };
    const exposed = (status.upstreams ?? []).reduce((sum, u) => sum + u.toolsExposed, 0);
    if (exposed === n) return;
    if (performance.now() > deadline) throw new Error(`${exposed} of ${n} tools exposed in 120 s`);
    await sleep(200);
  }
}

export async function benchTools(
  argv: readonly string[],
  plan: ScalePlan,
  say: (line: string) => void,
): Promise<ToolsReport> {
  const rows: string[][] = [];
  const one = await startScaleGateway(argv, yamlFor(1));
  let base: number;
  try {
    await ready(one);
    await fullList(one.url, await openSession(one.url));
    base = await settledRss(one, 3_000);
  } finally {
    await one.stop();
  }
  rows.push(["1", mib(base), "—", "—", "—", "—", "—"]);
  let kbPerTool = 0;
  let largestIdle = 0;
  let largestP50 = 0;
  for (const n of plan.tools) {
    const gw = await startScaleGateway(argv, yamlFor(n));
    try {
      await ready(gw);
      const sid = await openSession(gw.url);
      // Ready is every first start done; a slow server may still be listing: wait for all.
      const until = performance.now() + 60_000;
      for (let seen = 0; (seen = (await fullList(gw.url, sid)).count) !== n;) {
        if (performance.now() > until) throw new Error(`listed ${seen} tools, expected ${n}`);
        await sleep(200);
      }
      const idle = await settledRss(gw);
      // The first lists after a pause run the request path before the runtime has compiled it
      // for speed (and a list is 21 requests at 20,000 tools): shown apart, then the path is
      // warmed as steady traffic keeps it before the median is taken.
      const first = (await fullList(gw.url, sid)).ms;
      for (let i = 0; i < WARM_LISTS; i++) await fullList(gw.url, sid);
      const times: number[] = [];
      const parses: number[] = [];
      for (let i = 0; i < plan.reps * 2; i++) {
        const list = await fullList(gw.url, sid);
        times.push(list.ms);
        parses.push(list.parseMs);
      }
      const p50 = median(times);
      kbPerTool = (idle - base) / n / 1024;
      largestIdle = idle / 1024 ** 2;
      largestP50 = p50;
      rows.push([
        String(n),
        mib(idle),
        kbPerTool.toFixed(2),
        first.toFixed(1),
        p50.toFixed(1),
        median(parses).toFixed(1),
        mib(gw.peak()),
      ]);
      say(
        `scale: ${n} tools: ${mib(idle)}, ${kbPerTool.toFixed(2)} KB/tool, list p50 ${
          p50.toFixed(1)
        } ms`,
      );
    } finally {
      await gw.stop();
    }
  }
  const largest = plan.tools.at(-1)!;
  const search = await startScaleGateway(argv, yamlFor(largest, "search"));
  let firstSearchMs: number;
  let firstSearchMiB: number;
  try {
    await ready(search);
    await allExposed(search, largest);
    const sid = await openSession(search.url);
    // Past the compaction a burst of joining servers schedules (two quiet seconds after it).
    const before = await settledRss(search, 5_000);
    // The peak since start would be start-up's (20 servers joining), not the search's.
    if (!search.resetPeak()) throw new Error("cannot reset the peak RSS (clear_refs)");
    const t0 = performance.now();
    const answer = await post(search.url, sid, {
      jsonrpc: "2.0",
      id: 2,
      method: "tools/call",
      params: { name: "tool_search", arguments: { query: "archive a closed project" } },
    });
    firstSearchMs = performance.now() - t0;
    if (answer.error) throw new Error(`tool_search: ${JSON.stringify(answer.error)}`);
    firstSearchMiB = (search.peak() - before) / 1024 ** 2;
  } finally {
    await search.stop();
  }
  return {
    largest,
    kbPerTool,
    largestIdleMiB: largestIdle,
    largestListP50Ms: largestP50,
    firstSearchMs,
    firstSearchMiB,
    markdown: table(
      [
        "tools",
        "idle RSS",
        "KB per tool",
        "first full tools/list after a pause (ms)",
        "full tools/list p50, warm (ms)",
        "client's parse p50 (ms)",
        "peak RSS",
      ],
      rows,
    ) +
      `\n\nFirst \`tool_search\` after start over ${largest} tools (\`exposure: search\`): ` +
      `${firstSearchMs.toFixed(0)} ms, peak RSS +${firstSearchMiB.toFixed(1)} MiB.`,
  };
}
