/**
 * Throughput and latency of one upstream (the bench-echo fixture) reached eight ways — directly
 * over its own streamable HTTP server, directly over stdio, through the floor (`./floor.ts`, a
 * minimal Bun forwarder: what any gateway on this runtime must at least spend), through the
 * floor's HTTP in front of the gateway's core (`./floor-core.ts`: the "core" rows, which split
 * the gateway's cost over the floor into the core's and the door's) and through the gateway
 * (HTTP `/mcp` downstream, stdio upstream), these three in each protocol era: 2025-11-25
 * sessions and stateless 2026-07-28 requests — at each session count and payload size,
 * repeated. The targets of a cell run back to back and rotate order each repetition, so
 * background load on a shared machine hits them alike; ratios are the median of per-repetition
 * ratios.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { type CellRun, type Era, type LoadSpec, runCell } from "./load.ts";
import {
  BENCH_ECHO,
  type GatewayMode,
  memBytes,
  startFloor,
  startFloorCore,
  startGatewayProcess,
  startHttpUpstream,
} from "./procs.ts";
import { median, sleep } from "./stats.ts";

/** The ways to reach the upstream. */
export const TARGETS = [
  "direct HTTP",
  "direct stdio",
  "floor 2025-11-25",
  "floor 2026-07-28",
  "core 2025-11-25",
  "core 2026-07-28",
  "gateway 2025-11-25",
  "gateway 2026-07-28",
] as const;
/** One of {@link TARGETS}. */
export type Target = typeof TARGETS[number];

/** Per-cell bounds: whichever of count or time comes first ends a phase. */
export interface CellLimits {
  warmupCalls: number;
  warmupMs: number;
  maxCalls: number;
  maxMs: number;
}

/** Options for {@link benchThroughput}. */
export interface ThroughputOptions {
  reps: number;
  sessions: readonly number[];
  payloads: readonly number[];
  limits: (payloadBytes: number) => CellLimits;
  gatewayMode: GatewayMode;
  workDir: string;
  /** Only these paths (all of {@link TARGETS} by default; direct HTTP and the floor always are). */
  targets?: readonly Target[];
  /** Called before each cell, for progress output. */
  onCell?: (label: string) => void;
}

/** Medians over the repetitions of one target in one cell. */
export interface CellSummary {
  target: Target;
  sessions: number;
  payloadBytes: number;
  runs: CellRun[];
  callsPerSec: number;
  p50Ms: number;
  p99Ms: number;
  gatewayCpuPerCall: number;
  clientCpuPerCall: number;
  upstreamCpuPerCall: number;
  errors: number;
  firstError: string | null;
  /** Median over repetitions of (this ÷ direct HTTP) calls/s. */
  vsHttp: number;
  /** Median over repetitions of (this − direct HTTP) p50 latency, in ms. */
  addedP50Ms: number;
  /**
   * Gateway and core rows: median over repetitions of (this ÷ the same era's floor) calls/s;
   * else NaN.
   */
  vsFloor: number;
  /** Gateway and core rows: median over repetitions of (this ÷ the same era's floor) CPU per call. */
  cpuVsFloor: number;
  /**
   * Gateway and core rows: the lowest and highest per-repetition ratios behind {@link vsFloor} and
   * {@link cpuVsFloor} (empty elsewhere) — how far one repetition moves on this machine.
   */
  floorSpread: { calls: number[]; cpu: number[] };
}

/** Everything the throughput part measured. */
export interface ThroughputReport {
  cells: CellSummary[];
  /** Highest gateway RSS sampled during the 8-session, smallest-payload cells. */
  loadedRssBytes: number;
  /** Gateway peak RSS (VmHWM) over the whole run, large payloads included. */
  peakRssBytes: number;
  /** Gateway RSS after start, before any load. */
  idleRssBytes: number;
  /** The floor's RSS after start, before any load. */
  floorIdleRssBytes: number;
}

/** Runs the matrix; starts and stops its own HTTP upstream and gateway process. */
export async function benchThroughput(opts: ThroughputOptions): Promise<ThroughputReport> {
  const configFile = join(opts.workDir, "throughput.yaml");
  writeFileSync(
    configFile,
    `servers:\n  bench: { command: node, args: [${JSON.stringify(BENCH_ECHO)}] }\n`,
  );
  const http = await startHttpUpstream();
  const floor = await startFloor().catch(async (err) => {
    await http.stop();
    throw err;
  });
  const core = await startFloorCore().catch(async (err) => {
    await floor.stop();
    await http.stop();
    throw err;
  });
  const gateway = await startGatewayProcess({
    mode: opts.gatewayMode,
    configFile,
    expect: ["bench__"],
    logFile: join(opts.workDir, "throughput-gateway.log"),
  }).catch(async (err) => {
    await core.stop();
    await floor.stop();
    await http.stop();
    throw err;
  });
  // Idle means idle: read after a second without requests, as the footprint part does, not in
  // the start-up transient the moment the first tools/list is answered.
  await sleep(1000);
  const idleRssBytes = memBytes(gateway.pid, "VmRSS");
  const floorIdleRssBytes = memBytes(floor.pid, "VmRSS");
  let loadedRssBytes = 0;
  const runs = new Map<string, CellRun[]>();
  try {
    for (let rep = 0; rep < opts.reps; rep++) {
      for (const sessions of opts.sessions) {
        for (const payloadBytes of opts.payloads) {
          const chosen = TARGETS.filter((t) =>
            !opts.targets || t === "direct HTTP" || t.startsWith("floor") ||
            opts.targets.includes(t)
          );
          const order = chosen.map((_, i) => chosen[(i + rep) % chosen.length]!);
          for (const target of order) {
            opts.onCell?.(`rep ${rep + 1}/${opts.reps} ${target} ${sessions}×${payloadBytes} B`);
            const base = { sessions, payloadBytes, verify: true, ...opts.limits(payloadBytes) };
            const era = eraOf(target);
            const spec: LoadSpec = era && target.startsWith("floor")
              ? {
                ...base,
                target: { kind: "http", url: floor.url, era },
                tool: "echo",
                argName: "text",
                pidTool: "pid",
              }
              : era
              ? {
                ...base,
                target: {
                  kind: "http",
                  url: target.startsWith("core") ? core.url : `${gateway.url}/mcp`,
                  era,
                },
                tool: "bench__echo",
                argName: "text",
                pidTool: "bench__pid",
              }
              : {
                ...base,
                target: target === "direct HTTP"
                  ? { kind: "http", url: http.url }
                  : { kind: "stdio", command: "node", args: [BENCH_ECHO] },
                tool: "echo",
                argName: "text",
                pidTool: "pid",
              };
            const sample = era && target.startsWith("gateway") && sessions > 1 &&
                payloadBytes === Math.min(...opts.payloads)
              ? () => (loadedRssBytes = Math.max(loadedRssBytes, memBytes(gateway.pid, "VmRSS")))
              : undefined;
            const watched = !era
              ? null
              : target.startsWith("floor")
              ? floor.pid
              : target.startsWith("core")
              ? core.pid
              : gateway.pid;
            const run = await runCell(spec, watched, sample);
            const key = `${target}|${sessions}|${payloadBytes}`;
            runs.set(key, [...(runs.get(key) ?? []), run]);
          }
        }
      }
    }
    const peakRssBytes = memBytes(gateway.pid, "VmHWM");
    return {
      cells: summarise(runs, opts),
      loadedRssBytes,
      peakRssBytes,
      idleRssBytes,
      floorIdleRssBytes,
    };
  } finally {
    await gateway.stop();
    await core.stop();
    await floor.stop();
    await http.stop();
  }
}

/** The protocol era a gateway or floor target speaks; undefined for the direct paths. */
export function eraOf(target: Target): Era | undefined {
  if (target.endsWith(" 2025-11-25")) return "2025-11-25";
  if (target.endsWith(" 2026-07-28")) return "2026-07-28";
  return undefined;
}

function summarise(runs: Map<string, CellRun[]>, opts: ThroughputOptions): CellSummary[] {
  const out: CellSummary[] = [];
  for (const sessions of opts.sessions) {
    for (const payloadBytes of opts.payloads) {
      const direct = runs.get(`direct HTTP|${sessions}|${payloadBytes}`) ?? [];
      for (const target of TARGETS) {
        if (!runs.has(`${target}|${sessions}|${payloadBytes}`)) continue;
        const own = runs.get(`${target}|${sessions}|${payloadBytes}`) ?? [];
        const pick = (f: (r: CellRun) => number) => median(own.map(f));
        const pairs = (f: (mine: CellRun, theirs: CellRun) => number, other = direct) =>
          own.flatMap((r, i) => other[i] ? [f(r, other[i])] : []);
        const paired = (f: (mine: CellRun, theirs: CellRun) => number, other = direct) =>
          median(pairs(f, other));
        const era = eraOf(target);
        const floor = (target.startsWith("gateway") || target.startsWith("core")) && era
          ? runs.get(`floor ${era}|${sessions}|${payloadBytes}`) ?? []
          : [];
        const callsVsFloor = pairs((a, b) => a.callsPerSec / b.callsPerSec, floor);
        const cpuVsFloor = pairs((a, b) => a.gatewayCpuPerCall / b.gatewayCpuPerCall, floor);
        out.push({
          target,
          sessions,
          payloadBytes,
          runs: own,
          callsPerSec: pick((r) => r.callsPerSec),
          p50Ms: pick((r) => r.p50Ms),
          p99Ms: pick((r) => r.p99Ms),
          gatewayCpuPerCall: pick((r) => r.gatewayCpuPerCall),
          clientCpuPerCall: pick((r) => r.clientCpuPerCall),
          upstreamCpuPerCall: pick((r) => r.upstreamCpuPerCall),
          errors: own.reduce((n, r) => n + r.errors, 0),
          firstError: own.find((r) => r.firstError)?.firstError ?? null,
          vsHttp: paired((a, b) => a.callsPerSec / b.callsPerSec),
          addedP50Ms: paired((a, b) => a.p50Ms - b.p50Ms),
          vsFloor: median(callsVsFloor),
          cpuVsFloor: median(cpuVsFloor),
          floorSpread: { calls: spread(callsVsFloor), cpu: spread(cpuVsFloor) },
        });
      }
    }
  }
  return out;
}

/** `[lowest, highest]` of `values`, or `[]` when there are none. */
function spread(values: readonly number[]): number[] {
  return values.length === 0 ? [] : [Math.min(...values), Math.max(...values)];
}
