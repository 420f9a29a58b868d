/**
 * How the benchmark judges its throughput goals (`bench/throughput-goals.ts`), on a run made up
 * here so each verdict is known: medians of per-repetition ratios, paired by repetition, against
 * each target; the door's share as (gateway − core) ÷ floor; a goal over both eras met only when
 * both are; a peer that did not run judged n/a with its reason. The harness end to end is
 * `test/bench.test.ts`.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ratioFigure, throughputGoals } from "../bench/throughput-goals.ts";
import type { CellSummary, RepRun, Target, ThroughputReport } from "../bench/throughput.ts";
import { median } from "../bench/stats.ts";
import type { PairedCell } from "../bench/paired.ts";

/** A cell whose repetitions had these CPU-per-call and calls/s figures (reps 0, 1, … unless given). */
function cell(
  target: Target,
  sessions: number,
  cpu: number[],
  calls: number[] = cpu.map(() => 1000),
  reps: number[] = cpu.map((_, i) => i),
): CellSummary {
  const runs: RepRun[] = cpu.map((c, i) => ({
    type: "result",
    calls: 1000,
    errors: 0,
    firstError: null,
    elapsedMs: 1000,
    p50Ms: 1,
    p99Ms: 2,
    clientCpuMs: 100,
    callsPerSec: calls[i]!,
    gatewayCpuPerCall: c,
    upstreamCpuPerCall: 0.1,
    clientCpuPerCall: 0.1,
    rep: reps[i]!,
  }));
  return {
    target,
    sessions,
    payloadBytes: 100,
    runs,
    callsPerSec: median(calls),
    p50Ms: 1,
    p99Ms: 2,
    gatewayCpuPerCall: median(cpu),
    clientCpuPerCall: 0.1,
    upstreamCpuPerCall: 0.1,
    errors: 0,
    firstError: null,
    vsHttp: Number.NaN,
    addedP50Ms: Number.NaN,
    vsFloor: Number.NaN,
    cpuVsFloor: Number.NaN,
    floorSpread: { calls: [], cpu: [] },
  };
}

/** A paired cell at one session whose repetitions had these CPU-per-call and calls/s figures. */
function windows(
  target: Target,
  payloadBytes: number,
  cpu: number[],
  perSec: number[],
): PairedCell {
  return {
    target,
    sessions: 1,
    payloadBytes,
    runs: cpu.map((c, rep) => ({ rep, gatewayCpuPerCall: c, callsPerSec: perSec[rep]! })),
    gatewayCpuPerCall: median(cpu),
    callsPerSec: median(perSec),
  };
}

/**
 * One repetition's matrix cells at 1 MiB, one session: 40 calls/s on both floors, the 2025-11-25
 * gateway at `gateway2025`, the 2026-07-28 one at 40 and `/sse` at 36.
 */
function largeMatrix(gateway2025: number): CellSummary[] {
  const big = (c: CellSummary): CellSummary => ({ ...c, payloadBytes: 1024 * 1024 });
  return [
    big(cell("direct HTTP", 1, [0], [30])),
    big(cell("floor 2025-11-25", 1, [1], [40])),
    big(cell("floor 2026-07-28", 1, [1], [40])),
    big(cell("gateway 2025-11-25", 1, [1], [gateway2025])),
    big(cell("gateway 2026-07-28", 1, [1], [40])),
    big(cell("gateway /sse 2025-11-25", 1, [1], [36])),
  ];
}

const run: ThroughputReport = {
  cells: [
    cell("direct HTTP", 1, [0, 0], [500, 500]),
    cell("floor 2025-11-25", 1, [1, 1]),
    cell("floor 2026-07-28", 1, [1, 1]),
    cell("core 2025-11-25", 1, [1.2, 1.2]),
    cell("core 2026-07-28", 1, [1.25, 1.25]),
    cell("gateway 2025-11-25", 1, [1.3, 1.45]),
    cell("gateway 2026-07-28", 1, [1.35, 1.35]),
    // Ran in the second repetition only: paired with that repetition of the gateway.
    cell("mcp-proxy 2025-11-25", 1, [4.35], [400], [1]),
    cell("floor 2025-11-25", 64, [1, 1], [1000, 1000]),
    cell("floor 2026-07-28", 64, [1, 1], [1000, 1000]),
    cell("gateway 2025-11-25", 64, [1, 1], [900, 800]),
    cell("gateway 2026-07-28", 64, [1, 1], [800, 800]),
  ],
  pinning: "server and its upstream on CPU 0, load generator on CPU 1 (taskset)",
  crowd: 64,
  settle: null,
  repLoads: [0.5, 0.6],
  paired: null,
  peers: [
    { name: "mcp-proxy", version: "1.0.0", reason: null },
    { name: "supergateway", version: "2.0.0", reason: "did not start: no node" },
  ],
  loadedRssBytes: 0,
  peakRssBytes: 0,
  idleRssBytes: 0,
  floorIdleRssBytes: 0,
};

const judged = throughputGoals(run);
const goal = (start: string) => {
  const g = judged.find((j) => j.goal.startsWith(start));
  assert.ok(g, `no goal starting "${start}" in: ${judged.map((j) => j.goal).join("; ")}`);
  return g;
};

describe("the benchmark's throughput goals", () => {
  it("judges whole CPU per call on the median of per-repetition ratios to the floor, both eras", () => {
    const g = goal("whole gateway CPU per call ÷ the floor's, 1 session(s)");
    assert.equal(g.target, "≤ 1.40×");
    // 2025-11-25: 1.30 and 1.45 → 1.375; 2026-07-28: 1.35.
    assert.equal(g.met, true);
    assert.match(
      g.measured,
      /2025-11-25: 1\.375 vs 1\.000 ms, matrix cells 1\.38× \(2 reps: 1\.30–1\.45×\)/,
    );
    assert.match(
      g.measured,
      /2026-07-28: 1\.350 vs 1\.000 ms, matrix cells 1\.35× \(2 reps: 1\.35–1\.35×\)/,
    );
  });

  it("takes the door's share as (gateway − core) ÷ floor, and misses when one era misses", () => {
    const g = goal("the door's own CPU per call (gateway − core) ÷ the floor's, 1 session(s)");
    assert.equal(g.target, "≤ 0.15×");
    // 2025-11-25: 0.10 and 0.25 → 0.175 (missed); 2026-07-28: 0.10 (met).
    assert.equal(g.met, false);
    assert.match(g.measured, /2025-11-25: .*0\.18× \(2 reps: 0\.10–0\.25×\)/);
    assert.match(g.measured, /2026-07-28: .*0\.10×/);
  });

  it("reads the small-call CPU rows from the paired windows when the run has them", () => {
    const small = (target: Target, cpu: number[]) => windows(target, 100, cpu, cpu.map(() => 1000));
    const report: ThroughputReport = {
      ...run,
      paired: {
        parts: [{ payloadBytes: 100, windowCalls: 500, sessions: [1], cycles: [15] }],
        loads: [0.5, 0.7],
        cells: [
          small("floor 2025-11-25", [1, 1, 1]),
          small("core 2025-11-25", [1.1, 1.1, 1.1]),
          small("gateway 2025-11-25", [1.2, 1.25, 1.5]),
          small("floor 2026-07-28", [1, 2, 1]),
          small("core 2026-07-28", [1.1, 2.2, 1.1]),
          small("gateway 2026-07-28", [1.2, 2.4, 1.3]),
        ],
      },
    };
    const judge = (start: string) => throughputGoals(report).find((j) => j.goal.startsWith(start))!;
    const whole = judge("whole gateway CPU per call ÷ the floor's, 1 session(s)");
    // 2025-11-25: 1.20, 1.25, 1.50 → 1.25; 2026-07-28: 1.20, 1.20, 1.30 → 1.20. The matrix
    // cells alone (1.38× in 2025-11-25) are shown beside, not judged.
    assert.equal(whole.met, true);
    assert.match(
      whole.measured,
      /2025-11-25: 1\.250 vs 1\.000 ms, paired windows 1\.25× \(3 reps: 1\.20–1\.50×\); matrix cells 1\.38×/,
    );
    assert.match(whole.measured, /2026-07-28: .*paired windows 1\.20× \(3 reps: 1\.20–1\.30×\)/);
    const door = judge("the door's own CPU per call (gateway − core) ÷ the floor's, 1 session(s)");
    // 2025-11-25: 0.10, 0.15, 0.40 → 0.15; 2026-07-28: 0.10, 0.10, 0.20 → 0.10.
    assert.equal(door.met, true);
    assert.match(door.measured, /2025-11-25: .*paired windows 0\.15× \(3 reps: 0\.10–0\.40×\)/);
    const eras = judge(
      "a 2026-07-28 call's gateway CPU ÷ a 2025-11-25 session call's, 1 client(s)",
    );
    // 1.2 ÷ 1.2, 2.4 ÷ 1.25, 1.3 ÷ 1.5 → median 1.00.
    assert.match(eras.measured, /paired windows 1\.00× \(3 reps: 0\.87–1\.92×\)/);
    assert.equal(eras.met, true);
  });

  it("reads a large results' row from the paired windows at that payload, /sse included", () => {
    const MB = 1024 * 1024;
    const large = (target: Target, perSec: number[]) =>
      windows(target, MB, perSec.map(() => 10), perSec);
    const report: ThroughputReport = {
      ...run,
      cells: [...run.cells, ...largeMatrix(20)],
      paired: {
        parts: [{ payloadBytes: MB, windowCalls: 16, sessions: [1], cycles: [12] }],
        loads: [0.5, 0.7],
        cells: [
          large("floor 2025-11-25", [40, 30, 40]),
          large("gateway 2025-11-25", [40, 30, 38]),
          large("gateway /sse 2025-11-25", [40, 27, 38]),
          large("floor 2026-07-28", [40, 40, 40]),
          large("gateway 2026-07-28", [39, 40, 38]),
        ],
      },
    };
    const g = throughputGoals(report).find((j) =>
      j.goal === "throughput through the gateway ÷ the floor's, 1 session(s), 1 MB"
    );
    assert.ok(g);
    // 2025-11-25: 1.00, 1.00, 0.95 → 1.00, where the matrix cells alone read 0.50.
    assert.match(
      g.measured,
      /2025-11-25: 38 vs 40\/s, paired windows 1\.00× \(3 reps: 0\.95–1\.00×\); matrix cells 0\.50×/,
    );
    // /sse: 1.00, 0.90, 0.95 → 0.95; 2026-07-28: 0.975, 1.00, 0.95 → 0.975.
    assert.match(g.measured, /\/sse: 38 vs 40\/s, paired windows 0\.95×/);
    assert.equal(g.met, true);
  });

  it("judges large results against the floor on /mcp in both eras and on /sse", () => {
    const report: ThroughputReport = {
      ...run,
      cells: [...run.cells, ...largeMatrix(39)],
    };
    const g = throughputGoals(report).find((j) =>
      j.goal === "throughput through the gateway ÷ the floor's, 1 session(s), 1 MB"
    );
    assert.ok(g);
    assert.match(g.measured, /2025-11-25: 39 vs 40\/s, matrix cells 0\.97×/);
    assert.match(g.measured, /\/sse: 36 vs 40\/s, matrix cells 0\.90×/);
    // Both eras of /mcp pass; the SSE door does not, so the row is missed.
    assert.equal(g.met, false);
  });

  it("judges calls/s under the crowd against the floor's, at the crowd's size", () => {
    const g = goal("calls/s through the gateway ÷ the floor's, 64 concurrent clients, 100 B");
    assert.equal(g.target, "≥ 0.85×");
    // 2025-11-25: 0.90 and 0.80 → 0.85 (met); 2026-07-28: 0.80 (missed).
    assert.equal(g.met, false);
    assert.match(g.measured, /2025-11-25: 850 vs 1000\/s, 0\.85×/);
  });

  it("sets a 2026-07-28 call against a 2025-11-25 session call, repetition by repetition", () => {
    const g = goal("a 2026-07-28 call's gateway CPU ÷ a 2025-11-25 session call's, 1 client(s)");
    // 1.35 ÷ 1.30 and 1.35 ÷ 1.45 → median 0.985.
    assert.equal(g.met, true);
    assert.match(g.measured, /0\.98× \(2 reps: 0\.93–1\.04×\)/);
  });

  it("sets each peer against the gateway of its repetition, and says why a peer has no rows", () => {
    const proxy = goal("mcp-proxy 1.0.0: CPU per call ÷ the gateway's (2025-11-25), 1 session(s)");
    assert.equal(proxy.met, true);
    // Paired with the gateway's second repetition (1.45 ms, 1000/s): 3.00× the CPU, 0.40× calls/s.
    assert.match(
      proxy.measured,
      /4\.350 vs 1\.375 ms, 3\.00× \(1 rep\); calls\/s 400 vs 1000, 0\.40×/,
    );
    const sg = goal("supergateway 2.0.0: CPU per call ÷ the gateway's");
    assert.equal(sg.met, null);
    assert.equal(sg.measured, "did not run: did not start: no node");
  });

  it("has no floor goal at 100 B other than those, and prints ratios with their range", () => {
    assert.ok(
      !judged.some((g) => g.goal.startsWith("throughput through the gateway ÷ the floor's")),
    );
    assert.equal(ratioFigure([]), "–");
    assert.equal(ratioFigure([1.5]), "1.50× (1 rep)");
    assert.equal(ratioFigure([1, 3, 2]), "2.00× (3 reps: 1.00–3.00×)");
  });
});
