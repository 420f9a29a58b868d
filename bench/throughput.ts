/**
 * Throughput and latency of one upstream (the bench-echo fixture) reached eight ways — directly
 * over its own streamable HTTP server, directly over stdio, through the floor (`./floor.ts`, a
 * minimal Bun forwarder: what any gateway on this runtime must at least spend), through the
 * floor's HTTP in front of the gateway's core (`./floor-core.ts`: the "core" rows, which split
 * the gateway's cost over the floor into the core's and the door's) and through the gateway
 * (HTTP `/mcp` downstream, stdio upstream), these three in each protocol era: 2025-11-25
 * sessions and stateless 2026-07-28 requests — at each session count and payload size,
 * repeated. Two more kinds of cell join the matrix when asked: many concurrent clients on the
 * floor and the gateway (smallest payload), and the peers (`./peers.ts`) beside the gateway at
 * chosen session counts. The targets of a cell run back to back and rotate order each
 * repetition, so background load on a shared machine hits them alike; ratios are the median of
 * per-repetition ratios. Servers run pinned to one CPU and the load client to another
 * (`./pinning.ts`) when the machine allows.
 */
import { loadavg } from "node:os";
import { type CellRun, runCell } from "./load.ts";
import { type GatewayMode, memBytes } from "./procs.ts";
import type { Pinning } from "./pinning.ts";
import { median, perRep, sleep, spread } from "./stats.ts";
import { benchPaired, type PairedPlan, type PairedReport } from "./paired.ts";
import {
  CROWD_TARGETS,
  eraOf,
  MATRIX_TARGETS,
  PEER_TARGETS,
  peerOf,
  type Servers,
  specOf,
  SSE_TARGET,
  startServers,
  stopServers,
  type Target,
  TARGETS,
  watchedPid,
} from "./targets.ts";

export { eraOf, type Target, TARGETS };

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
  /** Where the servers and the load client run. */
  pinning: Pinning;
  /** Only these matrix paths (all by default; direct HTTP and the floor always are). */
  targets?: readonly Target[];
  /** Concurrent clients of the crowd cell (floor and gateway, smallest payload); none if absent. */
  crowd?: number;
  /** Session counts (of {@link sessions}) at which the peers run beside the gateway, smallest payload. */
  peerSessions?: readonly number[];
  /**
   * Before the first repetition, every path is served this many calls (or for this long,
   * whichever ends first) at the smallest payload, unmeasured: see {@link settle}. None if absent.
   */
  settle?: { calls: number; ms: number };
  /**
   * The paired windows (`./paired.ts`) of the small-call CPU goals and the large results' goals,
   * run once after settling and before the first repetition. None if absent.
   */
  paired?: readonly PairedPlan[];
  /** Called before each cell, for progress output. */
  onCell?: (label: string) => void;
}

/** One repetition's measurement of one target in one cell. */
export type RepRun = CellRun & { rep: number };

/** Medians over the repetitions of one target in one cell. */
export interface CellSummary {
  target: Target;
  sessions: number;
  payloadBytes: number;
  runs: RepRun[];
  callsPerSec: number;
  p50Ms: number;
  p99Ms: number;
  gatewayCpuPerCall: number;
  clientCpuPerCall: number;
  upstreamCpuPerCall: number;
  errors: number;
  firstError: string | null;
  /** Median over repetitions of (this ÷ direct HTTP) calls/s; NaN where direct HTTP did not run. */
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

/** A peer of the run: its version, and why it has no rows when it has none. */
export interface PeerNote {
  name: string;
  version: string;
  reason: string | null;
}

/** Everything the throughput part measured. */
export interface ThroughputReport {
  cells: CellSummary[];
  /** How the processes were placed on CPUs (or why they were not). */
  pinning: string;
  /** Concurrent clients of the crowd cells, or null when there were none. */
  crowd: number | null;
  /** The 1-minute load average as each repetition began. */
  repLoads: number[];
  /** The small-call CPU goals' paired windows (`./paired.ts`), when the plan has them. */
  paired: PairedReport | null;
  /** The unmeasured calls each path was served before the first repetition, if any. */
  settle: { calls: number; ms: number } | null;
  peers: PeerNote[];
  /** Highest gateway RSS sampled during the 8-session, smallest-payload cells. */
  loadedRssBytes: number;
  /** Gateway peak RSS (VmHWM) over the whole run, large payloads included. */
  peakRssBytes: number;
  /** Gateway RSS after start, before any load. */
  idleRssBytes: number;
  /** The floor's RSS after start, before any load. */
  floorIdleRssBytes: number;
}

/** One cell of a repetition: its size and the paths that run it, back to back. */
interface Cell {
  sessions: number;
  payloadBytes: number;
  targets: Target[];
}

/** Runs the cells; starts and stops its own servers (upstream, floor, core, gateway, peers). */
export async function benchThroughput(opts: ThroughputOptions): Promise<ThroughputReport> {
  const peerSessions = opts.peerSessions ?? [];
  const servers = await startServers({
    pinning: opts.pinning,
    gatewayMode: opts.gatewayMode,
    workDir: opts.workDir,
    peers: peerSessions.length > 0,
  });
  // Idle means idle: read after a second without requests, as the footprint part does, not in
  // the start-up transient the moment the first tools/list is answered.
  await sleep(1000);
  const idleRssBytes = memBytes(servers.gateway.pid, "VmRSS");
  const floorIdleRssBytes = memBytes(servers.floor.pid, "VmRSS");
  const sampler = { loadedRssBytes: 0 };
  const runs = new Map<string, RepRun[]>();
  const repLoads: number[] = [];
  try {
    const cells = plan(opts);
    if (opts.settle) await settle(cells, servers, opts, opts.settle);
    // Small calls first, on settled servers, before any large payload.
    if (opts.paired) opts.onCell?.("paired windows");
    const paired = opts.paired ? await benchPaired(servers, opts.paired) : null;
    for (let rep = 0; rep < opts.reps; rep++) {
      repLoads.push(loadavg()[0]!);
      for (const cell of cells) {
        const chosen = cell.targets.filter((t) => runnable(t, servers));
        const order = chosen.map((_, i) => chosen[(i + rep) % chosen.length]!);
        for (const target of order) {
          opts.onCell?.(
            `rep ${rep + 1}/${opts.reps} ${target} ${cell.sessions}×${cell.payloadBytes} B`,
          );
          const run = await measure(target, cell, servers, opts, sampler);
          if (!run) continue;
          const key = `${target}|${cell.sessions}|${cell.payloadBytes}`;
          runs.set(key, [...(runs.get(key) ?? []), { ...run, rep }]);
        }
      }
    }
    return {
      cells: summarise(runs),
      pinning: opts.pinning.note,
      crowd: opts.crowd ?? null,
      repLoads,
      paired,
      settle: opts.settle ?? null,
      peers: servers.peers.map((p) => ({ name: p.name, version: p.version, reason: p.reason })),
      loadedRssBytes: sampler.loadedRssBytes,
      peakRssBytes: memBytes(servers.gateway.pid, "VmHWM"),
      idleRssBytes,
      floorIdleRssBytes,
    };
  } finally {
    await stopServers(servers);
  }
}

/** The cells of one repetition, in order: the matrix (peers beside it), then the crowd. */
function plan(opts: ThroughputOptions): Cell[] {
  const smallest = Math.min(...opts.payloads);
  const cells: Cell[] = [];
  for (const sessions of opts.sessions) {
    for (const payloadBytes of opts.payloads) {
      const targets = MATRIX_TARGETS.filter((t) =>
        (!opts.targets || t === "direct HTTP" || t.startsWith("floor") ||
          opts.targets.includes(t)) && (t !== SSE_TARGET || payloadBytes !== smallest)
      );
      const peers = payloadBytes === smallest && opts.peerSessions?.includes(sessions);
      cells.push({ sessions, payloadBytes, targets: [...targets, ...(peers ? PEER_TARGETS : [])] });
    }
  }
  // A crowd the size of a matrix cell would only repeat it (and share its key).
  if (opts.crowd && !opts.sessions.includes(opts.crowd)) {
    cells.push({ sessions: opts.crowd, payloadBytes: smallest, targets: [...CROWD_TARGETS] });
  }
  return cells;
}

/**
 * Serves every path of the run `limit.calls` calls (or for `limit.ms`) at the smallest payload
 * and the most sessions of a matrix cell, measuring nothing. The runtime compiles a function to
 * its optimising tiers only after it has run many times, on a thread of its own whose CPU counts
 * as the process's: a path whose code is large goes on compiling for thousands of calls, so
 * without this the first repetitions of a small-payload cell read its start-up, not what a call
 * costs a server that has been up for a while. Settled once here, not per cell: each cell keeps
 * its own short warm-up.
 */
async function settle(
  cells: readonly Cell[],
  s: Servers,
  opts: ThroughputOptions,
  limit: { calls: number; ms: number },
): Promise<void> {
  const smallest = Math.min(...opts.payloads);
  const matrix = cells.filter((c) => c.payloadBytes === smallest && c.sessions !== opts.crowd);
  const sessions = Math.max(...matrix.map((c) => c.sessions));
  const targets = [...new Set(cells.flatMap((c) => c.targets))];
  for (const target of targets.filter((t) => runnable(t, s))) {
    opts.onCell?.(`settle ${target} ${sessions}×${smallest} B`);
    const cell = { sessions, payloadBytes: smallest, targets: [target] };
    await measure(target, cell, s, {
      ...opts,
      limits: () => ({ warmupCalls: limit.calls, warmupMs: limit.ms, maxCalls: 1, maxMs: 1 }),
    }, { loadedRssBytes: 0 });
  }
}

/** A peer's path runs only while the peer is up and has not failed a cell. */
function runnable(target: Target, s: Servers): boolean {
  const peer = peerOf(target);
  if (!peer) return true;
  const p = s.peers.find((x) => x.name === peer);
  return Boolean(p?.server && p.reason === null);
}

/** Runs one target's cell; a peer's failure becomes its reason (and no run), others throw. */
async function measure(
  target: Target,
  cell: Cell,
  s: Servers,
  opts: ThroughputOptions,
  sampler: { loadedRssBytes: number },
): Promise<CellRun | null> {
  const base = {
    sessions: cell.sessions,
    payloadBytes: cell.payloadBytes,
    verify: true,
    ...opts.limits(cell.payloadBytes),
  };
  const gw = s.gateway.pid;
  const sample = target.startsWith("gateway") && cell.sessions > 1 &&
      cell.payloadBytes === Math.min(...opts.payloads)
    ? () => (sampler.loadedRssBytes = Math.max(sampler.loadedRssBytes, memBytes(gw, "VmRSS")))
    : undefined;
  const spec = specOf(target, base, s);
  const peer = s.peers.find((p) => p.name === peerOf(target));
  try {
    const run = await runCell(spec, watchedPid(target, s), sample, s.pinning.client);
    if (peer && run.errors > 0) peer.reason = `failed calls: ${run.firstError?.slice(0, 160)}`;
    return run;
  } catch (err) {
    if (!peer) throw err;
    peer.reason = `a cell failed: ${
      String(err instanceof Error ? err.message : err).slice(0, 160)
    }`;
    return null;
  }
}

function summarise(runs: Map<string, RepRun[]>): CellSummary[] {
  const out: CellSummary[] = [];
  const sizes = [...new Set([...runs.keys()].map((k) => k.slice(k.indexOf("|") + 1)))];
  for (const size of sizes) {
    const [sessions, payloadBytes] = size.split("|").map(Number) as [number, number];
    const direct = runs.get(`direct HTTP|${size}`) ?? [];
    for (const target of TARGETS) {
      const own = runs.get(`${target}|${size}`);
      if (!own) continue;
      const pick = (f: (r: CellRun) => number) => median(own.map(f));
      const era = eraOf(target);
      const floor = (target.startsWith("gateway") || target.startsWith("core")) && era
        ? runs.get(`floor ${era}|${size}`) ?? []
        : [];
      const callsVsFloor = perRep(own, floor, (a, b) => a.callsPerSec / b.callsPerSec);
      const cpuVsFloor = perRep(own, floor, (a, b) => a.gatewayCpuPerCall / b.gatewayCpuPerCall);
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
        vsHttp: median(perRep(own, direct, (a, b) => a.callsPerSec / b.callsPerSec)),
        addedP50Ms: median(perRep(own, direct, (a, b) => a.p50Ms - b.p50Ms)),
        vsFloor: median(callsVsFloor),
        cpuVsFloor: median(cpuVsFloor),
        floorSpread: { calls: spread(callsVsFloor), cpu: spread(cpuVsFloor) },
      });
    }
  }
  return out;
}
