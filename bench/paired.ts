/**
 * The paired windows that decide the small-call CPU goals and the large results' goals: the
 * servers under comparison (for small calls the floor, the core and the gateway; for 1 MiB the
 * floor, the gateway and its `/sse` transport), each in both eras, are served by one load client
 * (`./paired-client.ts`) in turn — a window of a few calls each, in a rotating order, cycle after
 * cycle — and each window's CPU read from its own server process. Consecutive cycles make a
 * repetition: an arm's CPU per call in a repetition is all its windows' CPU over all their calls
 * (so a collection that lands in one window is paid for, not left out as a median over windows
 * would), its calls per second all their calls over all their time, and a goal's ratio is taken
 * within each repetition — the gateway's windows against the floor's of the same era, a tenth of
 * a second to a second apart. The verdict is the median over the repetitions, shown with their
 * range. The matrix (`./throughput.ts`) runs each path as a cell of its own, seconds to minutes
 * from the cell it is compared with; its ratios are printed beside.
 *
 * `bun bench/paired.ts [--payload=BYTES] [--sessions=1,8] [--cycles=N] [--reps=N] [--window=CALLS]
 * [--warmup=CALLS] [--gateway=binary|source]` runs one plan alone (its own servers, pinned as the
 * bench pins them; the small-call arms below 64 KiB, the large ones from there) and prints each
 * arm's CPU per call and calls per second, and both over the floor of its era.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import type { PairedResult, PairedSpec, PairedWindow } from "./paired-client.ts";
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

/**
 * The arms of a large-payload cycle: the floor and the gateway in each era, and the gateway's
 * 2025 SSE transport (set against the 2025-11-25 floor).
 */
export const PAIRED_LARGE_TARGETS: readonly Target[] = [
  "floor 2025-11-25",
  "gateway 2025-11-25",
  "gateway /sse 2025-11-25",
  "floor 2026-07-28",
  "gateway 2026-07-28",
];

/** One part of the paired windows: its payload, its arms and how long it runs. */
export interface PairedPlan {
  sessions: readonly number[];
  payloadBytes: number;
  arms: readonly Target[];
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

/** What the paired windows measured. */
export interface PairedReport {
  /** Each part's payload and window, and the cycles it ran at each session count (fewer than
   * asked if the time bound came first). */
  parts: { payloadBytes: number; windowCalls: number; sessions: number[]; cycles: number[] }[];
  cells: PairedCell[];
  /** The 1-minute load average before and after. */
  loads: [number, number];
}

/** Runs each plan's windows against running servers (see `./targets.ts`), one after the other. */
export async function benchPaired(
  s: Servers,
  plans: readonly PairedPlan[],
): Promise<PairedReport> {
  const loads: [number, number] = [loadavg()[0]!, 0];
  const cells: PairedCell[] = [];
  const parts: PairedReport["parts"] = [];
  for (const plan of plans) {
    const part = {
      payloadBytes: plan.payloadBytes,
      windowCalls: plan.windowCalls,
      sessions: [...plan.sessions],
      cycles: [] as number[],
    };
    parts.push(part);
    for (const sessions of plan.sessions) {
      const windows = await runPlan(s, plan, sessions);
      part.cycles.push(new Set(windows.map((w) => w.cycle)).size);
      cells.push(...cellsOf(plan, sessions, windows));
    }
  }
  loads[1] = loadavg()[0]!;
  return { parts, cells, loads };
}

/** One plan's windows at one session count. */
async function runPlan(s: Servers, plan: PairedPlan, sessions: number): Promise<PairedWindow[]> {
  const base = {
    sessions,
    payloadBytes: plan.payloadBytes,
    verify: true,
    warmupCalls: 0,
    warmupMs: 0,
    maxCalls: 0,
    maxMs: 0,
  };
  const spec: PairedSpec = {
    arms: plan.arms.map((target) => {
      const { target: to, tool, argName } = specOf(target, base, s);
      return { label: target, pid: watchedPid(target, s)!, target: to, tool, argName };
    }),
    sessions,
    payloadBytes: plan.payloadBytes,
    verify: true,
    warmupCalls: plan.warmupCalls,
    windowCalls: plan.windowCalls,
    cycles: plan.cycles,
    maxMs: plan.maxMs,
  };
  const result = await runClient(spec, s.pinning.client, plan.maxMs + 120_000);
  const failed = result.windows.filter((w) => w.errors > 0).length;
  if (failed > 0) throw new Error(`paired windows failed calls: ${result.firstError}`);
  return result.windows;
}

/**
 * Each arm's windows as repetitions of consecutive cycles: the CPU of all its windows over all
 * their calls, and their calls over their time.
 */
function cellsOf(plan: PairedPlan, sessions: number, windows: PairedWindow[]): PairedCell[] {
  const ran = new Set(windows.map((w) => w.cycle)).size;
  const repOf = (cycle: number) => Math.floor((cycle * Math.min(plan.reps, ran)) / ran);
  return plan.arms.map((target) => {
    const own = windows.filter((w) => w.label === target);
    const runs = [...new Set(own.map((w) => repOf(w.cycle)))].map((rep) => {
      const mine = own.filter((w) => repOf(w.cycle) === rep);
      const sum = (f: (w: PairedWindow) => number) => mine.reduce((a, w) => a + f(w), 0);
      return {
        rep,
        gatewayCpuPerCall: sum((w) => w.cpuMs) / sum((w) => w.calls),
        callsPerSec: sum((w) => w.calls) / (sum((w) => w.elapsedMs) / 1000),
      };
    });
    return {
      target,
      sessions,
      payloadBytes: plan.payloadBytes,
      runs,
      gatewayCpuPerCall: median(runs.map((r) => r.gatewayCpuPerCall)),
      callsPerSec: median(runs.map((r) => r.callsPerSec)),
    };
  });
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
  const payloadBytes = Number(arg("payload", "100"));
  const large = payloadBytes >= 65536;
  const workDir = mkdtempSync(join(tmpdir(), "mcpgw-paired-"));
  const servers = await startServers({
    pinning: choosePinning(),
    gatewayMode: arg("gateway", "binary") as GatewayMode,
    workDir,
    peers: false,
  });
  try {
    const report = await benchPaired(servers, [{
      sessions: arg("sessions", "1,8").split(",").map(Number),
      payloadBytes,
      arms: large ? PAIRED_LARGE_TARGETS : PAIRED_TARGETS,
      warmupCalls: Number(arg("warmup", large ? "4" : "20000")),
      windowCalls: Number(arg("window", large ? "16" : "500")),
      cycles: Number(arg("cycles", large ? "20" : "40")),
      reps: Number(arg("reps", large ? "5" : "8")),
      maxMs: 180_000,
    }]);
    console.log(
      `${servers.pinning.note}; ${payloadBytes} B; load ${
        report.loads.map((l) => l.toFixed(2)).join(" → ")
      }`,
    );
    const range = (v: number[]) =>
      `${median(v).toFixed(2)} (${Math.min(...v).toFixed(2)}–${Math.max(...v).toFixed(2)})`;
    for (const cell of report.cells) {
      const era = cell.target.slice(cell.target.lastIndexOf(" ") + 1);
      const floor = report.cells.find((c) =>
        c.target === `floor ${era}` && c.sessions === cell.sessions
      )!;
      const per = (f: (r: PairedCell["runs"][number]) => number) =>
        cell.runs.flatMap((r) => {
          const b = floor.runs.find((x) => x.rep === r.rep);
          return b ? [f(r) / f(b)] : [];
        });
      console.log(
        `${cell.sessions} × ${cell.target}: ${cell.gatewayCpuPerCall.toFixed(3)} ms CPU, ${
          cell.callsPerSec.toFixed(0)
        } calls/s; ÷ floor: CPU ${range(per((r) => r.gatewayCpuPerCall))}, calls/s ${
          range(per((r) => r.callsPerSec))
        }`,
      );
    }
  } finally {
    await stopServers(servers);
    rmSync(workDir, { recursive: true, force: true });
    killAll();
  }
}
