/**
 * The small-call CPU goals, measured in paired windows: the floor, the core and the gateway,
 * each in both eras, served by one load client (`./paired-client.ts`) in turn — a window of a
 * few hundred calls each, the six in a rotating order, cycle after cycle — and each window's CPU
 * read from its own server process. Consecutive cycles make a repetition: an arm's CPU per call
 * in a repetition is all its windows' CPU over all their calls (so a collection that lands in
 * one window is paid for, not left out as a median over windows would), and a goal's ratio is
 * taken within each repetition — the gateway's windows against the floor's of the same era, each
 * a tenth of a second from the other. The verdict is the median over the repetitions, shown with
 * their range. The matrix (`./throughput.ts`)
 * runs each path as a cell of its own, seconds to minutes from the cell it is compared with;
 * its ratios are printed too.
 *
 * `bun bench/paired.ts [--sessions=1,8] [--cycles=N] [--window=CALLS] [--gateway=binary|source]`
 * runs this part alone (its own servers, pinned as the bench pins them) and prints each cell.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import type { PairedResult, PairedSpec } from "./paired-client.ts";
import { choosePinning, onCpu } from "./pinning.ts";
import { BUN, type GatewayMode, killAll, ROOT, stopChild, track } from "./procs.ts";
import { median } from "./stats.ts";
import {
  type Servers,
  specOf,
  startServers,
  stopServers,
  type Target,
  watchedPid,
} from "./targets.ts";

/** The arms of every cycle: each of the three servers in each era. */
export const PAIRED_TARGETS: readonly Target[] = [
  "floor 2025-11-25",
  "core 2025-11-25",
  "gateway 2025-11-25",
  "floor 2026-07-28",
  "core 2026-07-28",
  "gateway 2026-07-28",
];

/** How the paired part runs. */
export interface PairedOptions {
  sessions: readonly number[];
  payloadBytes: number;
  /** Calls per arm before the first cycle. */
  warmupCalls: number;
  windowCalls: number;
  cycles: number;
  /** Repetitions the cycles are grouped into (consecutive cycles, as even as they divide). */
  reps: number;
  /** A bound on each session count's cycles. */
  maxMs: number;
}

/** One arm's windows at one session count, as repetitions (a cycle is one). */
export interface PairedCell {
  target: Target;
  sessions: number;
  payloadBytes: number;
  runs: { rep: number; gatewayCpuPerCall: number; callsPerSec: number }[];
  /** Medians over the windows. */
  gatewayCpuPerCall: number;
  callsPerSec: number;
}

/** What the paired part measured. */
export interface PairedReport {
  windowCalls: number;
  /** Cycles run at each session count (fewer than asked if the time bound came first). */
  cycles: number[];
  cells: PairedCell[];
  /** The 1-minute load average before and after. */
  loads: [number, number];
}

/** Runs the paired windows against running servers (see `./targets.ts`). */
export async function benchPaired(s: Servers, opts: PairedOptions): Promise<PairedReport> {
  const loads: [number, number] = [loadavg()[0]!, 0];
  const cells: PairedCell[] = [];
  const cycles: number[] = [];
  for (const sessions of opts.sessions) {
    const base = {
      sessions,
      payloadBytes: opts.payloadBytes,
      verify: false,
      warmupCalls: 0,
      warmupMs: 0,
      maxCalls: 0,
      maxMs: 0,
    };
    const spec: PairedSpec = {
      arms: PAIRED_TARGETS.map((target) => {
        const { target: to, tool, argName } = specOf(target, base, s);
        return { label: target, pid: watchedPid(target, s)!, target: to, tool, argName };
      }),
      sessions,
      payloadBytes: opts.payloadBytes,
      warmupCalls: opts.warmupCalls,
      windowCalls: opts.windowCalls,
      cycles: opts.cycles,
      maxMs: opts.maxMs,
    };
    const result = await runClient(spec, s.pinning.client, opts.maxMs + 120_000);
    const failed = result.windows.filter((w) => w.errors > 0).length;
    if (failed > 0) throw new Error(`paired windows failed calls: ${result.firstError}`);
    const ran = new Set(result.windows.map((w) => w.cycle)).size;
    cycles.push(ran);
    const repOf = (cycle: number) => Math.floor((cycle * Math.min(opts.reps, ran)) / ran);
    for (const target of PAIRED_TARGETS) {
      const own = result.windows.filter((w) => w.label === target);
      const runs = [...new Set(own.map((w) => repOf(w.cycle)))].map((rep) => {
        const mine = own.filter((w) => repOf(w.cycle) === rep);
        const sum = (f: (w: typeof mine[number]) => number) => mine.reduce((a, w) => a + f(w), 0);
        return {
          rep,
          gatewayCpuPerCall: sum((w) => w.cpuMs) / sum((w) => w.calls),
          callsPerSec: sum((w) => w.calls) / (sum((w) => w.elapsedMs) / 1000),
        };
      });
      cells.push({
        target,
        sessions,
        payloadBytes: opts.payloadBytes,
        runs,
        gatewayCpuPerCall: median(runs.map((r) => r.gatewayCpuPerCall)),
        callsPerSec: median(runs.map((r) => r.callsPerSec)),
      });
    }
  }
  loads[1] = loadavg()[0]!;
  return { windowCalls: opts.windowCalls, cycles, cells, loads };
}

/** Runs the paired client on `cpu` and reads its one result line, killing it after `limitMs`. */
async function runClient(spec: PairedSpec, cpu: string | null, limitMs: number) {
  const argv = onCpu(cpu, [BUN, join(ROOT, "bench/paired-client.ts"), JSON.stringify(spec)]);
  const child = track(argv[0]!, argv.slice(1), { stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (chunk) => (stdout += String(chunk)));
  child.stderr!.on("data", (chunk) => (stderr = (stderr + String(chunk)).slice(-2000)));
  const limit = setTimeout(() => child.kill("SIGKILL"), limitMs);
  try {
    await new Promise((resolve) => child.once("exit", resolve));
  } finally {
    clearTimeout(limit);
    await stopChild(child, 1000);
  }
  const line = stdout.split("\n").find((l) => l.startsWith('{"type":"result"'));
  if (!line) throw new Error(`paired client ended without a result: ${stderr.trim()}`);
  return JSON.parse(line) as PairedResult;
}

if ((import.meta as ImportMeta & { main?: boolean }).main) {
  const arg = (name: string, fallback: string) =>
    process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback;
  const workDir = mkdtempSync(join(tmpdir(), "mcpgw-paired-"));
  const servers = await startServers({
    pinning: choosePinning(),
    gatewayMode: arg("gateway", "binary") as GatewayMode,
    workDir,
    peers: false,
  });
  try {
    const report = await benchPaired(servers, {
      sessions: arg("sessions", "1,8").split(",").map(Number),
      payloadBytes: 100,
      warmupCalls: Number(arg("warmup", "20000")),
      windowCalls: Number(arg("window", "500")),
      cycles: Number(arg("cycles", "40")),
      reps: Number(arg("reps", "8")),
      maxMs: 120_000,
    });
    console.log(
      `${servers.pinning.note}; load ${report.loads.map((l) => l.toFixed(2)).join(" → ")}`,
    );
    for (const sessions of new Set(report.cells.map((c) => c.sessions))) {
      const at = (t: Target) =>
        report.cells.find((c) => c.target === t && c.sessions === sessions)!;
      for (const era of ["2025-11-25", "2026-07-28"]) {
        const [floor, core, gw] = (["floor", "core", "gateway"] as const).map((k) =>
          at(`${k} ${era}` as Target)
        );
        const ratios = gw!.runs.flatMap((g) => {
          const f = floor!.runs.find((r) => r.rep === g.rep);
          return f ? [g.gatewayCpuPerCall / f.gatewayCpuPerCall] : [];
        });
        const doors = gw!.runs.flatMap((g) => {
          const f = floor!.runs.find((r) => r.rep === g.rep);
          const c = core!.runs.find((r) => r.rep === g.rep);
          return f && c ? [(g.gatewayCpuPerCall - c.gatewayCpuPerCall) / f.gatewayCpuPerCall] : [];
        });
        const range = (v: number[]) =>
          `${median(v).toFixed(2)} (${Math.min(...v).toFixed(2)}–${Math.max(...v).toFixed(2)})`;
        console.log(
          `${sessions} session(s) ${era}: floor ${floor!.gatewayCpuPerCall.toFixed(3)} ms, core ${
            core!.gatewayCpuPerCall.toFixed(3)
          }, gateway ${gw!.gatewayCpuPerCall.toFixed(3)}; gateway ÷ floor ${range(ratios)}; door ${
            range(doors)
          }`,
        );
      }
    }
  } finally {
    await stopServers(servers);
    rmSync(workDir, { recursive: true, force: true });
    killAll();
  }
}
