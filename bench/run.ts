/**
 * The benchmark in one command: `npm run bench` (`bun bench/run.ts`) measures the gateway beside
 * direct connections to the same upstream, its footprint and cold start, Lua call overhead and
 * tool_search, then prints the Markdown report and writes it to `bench/RESULTS.md` (a `--quick`
 * run writes the untracked `bench/results-quick.md`: its numbers are not the reference run).
 *
 * Flags: `--quick` (a smoke run: one repetition, short cells), `--gateway=auto|binary|
 * source|deno` (how the gateway process starts; `auto` uses `dist/mcp-gateway` when it is newer
 * than `src/`), `--skip=footprint,lua,search,discovery`, `--out=FILE` (`-` to only print),
 * `--unpinned` (throughput servers and load client wherever the scheduler puts them).
 * The discovery benchmark (`bench/discovery.ts`) runs last as a section of its own (its tiny
 * slice in a quick run); skipped, the section already in the output file is kept.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runDiscovery } from "./discovery.ts";
import { discoverySection, renderDiscovery, replaceSection } from "./discovery/report.ts";
import { benchFootprint } from "./footprint.ts";
import { loadNow, machineFacts } from "./machine.ts";
import { DENO, gatewayCommand, type GatewayMode, killAll, ROOT } from "./procs.ts";
import { choosePinning, unpinned } from "./pinning.ts";
import { type BenchReport, renderMarkdown, type SearchReport } from "./report.ts";
import { benchScripting } from "./scripting.ts";
import { benchThroughput, type CellLimits } from "./throughput.ts";
import { PAIRED_LARGE_TARGETS, PAIRED_TARGETS } from "./paired.ts";

/** How much to measure. `smallest` is the end-to-end check the test suite runs. */
export type BenchSize = "full" | "quick" | "smallest";

/** Options for {@link runBench}. */
export interface BenchOptions {
  size: BenchSize;
  gatewayMode?: GatewayMode;
  skip?: readonly ("footprint" | "lua" | "search")[];
  /** Pin the throughput part's servers and load client to CPUs of their own (default true). */
  pin?: boolean;
  /** Progress lines (stderr by default). */
  progress?: (line: string) => void;
}

const MiB = 1024 ** 2;

/** The paired windows' parts: small calls (floor, core, gateway) and 1 MiB (floor, gateway, /sse). */
const SMALL_ARMS = { payloadBytes: 100, arms: PAIRED_TARGETS };
const LARGE_ARMS = { payloadBytes: MiB, arms: PAIRED_LARGE_TARGETS };

/** Per-size plan: every phase is bounded by a count and a time. */
const PLANS = {
  full: {
    // Short repetitions rather than few long ones: on a shared machine, medians of more
    // interleaved samples move less. Eight paths (nine at large payloads) × three payloads × two
    // session counts, the peers and the crowd keep a repetition at about two minutes.
    reps: 5,
    sessions: [1, 8],
    crowd: 64,
    peerSessions: [1, 8],
    payloads: [100, MiB, 8 * MiB],
    // The gateway's compiler work ends after ~12,000–14,000 calls at one session (measured by
    // thread); the floor's after ~2,000.
    settle: { calls: 20_000, ms: 10_000 },
    paired: [
      // 40 cycles of six 500-call windows: eight repetitions of five cycles, at each session count.
      {
        ...SMALL_ARMS,
        sessions: [1, 8],
        warmupCalls: 2_000,
        windowCalls: 500,
        cycles: 40,
        reps: 8,
        maxMs: 90_000,
      },
      // 20 cycles of five 16-call windows of 1 MiB: five repetitions of four cycles.
      {
        ...LARGE_ARMS,
        sessions: [1, 8],
        warmupCalls: 4,
        windowCalls: 16,
        cycles: 20,
        reps: 5,
        maxMs: 150_000,
      },
    ],
    limits: (p: number): CellLimits =>
      p < MiB
        ? { warmupCalls: 300, warmupMs: 500, maxCalls: 50_000, maxMs: 1500 }
        : p < 8 * MiB
        ? { warmupCalls: 4, warmupMs: 1000, maxCalls: 1000, maxMs: 1500 }
        // A time limit stops only new calls: few 8 MB calls, so 8 in flight end soon after.
        : { warmupCalls: 1, warmupMs: 1000, maxCalls: 40, maxMs: 1500 },
    footprint: { reps: 3, settleMs: 1000, loadMs: 3000, warmup: true },
    lua: { runs: 10, roundTrips: 100, luaIterations: 200, codeMode: true },
    search: { tools: 10_000, queries: 1000 },
  },
  quick: {
    reps: 1,
    sessions: [1, 8],
    crowd: 64,
    peerSessions: [1, 8],
    payloads: [100, MiB, 8 * MiB],
    settle: { calls: 5_000, ms: 3_000 },
    paired: [
      {
        ...SMALL_ARMS,
        sessions: [1, 8],
        warmupCalls: 500,
        windowCalls: 300,
        cycles: 10,
        reps: 5,
        maxMs: 30_000,
      },
      {
        ...LARGE_ARMS,
        sessions: [1, 8],
        warmupCalls: 2,
        windowCalls: 8,
        cycles: 5,
        reps: 5,
        maxMs: 30_000,
      },
    ],
    limits: (p: number): CellLimits =>
      p < MiB
        ? { warmupCalls: 100, warmupMs: 300, maxCalls: 20_000, maxMs: 1000 }
        : p < 8 * MiB
        ? { warmupCalls: 2, warmupMs: 500, maxCalls: 200, maxMs: 1000 }
        : { warmupCalls: 1, warmupMs: 500, maxCalls: 16, maxMs: 1000 },
    footprint: { reps: 1, settleMs: 500, loadMs: 1000, warmup: true },
    lua: { runs: 3, roundTrips: 20, luaIterations: 50, codeMode: true },
    search: { tools: 10_000, queries: 200 },
  },
  smallest: {
    reps: 1,
    sessions: [1],
    // No crowd and no peers: `test/bench-peers.test.ts` runs those paths on their own.
    payloads: [100],
    // 300 calls: CPU is read in 10 ms clock ticks, and a cell of 30 fast calls could read 0.
    limits: (): CellLimits => ({ warmupCalls: 5, warmupMs: 200, maxCalls: 300, maxMs: 2000 }),
    paired: [
      {
        ...SMALL_ARMS,
        sessions: [1],
        warmupCalls: 20,
        windowCalls: 100,
        cycles: 2,
        reps: 1,
        maxMs: 20_000,
      },
    ],
    footprint: { reps: 1, settleMs: 200, loadMs: 300, warmup: false },
    lua: { runs: 1, roundTrips: 5, luaIterations: 10, codeMode: false },
    search: { tools: 10_000, queries: 20 },
  },
} as const;

/** Runs the benchmark and returns its report; kills every process it started, however it ends. */
export async function runBench(opts: BenchOptions): Promise<BenchReport> {
  const plan = PLANS[opts.size];
  const mode = opts.gatewayMode ?? "auto";
  const skip = new Set(opts.skip ?? []);
  const say = opts.progress ?? ((line: string) => process.stderr.write(`bench: ${line}\n`));
  const workDir = mkdtempSync(join(tmpdir(), "mcpgw-bench-"));
  const t0 = performance.now();
  const facts = machineFacts(gatewayCommand(mode).label);
  const pinning = opts.pin === false ? unpinned("--unpinned") : choosePinning();
  facts.push(["throughput part", pinning.note]);
  try {
    const throughput = await benchThroughput({
      ...plan,
      pinning,
      gatewayMode: mode,
      workDir,
      onCell: say,
    });
    const footprint = skip.has("footprint")
      ? null
      : await benchFootprint({ ...plan.footprint, gatewayMode: mode, workDir, onStep: say });
    if (!skip.has("lua")) say("lua");
    const scripting = skip.has("lua")
      ? null
      : await benchScripting({ ...plan.lua, gatewayMode: mode, workDir });
    if (!skip.has("search")) say("tool_search");
    const search = skip.has("search") ? null : await benchSearchRows(plan.search);
    return {
      mode: opts.size,
      facts,
      throughput,
      footprint,
      scripting,
      search,
      seconds: (performance.now() - t0) / 1000,
      loadAtEnd: loadNow(),
    };
  } finally {
    killAll();
    rmSync(workDir, { recursive: true, force: true });
  }
}

/** `benchSearch()` from `bench/search.ts`, if that module loads and exports it. */
async function benchSearchRows(size: { tools: number; queries: number }): Promise<SearchReport> {
  try {
    // A computed specifier: the search room is built alongside; its failure is a row, not a crash.
    const file = join(ROOT, "bench/search.ts");
    const mod = await import(file) as { benchSearch?: unknown };
    if (typeof mod.benchSearch !== "function") return { notBuilt: "no benchSearch() export" };
    const r = await mod.benchSearch(size.tools, size.queries) as Record<string, number>;
    return {
      tools: Number(r.tools),
      queries: Number(r.queries),
      buildMs: Number(r.buildMs),
      medianMs: Number(r.medianMs),
      p99Ms: Number(r.p99Ms),
    };
  } catch (err) {
    return { notBuilt: String(err instanceof Error ? err.message : err).split("\n")[0]! };
  }
}

/** Where the report goes: `--out=FILE`, else RESULTS.md for a full run, results-quick.md else. */
export function benchOutFile(args: readonly string[]): string {
  const quick = args.includes("--quick");
  return flag(args, "out") ?? join(ROOT, quick ? "bench/results-quick.md" : "bench/RESULTS.md");
}

function flag(args: readonly string[], name: string): string | undefined {
  return args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
}

if ((import.meta as ImportMeta & { main?: boolean }).main) {
  const args = process.argv.slice(2);
  const size: BenchSize = args.includes("--quick") ? "quick" : "full";
  const out = benchOutFile(args);
  const onSignal = () => {
    killAll();
    process.exit(130);
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  const skip = flag(args, "skip")?.split(",") ?? [];
  const gatewayMode = (flag(args, "gateway") ?? "auto") as GatewayMode;
  const report = await runBench({
    size,
    gatewayMode,
    skip: skip as BenchOptions["skip"],
    pin: !args.includes("--unpinned"),
  });
  const discovery = skip.includes("discovery")
    ? discoverySection(out === "-" || !existsSync(out) ? "" : readFileSync(out, "utf8"))
    : renderDiscovery(await runDiscovery({ size: size === "full" ? "full" : "tiny", gatewayMode }));
  const markdown = discovery === null
    ? renderMarkdown(report)
    : replaceSection(renderMarkdown(report), discovery);
  if (out === "-") console.log(markdown);
  else {
    writeFileSync(out, markdown);
    // The file lives under bench/, which `deno fmt --check` covers: write it the way fmt would.
    spawnSync(DENO, ["fmt", "--quiet", out], { stdio: "ignore" });
    console.log(readFileSync(out, "utf8"));
    process.stderr.write(`bench: wrote ${out}\n`);
  }
  process.exit(0);
}
