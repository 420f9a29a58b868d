/**
 * The scale section: what a session, a tool and a result in flight cost the gateway, and whether
 * it gives memory back. `npm run bench:scale` (`bun bench/scale/run.ts`) starts the gateway (the
 * compiled binary when it is newer than `src/`) for each part, reads its RSS from /proc, prints
 * every goal as met or missed with its figure, and writes `bench/SCALE.md`.
 *
 * Run it with `BUN_CONFIG_MAX_HTTP_REQUESTS=4096` (the npm script does): Bun's fetch holds at most
 * 256 requests open at once by default, and the sessions part holds 1,000 GET streams open — past
 * 256 the rest would wait forever.
 *
 * Flags: `--quick` (fewer sessions and tools, a 10 s give-back wait: a smoke run, not the
 * reference), `--gateway=auto|binary|source|deno`, `--skip=sessions,tools,results,flood,healthz`,
 * `--tools=5000,20000` (which tool counts to measure; the goals read the largest).
 */
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { loadNow } from "../machine.ts";
import { gatewayCommand, type GatewayMode, killAll, ROOT } from "../procs.ts";
import { fmt, table } from "../stats.ts";
import { benchHealthz, type HealthzReport } from "./healthz.ts";
import { benchFlood, type FloodReport } from "./flood.ts";
import { benchResults, type ResultsReport } from "./results.ts";
import { benchSessions, type SessionsReport } from "./sessions.ts";
import { benchTools, type ToolsReport } from "./tools.ts";

/** How much to measure. */
export interface ScalePlan {
  sessions: readonly number[];
  streams: number;
  giveBackMs: number;
  tools: readonly number[];
  resultBytes: number;
  upstreams: readonly number[];
  reps: number;
  /** What the flood part sends while one client stops reading. */
  floodBytes: number;
}

const PLANS: Record<"full" | "quick", ScalePlan> = {
  full: {
    sessions: [100, 1_000, 5_000],
    streams: 1_000,
    giveBackMs: 60_000,
    tools: [50, 500, 5_000, 20_000],
    resultBytes: 64 * 1024 * 1024,
    upstreams: [1, 10, 50],
    reps: 5,
    floodBytes: 100 * 1024 * 1024,
  },
  quick: {
    sessions: [100, 500],
    streams: 100,
    giveBackMs: 10_000,
    tools: [50, 2_000],
    resultBytes: 8 * 1024 * 1024,
    upstreams: [1, 10],
    reps: 3,
    floodBytes: 16 * 1024 * 1024,
  },
};

const MiB = 1024 * 1024;

/** One goal of the issue, judged. */
interface Goal {
  name: string;
  figure: string;
  target: string;
  met: boolean | null;
}

function goalsOf(
  s: SessionsReport | null,
  t: ToolsReport | null,
  r: ResultsReport | null,
  f: FloodReport | null,
  h: HealthzReport | null,
): Goal[] {
  const goals: Goal[] = [];
  const g = (name: string, value: number | null, target: number, unit: string, le = true) =>
    goals.push({
      name,
      figure: value === null ? "—" : `${fmt(value)} ${unit}`,
      target: `${le ? "≤" : "≥"} ${target} ${unit}`,
      met: value === null ? null : le ? value <= target : value >= target,
    });
  if (s) {
    g("idle 2025 session", s.kbPerSession, 12, "KB");
    g("idle 2025 session with its GET stream", s.kbPerSessionWithStream, 20, "KB");
    g(
      "RSS one minute after the sessions close, over the pre-load RSS",
      s.afterCloseRatio,
      1.25,
      "×",
    );
  }
  if (t) {
    g("aggregated tool", t.kbPerTool, 3, "KB");
    g(`${t.largest} tools idle`, t.largestIdleMiB, 120, "MiB");
    g(`full tools/list of ${t.largest} tools, p50 after warm-up`, t.largestListP50Ms, 30, "ms");
    g("first search after start: extra RSS", t.firstSearchMiB, 20, "MiB");
    g("first search after start: time", t.firstSearchMs, 50, "ms");
  }
  if (r) g("peak RSS growth over result bytes in flight", r.peakOverBytes, 1.5, "×");
  if (f) {
    g(
      "a client that stops reading under a flood: peak RSS growth",
      f.growth / MiB,
      f.bound / MiB,
      "MiB",
    );
  }
  if (h) g(`/healthz after start with ${h.most} stdio upstreams`, h.mostMs, 150, "ms");
  return goals;
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const quick = args.includes("--quick");
  const toolCounts = args.find((a) => a.startsWith("--tools="))?.split("=")[1];
  const plan = {
    ...PLANS[quick ? "quick" : "full"],
    ...(toolCounts ? { tools: toolCounts.split(",").map(Number) } : {}),
  };
  const mode =
    (args.find((a) => a.startsWith("--gateway="))?.split("=")[1] ?? "auto") as GatewayMode;
  const skip = new Set(args.find((a) => a.startsWith("--skip="))?.split("=")[1]?.split(",") ?? []);
  const say = (line: string) => process.stderr.write(`${line}\n`);
  const { argv, label } = gatewayCommand(mode);
  const loadBefore = loadNow();
  say(`scale: ${label}, load ${loadBefore}`);
  const sessions = skip.has("sessions") ? null : await benchSessions(argv, plan, say);
  const tools = skip.has("tools") ? null : await benchTools(argv, plan, say);
  const results = skip.has("results") ? null : await benchResults(argv, plan, say);
  const flood = skip.has("flood") ? null : await benchFlood(argv, plan, say);
  const healthz = skip.has("healthz") ? null : await benchHealthz(argv, plan, say);
  const goals = goalsOf(sessions, tools, results, flood, healthz);
  const lines = [
    "# Scale: sessions, tools, results in flight",
    "",
    `Gateway: ${label}. Load at start ${loadBefore}, at end ${loadNow()}.` +
    (quick ? " A `--quick` run: smaller counts, not the reference." : ""),
    "",
    table(
      ["goal", "figure", "target", "met"],
      goals.map((
        x,
      ) => [x.name, x.figure, x.target, x.met === null ? "—" : x.met ? "met" : "MISSED"]),
    ),
    "",
    ...(sessions ? ["## Sessions", "", sessions.markdown, ""] : []),
    ...(tools ? ["## Tools", "", tools.markdown, ""] : []),
    ...(results ? ["## Results in flight", "", results.markdown, ""] : []),
    ...(flood ? ["## A client that stops reading", "", flood.markdown, ""] : []),
    ...(healthz ? ["## The port first", "", healthz.markdown, ""] : []),
  ];
  const text = lines.join("\n");
  process.stdout.write(text + "\n");
  const file = join(ROOT, quick ? "bench/scale-quick.md" : "bench/SCALE.md");
  writeFileSync(file, text + "\n");
  // Written as the repository's formatter would (its check runs on every file); best effort.
  spawnSync(join(ROOT, "node_modules/.bin/deno"), ["fmt", "--quiet", file], { stdio: "ignore" });
}

try {
  await main();
} finally {
  killAll();
}
