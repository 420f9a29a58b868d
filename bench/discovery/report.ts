/**
 * The discovery benchmark's report: every goal as met or missed with its figure, then the tables
 * behind them, as Markdown for `bench/RESULTS.md` (between markers, so the section can be
 * replaced by a run of its own without touching the rest of the file).
 */
import { fmt, table } from "../stats.ts";
import type { RankScores } from "./measure.ts";
import { QUERY_CLASSES, QUERY_HALVES, type QueryClass, type QueryHalf } from "./ranking.ts";
import type { TaskTokens } from "./tasks.ts";
import { semanticGoals, semanticLines, type SemanticReport } from "./semantic.ts";

/** Ranking scores overall and per class. */
export interface ScoreSet {
  all: RankScores;
  byClass: Record<QueryClass, RankScores>;
  /** The tuning and the held-out half of the queries. */
  byHalf: Record<QueryHalf, RankScores>;
}

/** Everything one discovery run measured. */
export interface DiscoveryReport {
  size: string;
  /** The day of the run and the commit measured. */
  date: string;
  commit: string;
  gateway: string;
  servers: number;
  tools: number;
  queries: number;
  listTokens: { all: number; search: number };
  ranking: ScoreSet;
  searchMs: { median: number; p95: number };
  searchTokens: { median: number; max: number };
  describeTokens: { median: number; p90: number; max: number; tools: number };
  tasks: TaskTokens[];
  repeated: ScoreSet & { tools: number; copies: number };
  scale: {
    tools: number;
    /** The gateway's own index searched in the benchmark's process. */
    medianMs: number;
    p95Ms: number;
    /** Through the gateway over MCP. */
    roundTripMs: number;
    roundTripP95Ms: number;
    /** The gateway process's CPU per search, from /proc. */
    gatewayCpuMs: number;
    firstSearchMs: number;
    rssJumpBytes: number;
  };
  misses: { id: string; query: string; top: string[] }[];
  /** The same queries with the semantic ranking fused in (absent when not run). */
  semantic?: SemanticReport;
  /** The machine's load averages (1 / 5 / 15 minutes) when the run began. */
  loadAtStart: string;
  seconds: number;
}

/** One goal of the discovery work. */
export interface Goal {
  goal: string;
  target: string;
  measured: string;
  met: boolean;
}

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
const MiB = 1024 ** 2;

const halves = (s: ScoreSet, key: "recall5" | "mrr") =>
  QUERY_HALVES.map((h) => `${h} ${fmt(s.byHalf[h][key], 3)}`).join(", ");

/** The goals, judged on this run's figures. */
export function goals(r: DiscoveryReport): Goal[] {
  const worstTask = r.tasks.reduce<TaskTokens | null>(
    (w, t) => (w === null || t.discovery > w.discovery ? t : w),
    null,
  );
  return [
    {
      goal: "recall@5, all queries",
      target: "≥ 0.85",
      measured: `${fmt(r.ranking.all.recall5, 3)} (${halves(r.ranking, "recall5")})`,
      met: r.ranking.all.recall5 >= 0.85,
    },
    {
      goal: "MRR, all queries",
      target: "≥ 0.80",
      measured: `${fmt(r.ranking.all.mrr, 3)} (${halves(r.ranking, "mrr")})`,
      met: r.ranking.all.mrr >= 0.8,
    },
    {
      goal: "recall@5, reworded queries (BM25 alone)",
      target: "≥ 0.70",
      measured: fmt(r.ranking.byClass.reworded.recall5, 3),
      met: r.ranking.byClass.reworded.recall5 >= 0.7,
    },
    {
      goal: `recall@5, servers repeated (${r.repeated.tools} tools)`,
      target: "≥ 0.85",
      measured: fmt(r.repeated.all.recall5, 3),
      met: r.repeated.all.recall5 >= 0.85,
    },
    {
      goal: `MRR, servers repeated (${r.repeated.tools} tools)`,
      target: "≥ 0.80",
      measured: fmt(r.repeated.all.mrr, 3),
      met: r.repeated.all.mrr >= 0.8,
    },
    {
      goal: `recall@5, reworded, servers repeated (${r.repeated.tools} tools)`,
      target: "≥ 0.70",
      measured: fmt(r.repeated.byClass.reworded.recall5, 3),
      met: r.repeated.byClass.reworded.recall5 >= 0.7,
    },
    {
      goal: "tokens of one tool_search answer at the default limit (median; max)",
      target: "≤ 700",
      measured: `${r.searchTokens.median} (max ${r.searchTokens.max})`,
      met: r.searchTokens.median <= 700,
    },
    {
      goal: "tokens of one tool_describe of a typical tool (median; p90)",
      target: "≤ 500",
      measured: `${r.describeTokens.median} (p90 ${r.describeTokens.p90})`,
      met: r.describeTokens.median <= 500,
    },
    {
      goal: "discovery tokens per multi-step task, every task (worst)",
      target: "≤ 3,000",
      measured: worstTask
        ? `${worstTask.discovery} (doing it: ${worstTask.doing}; "${worstTask.name}")`
        : "–",
      met: worstTask !== null && r.tasks.every((t) => t.discovery <= 3000),
    },
    {
      goal: `search median at ${r.scale.tools} tools (the gateway's index, in process)`,
      target: "≤ 2 ms",
      measured: `${fmt(r.scale.medianMs, 3)} ms (over MCP: ${fmt(r.scale.roundTripMs, 2)} ms, ` +
        `gateway CPU ${fmt(r.scale.gatewayCpuMs, 2)} ms per search)`,
      met: r.scale.medianMs <= 2,
    },
    {
      goal: `RSS jump of the first search after start at ${r.scale.tools} tools`,
      target: "≤ 20 MiB",
      measured: `${fmt(r.scale.rssJumpBytes / MiB, 1)} MiB (${fmt(r.scale.firstSearchMs, 0)} ms)`,
      met: r.scale.rssJumpBytes <= 20 * MiB,
    },
    ...semanticGoals(r.semantic),
  ];
}

/** The goals as console lines: `MET` / `MISSED`, the goal, the figure and the target. */
export function goalLines(r: DiscoveryReport): string[] {
  return goals(r).map((g) =>
    `${g.met ? "MET   " : "MISSED"}  ${g.goal}: ${g.measured} (target ${g.target})`
  );
}

/** Start and end markers of the section in `bench/RESULTS.md`. */
export const SECTION_START = "<!-- discovery:start -->";
export const SECTION_END = "<!-- discovery:end -->";

const scoreRow = (label: string, s: RankScores) => [
  label,
  String(s.queries),
  fmt(s.recall1, 3),
  fmt(s.recall5, 3),
  fmt(s.recall10, 3),
  fmt(s.mrr, 3),
];

/** The "Discovery" section, markers included. */
export function renderDiscovery(r: DiscoveryReport): string {
  const saved = 1 - r.listTokens.search / r.listTokens.all;
  const scoreHeader = ["queries", "n", "recall@1", "recall@5", "recall@10", "MRR"];
  const scores = (s: ScoreSet) =>
    table(scoreHeader, [
      scoreRow("all", s.all),
      ...QUERY_CLASSES.map((c) => scoreRow(c, s.byClass[c])),
      ...QUERY_HALVES.map((h) => scoreRow(`${h} half`, s.byHalf[h])),
    ]);
  return [
    SECTION_START,
    "## Discovery",
    "",
    `\`npm run bench:discovery\` (${r.size} run of ${r.date}, commit ${r.commit}, ${
      fmt(r.seconds, 0)
    } s; gateway: ${r.gateway}): ` +
    `${r.servers} real MCP servers from npm captured in \`bench/discovery/catalog/\` ` +
    `(${r.tools} tools), replayed behind the gateway with \`exposure: search\`; ${r.queries} ` +
    "task descriptions in `bench/discovery/queries.json`; everything through MCP. Tokens are " +
    "o200k, counted on the JSON an agent reads.",
    "",
    table(
      ["goal", "target", "measured", ""],
      goals(r).map((g) => [
        g.goal,
        g.target,
        g.measured,
        g.met ? "met" : "**missed**",
      ]),
    ),
    "",
    `\`tools/list\`: ${r.listTokens.all} tokens with \`exposure: all\`, ${r.listTokens.search} ` +
    `with \`exposure: search\` (${pct(saved)} less).`,
    "",
    "Ranking on the captured catalog (limit 10). The queries fall in two halves by a hash of " +
    "their text: ranking changes are tuned on the tuning half and kept only when the held-out " +
    "half gains too.",
    "",
    scores(r.ranking),
    "",
    `The same servers added ${r.repeated.copies} times each (${r.repeated.tools} tools):`,
    "",
    scores(r.repeated),
    ...semanticLines(r.ranking, r.semantic),
    "",
    `tool_search over MCP (client to gateway and back; load average ${r.loadAtStart} at the start): median ${
      fmt(r.searchMs.median, 2)
    } ms, p95 ${fmt(r.searchMs.p95, 2)} ms at ${r.tools} tools; median ${
      fmt(r.scale.roundTripMs, 2)
    } ms, p95 ${fmt(r.scale.roundTripP95Ms, 2)} ms at ${r.scale.tools} tools (in process: median ${
      fmt(r.scale.medianMs, 3)
    } ms, p95 ${
      fmt(r.scale.p95Ms, 3)
    } ms). tool_describe: median ${r.describeTokens.median}, p90 ${r.describeTokens.p90}, max ${r.describeTokens.max} tokens over ${r.describeTokens.tools} tools.`,
    "",
    "Multi-step tasks, tokens in the agent's context (plain: a search, a describe and the call " +
    "per step; execute: one Lua script searching and calling inside the gateway). The replayed " +
    "servers answer every call with a small canned result, so *doing* is mostly the calls' " +
    "arguments; a real result adds the same to both ways:",
    "",
    table(
      ["task", "steps", "plain: discovery", "plain: doing", "not in first search", "execute"],
      r.tasks.map((t) => [
        t.name,
        String(t.steps),
        String(t.discovery),
        String(t.doing),
        String(t.notFound),
        `${t.execute}${t.executeOk ? "" : " (failed)"}`,
      ]),
    ),
    "",
    `Queries whose correct tool is not in the first 10: ${r.misses.length}.`,
    SECTION_END,
  ].join("\n");
}

/** The discovery section of `text`, markers included, or null when it has none. */
export function discoverySection(text: string): string | null {
  const start = text.indexOf(SECTION_START);
  const end = text.indexOf(SECTION_END);
  return start < 0 || end < start ? null : text.slice(start, end + SECTION_END.length);
}

/** `text` with its discovery section replaced by `section` (appended when absent). */
export function replaceSection(text: string, section: string): string {
  const start = text.indexOf(SECTION_START);
  const end = text.indexOf(SECTION_END);
  if (start < 0 || end < start) return `${text.trimEnd()}\n\n${section}\n`;
  return `${text.slice(0, start)}${section}${text.slice(end + SECTION_END.length)}`;
}
