/**
 * The discovery benchmark's fused run: the same queries through a gateway whose `tool_search`
 * fuses its lexical ranking with a real embedding model's (`discovery.embeddings` pointing at
 * `bench/discovery/embedder.ts`, a child process), so the gain of the semantic ranking is
 * measured, not assumed. The model's own time per query is read from the embedder and shown
 * apart from the search's round trip.
 */
import { join } from "node:path";
import { CallToolResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { BUN, type GatewayMode, ROOT, startPortPrinter } from "../procs.ts";
import { fmt, median, quantile, table } from "../stats.ts";
import { EMBEDDER_MODEL, type EmbedderRequest } from "./embedder.ts";
import { startGateway, type Upstream } from "./gateway.ts";
import type { RankScores } from "./measure.ts";
import { type BenchQuery, QUERY_CLASSES, QUERY_HALVES, runQueries } from "./ranking.ts";
import type { Goal, ScoreSet } from "./report.ts";

const EMBEDDER = join(ROOT, "bench/discovery/embedder.ts");

/** What the fused run measured. */
export interface SemanticReport {
  model: string;
  ranking: ScoreSet;
  /** `tool_search` over MCP, the query's embedding included. */
  searchMs: { median: number; p95: number };
  /** The embedder's time for each search's query, and how many it computed (not cached). */
  queryEmbedMs: { median: number; p95: number; computed: number; queries: number };
  /** The first search, which embeds every tool the gateway has not kept from before. */
  firstSearchMs: number;
  /** Tool texts that search asked for, and how many of them the model computed (not cached). */
  toolsAsked: number;
  toolsComputed: number;
  /** The same servers added `copies` times each, fused. */
  repeated: (ScoreSet & { tools: number; copies: number }) | null;
}

/** A catalog to serve: upstream entries, how to map a copy's name to its server, tool count. */
export interface SemanticCatalog {
  upstreams: readonly Upstream[];
  base: (server: string) => string;
  tools: number;
}

/**
 * Starts the embedder, then a gateway per catalog (`main`, and `repeated` when given) with the
 * semantic ranking on, and sends every query.
 */
export async function semanticRun(
  workDir: string,
  mode: GatewayMode,
  queries: readonly BenchQuery[],
  main: SemanticCatalog,
  repeated: (SemanticCatalog & { copies: number }) | null,
): Promise<SemanticReport> {
  const embedder = await startPortPrinter("embedder", BUN, [EMBEDDER, "--compute-single"]);
  const url = embedder.url.replace(/\/mcp$/, "/v1/embeddings");
  const stats = async () =>
    await (await fetch(url.replace(/\/v1\/embeddings$/, "/stats"))).json() as EmbedderRequest[];
  const embeddings = { url, model: EMBEDDER_MODEL };
  try {
    const gw = await startGateway({
      mode,
      workDir,
      label: "semantic",
      upstreams: main.upstreams,
      embeddings,
    });
    let run;
    let firstSearchMs;
    let toolsComputed;
    let toolsAsked;
    let perQuery: EmbedderRequest[];
    try {
      const t0 = performance.now();
      await gw.client.request(
        { method: "tools/call", params: { name: "tool_search", arguments: { query: "warm up" } } },
        CallToolResultSchema,
        { timeout: 900_000 },
      );
      firstSearchMs = performance.now() - t0;
      const warm = await stats();
      const tools = warm.filter((r) => r.inputs > 1);
      toolsAsked = tools.reduce((n, r) => n + r.inputs, 0);
      toolsComputed = tools.reduce((n, r) => n + r.computed, 0);
      run = await runQueries(gw.client, queries, main.base, false);
      perQuery = (await stats()).slice(warm.length);
    } finally {
      await gw.stop();
    }
    let repeatedRun: SemanticReport["repeated"] = null;
    if (repeated !== null) {
      const rgw = await startGateway({
        mode,
        workDir,
        label: "semantic-repeated",
        upstreams: repeated.upstreams,
        embeddings,
        timeoutMs: 120_000,
      });
      try {
        const r = await runQueries(rgw.client, queries, repeated.base, false);
        repeatedRun = { ...r, tools: repeated.tools, copies: repeated.copies };
      } finally {
        await rgw.stop();
      }
    }
    const queryMs = perQuery.filter((r) => r.inputs === 1).map((r) => r.ms);
    return {
      model: EMBEDDER_MODEL,
      ranking: run,
      searchMs: { median: median(run.latenciesMs), p95: quantile(run.latenciesMs, 0.95) },
      queryEmbedMs: {
        median: median(queryMs),
        p95: quantile(queryMs, 0.95),
        computed: perQuery.reduce((n, r) => n + r.computed, 0),
        queries: queryMs.length,
      },
      firstSearchMs,
      toolsAsked,
      toolsComputed,
      repeated: repeatedRun,
    };
  } finally {
    await embedder.stop();
  }
}

/** The fused run's goals: the same targets as the lexical ranking's. */
export function semanticGoals(s: SemanticReport | undefined): Goal[] {
  if (s === undefined) return [];
  const halves = (key: "recall5" | "mrr") =>
    QUERY_HALVES.map((h) => `${h} ${fmt(s.ranking.byHalf[h][key], 3)}`).join(", ");
  return [
    {
      goal: `recall@5, all queries, fused with ${s.model}`,
      target: "≥ 0.85",
      measured: `${fmt(s.ranking.all.recall5, 3)} (${halves("recall5")})`,
      met: s.ranking.all.recall5 >= 0.85,
    },
    {
      goal: `MRR, all queries, fused with ${s.model}`,
      target: "≥ 0.80",
      measured: `${fmt(s.ranking.all.mrr, 3)} (${halves("mrr")})`,
      met: s.ranking.all.mrr >= 0.8,
    },
  ];
}

const cells = (s: RankScores) => [s.recall1, s.recall5, s.recall10, s.mrr].map((x) => fmt(x, 3));

/** Lexical beside fused, per class and half, as Markdown lines (none without a fused run). */
export function semanticLines(lexical: ScoreSet, s: SemanticReport | undefined): string[] {
  if (s === undefined) return [];
  const rows = (fused: ScoreSet, base: ScoreSet | null) =>
    [
      ["all", base?.all, fused.all] as const,
      ...QUERY_CLASSES.map((c) => [c, base?.byClass[c], fused.byClass[c]] as const),
      ...QUERY_HALVES.map((h) => [`${h} half`, base?.byHalf[h], fused.byHalf[h]] as const),
    ].map(([label, b, f]) => [
      label,
      String(f.queries),
      ...(b === undefined ? [] : cells(b)),
      ...cells(f),
    ]);
  const metrics = ["recall@1", "recall@5", "recall@10", "MRR"];
  return [
    "",
    `Fused with a real embedding model: \`discovery.embeddings\` pointing at ${s.model} ` +
    "(Universal Sentence Encoder lite, 512 dimensions, on TensorFlow.js in a local process; " +
    "`bench/discovery/embedder.ts`), score fusion as the gateway ships it. BM25 " +
    "alone on the left, fused on the right:",
    "",
    table(
      ["queries", "n", ...metrics.map((m) => `BM25 ${m}`), ...metrics.map((m) => `fused ${m}`)],
      rows(s.ranking, lexical),
    ),
    "",
    `tool_search with the semantic ranking: median ${fmt(s.searchMs.median, 1)} ms, p95 ${
      fmt(s.searchMs.p95, 1)
    } ms over MCP, of which the embedder's answer for the query: median ${
      fmt(s.queryEmbedMs.median, 1)
    } ms, p95 ${
      fmt(s.queryEmbedMs.p95, 1)
    } ms (${s.queryEmbedMs.computed} of ${s.queryEmbedMs.queries} ` +
    "queries computed by the model, the others from its cache). The first search after start " +
    `asked for the vectors of ${s.toolsAsked} tool texts (${s.toolsComputed} computed by the ` +
    `model, the rest from its cache) and took ${fmt(s.firstSearchMs / 1000, 1)} s.`,
    ...(s.repeated === null ? [] : [
      "",
      `Fused, the same servers added ${s.repeated.copies} times each (${s.repeated.tools} tools):`,
      "",
      table(["queries", "n", ...metrics], rows(s.repeated, null)),
    ]),
  ];
}
