/**
 * The throughput part's goals, judged on one run: the gateway against direct HTTP and against
 * the floor of its era (whole CPU per call, the door's share over the core, calls/s under a
 * crowd, large results), the stateless era against sessions, and the peers against the gateway.
 * Every verdict is the median of per-repetition ratios (paths of one repetition ran back to
 * back; for the small-call CPU rows and the large results' rows, the paired windows'
 * repetitions when the run has them),
 * shown with how many repetitions there were and their range.
 */
import type { Goal } from "./goals.ts";
import { PEER_TARGETS, SSE_TARGET } from "./targets.ts";
import { fmt, median, perRep, ratio, sizeLabel } from "./stats.ts";
import type { CellSummary, RepRun, ThroughputReport } from "./throughput.ts";

const ERAS = ["2025-11-25", "2026-07-28"] as const;
type EraName = typeof ERAS[number];

/** What one era (or one peer) contributes to a row: its ratios and the figures behind them. */
interface Part {
  label: string;
  values: number[];
  detail: string;
}

/** `1.33× (5 reps: 1.20–1.45×)`: the median of per-repetition ratios and their range. */
export function ratioFigure(values: readonly number[]): string {
  if (values.length === 0) return "–";
  const range = values.length === 1
    ? "1 rep"
    : `${values.length} reps: ${Math.min(...values).toFixed(2)}–${ratio(Math.max(...values))}`;
  return `${ratio(median(values))} (${range})`;
}

/** What a row reads of a path: its CPU per call and calls/s by repetition, and their medians. */
interface PathCell {
  runs: readonly { rep: number; gatewayCpuPerCall: number; callsPerSec: number }[];
  gatewayCpuPerCall: number;
  callsPerSec: number;
}

/** Judges the throughput goals against `t`. */
export function throughputGoals(t: ThroughputReport): Goal[] {
  const cell = (target: string, sessions: number, payload: number) =>
    t.cells.find((c) =>
      c.target === target && c.sessions === sessions && c.payloadBytes === payload
    );
  const matrix = t.cells.filter((c) => c.target === "direct HTTP");
  const sessions = [...new Set(matrix.map((c) => c.sessions))].sort((a, b) => a - b);
  const payloads = [...new Set(matrix.map((c) => c.payloadBytes))].sort((a, b) => a - b);
  const small = payloads[0];
  if (small === undefined) return [];
  const out: Goal[] = [];
  const cpu = (r: { gatewayCpuPerCall: number }) => r.gatewayCpuPerCall;
  const calls = (r: RepRun) => r.callsPerSec;
  const over = (f: (r: RepRun) => number) => (a: RepRun, b: RepRun) => f(a) / f(b);

  /** One row over both eras: met when each era's median passes; n/a when one is missing. */
  const row = (goal: string, target: string, pass: (v: number) => boolean, parts: Part[]) => {
    if (parts.length === 0) return;
    const verdicts = parts.map((p) => (p.values.length === 0 ? null : pass(median(p.values))));
    out.push({
      goal,
      target,
      measured: parts.map((p) => `${p.label}: ${p.detail}`).join(" · "),
      met: verdicts.includes(null) ? null : verdicts.every(Boolean),
    });
  };
  /** The gateway of each era against another path of the same era and cell. */
  const eras = (
    s: number,
    p: number,
    other: (era: EraName) => string,
    part: (gw: CellSummary, them: CellSummary) => Omit<Part, "label">,
  ): Part[] =>
    ERAS.flatMap((era) => {
      const gw = cell(`gateway ${era}`, s, p);
      const them = cell(other(era), s, p);
      return gw && them ? [{ label: era, ...part(gw, them) }] : [];
    });

  for (const p of payloads) {
    for (const s of sessions) {
      const min = p !== small ? 1.1 : s === 1 ? 1.3 : 1.5;
      row(
        `throughput through the gateway ÷ direct HTTP, ${s} session(s), ${sizeLabel(p)}`,
        `≥ ${min.toFixed(2)}×`,
        (v) => v >= min,
        eras(s, p, () => "direct HTTP", (gw, http) => {
          const values = perRep(gw.runs, http.runs, over(calls));
          return { values, detail: ratioFigure(values) };
        }),
      );
    }
  }
  /**
   * The small-call CPU rows and the large results' rows read the paired windows when the run has
   * them at that payload (each repetition's paths a tenth of a second to a second apart), the
   * matrix cells otherwise; with the windows, the matrix cells' own median ratio is shown beside.
   */
  const pairedAt = (p: number) => t.paired?.cells.some((c) => c.payloadBytes === p) ?? false;
  const source = (target: string, s: number, p: number): PathCell | undefined =>
    pairedAt(p)
      ? t.paired!.cells.find((c) => c.target === target && c.sessions === s && c.payloadBytes === p)
      : cell(target, s, p);
  const cpuCell = (target: string, s: number) => source(target, s, small);
  const sourceName = (p: number) => pairedAt(p) ? "paired windows" : "matrix cells";
  const cpuSource = sourceName(small);
  /** The matrix cells' own median ratio of `f`, when the row reads paired windows. */
  const matrixBeside = (
    gw: string,
    them: string,
    s: number,
    p = small,
    f: (r: RepRun) => number = cpu,
  ) => {
    const a = pairedAt(p) ? cell(gw, s, p) : undefined;
    const b = pairedAt(p) ? cell(them, s, p) : undefined;
    return a && b ? `; matrix cells ${ratio(median(perRep(a.runs, b.runs, over(f))))}` : "";
  };
  for (const s of sessions) {
    row(
      `whole gateway CPU per call ÷ the floor's, ${s} session(s), ${sizeLabel(small)}`,
      "≤ 1.40×",
      (v) => v <= 1.4,
      ERAS.flatMap((era) => {
        const gw = cpuCell(`gateway ${era}`, s);
        const floor = cpuCell(`floor ${era}`, s);
        if (!gw || !floor) return [];
        const values = perRep(gw.runs, floor.runs, (a, b) => cpu(a) / cpu(b));
        const ms = `${fmt(gw.gatewayCpuPerCall, 3)} vs ${fmt(floor.gatewayCpuPerCall, 3)} ms`;
        return [{
          label: era,
          values,
          detail: `${ms}, ${cpuSource} ${ratioFigure(values)}${
            matrixBeside(`gateway ${era}`, `floor ${era}`, s)
          }`,
        }];
      }),
    );
  }
  for (const s of sessions) {
    row(
      `the door's own CPU per call (gateway − core) ÷ the floor's, ${s} session(s), ${
        sizeLabel(small)
      }`,
      "≤ 0.15×",
      (v) => v <= 0.15,
      ERAS.flatMap((era) => {
        const gw = cpuCell(`gateway ${era}`, s);
        const core = cpuCell(`core ${era}`, s);
        const floor = cpuCell(`floor ${era}`, s);
        if (!gw || !core) return [];
        const values = gw.runs.flatMap((g) => {
          const c = core.runs.find((r) => r.rep === g.rep);
          const f = floor?.runs.find((r) => r.rep === g.rep);
          return c && f ? [(cpu(g) - cpu(c)) / cpu(f)] : [];
        });
        const ms = `(${fmt(gw.gatewayCpuPerCall, 3)} − ${fmt(core.gatewayCpuPerCall, 3)}) ÷ ${
          fmt(floor?.gatewayCpuPerCall, 3)
        } ms`;
        return [{ label: era, values, detail: `${ms}, ${cpuSource} ${ratioFigure(values)}` }];
      }),
    );
  }
  if (t.crowd !== null) {
    row(
      `calls/s through the gateway ÷ the floor's, ${t.crowd} concurrent clients, ${
        sizeLabel(small)
      }`,
      "≥ 0.85×",
      (v) => v >= 0.85,
      eras(t.crowd, small, (era) => `floor ${era}`, (gw, floor) => {
        const values = perRep(gw.runs, floor.runs, over(calls));
        const perSec = `${fmt(gw.callsPerSec, 0)} vs ${fmt(floor.callsPerSec, 0)}/s`;
        return { values, detail: `${perSec}, ${ratioFigure(values)}` };
      }),
    );
  }
  for (const p of payloads.filter((x) => x !== small)) {
    for (const s of sessions) {
      const vsFloor = (label: string, gw: string, floor: string): Part[] => {
        const a = source(gw, s, p);
        const b = source(floor, s, p);
        if (!a || !b) return [];
        const values = perRep(a.runs, b.runs, (x, y) => x.callsPerSec / y.callsPerSec);
        const perSec = `${fmt(a.callsPerSec, 0)} vs ${fmt(b.callsPerSec, 0)}/s`;
        return [{
          label,
          values,
          detail: `${perSec}, ${sourceName(p)} ${ratioFigure(values)}${
            matrixBeside(gw, floor, s, p, calls)
          }`,
        }];
      };
      row(
        `throughput through the gateway ÷ the floor's, ${s} session(s), ${sizeLabel(p)}`,
        "≥ 0.95×",
        (v) => v >= 0.95,
        [
          ...ERAS.flatMap((era) => vsFloor(era, `gateway ${era}`, `floor ${era}`)),
          // The SSE transport's door against the floor of its era (2025-11-25), when it ran.
          ...vsFloor("/sse", SSE_TARGET, "floor 2025-11-25"),
        ],
      );
    }
  }
  for (const s of sessions) {
    const modern = cpuCell("gateway 2026-07-28", s);
    const legacy = cpuCell("gateway 2025-11-25", s);
    if (!modern || !legacy) continue;
    const values = perRep(modern.runs, legacy.runs, (a, b) => cpu(a) / cpu(b));
    row(
      `a 2026-07-28 call's gateway CPU ÷ a 2025-11-25 session call's, ${s} client(s), ${
        sizeLabel(small)
      }`,
      "≤ 1.00×",
      (v) => v <= 1,
      [{
        label: "2026-07-28 vs 2025-11-25",
        values,
        detail: `${fmt(modern.gatewayCpuPerCall, 3)} vs ${
          fmt(legacy.gatewayCpuPerCall, 3)
        } ms, ${cpuSource} ${ratioFigure(values)}${
          matrixBeside("gateway 2026-07-28", "gateway 2025-11-25", s)
        }`,
      }],
    );
  }
  out.push(...peerGoals(t, small));
  return out;
}

/**
 * The peer lead: each peer's CPU per call over the gateway's (2025-11-25, the era every peer
 * serves) at each session count it ran, with calls/s beside it. A peer that could not run has
 * one row saying why, judged n/a.
 */
function peerGoals(t: ThroughputReport, small: number): Goal[] {
  const target = "≥ 1.00× (the gateway spends less)";
  return t.peers.flatMap((peer): Goal[] => {
    const path = PEER_TARGETS.find((p) => p.startsWith(`${peer.name} `))!;
    const cells = t.cells.filter((c) => c.target === path && c.payloadBytes === small);
    const name = `${peer.name} ${peer.version}`;
    if (cells.length === 0) {
      const goal = `${name}: CPU per call ÷ the gateway's, ${sizeLabel(small)}`;
      return [{ goal, target, measured: `did not run: ${peer.reason ?? "no cells"}`, met: null }];
    }
    return cells.map((c) => {
      const gw = t.cells.find((g) =>
        g.target === "gateway 2025-11-25" && g.sessions === c.sessions && g.payloadBytes === small
      );
      const cpu = perRep(
        c.runs,
        gw?.runs ?? [],
        (a, b) => a.gatewayCpuPerCall / b.gatewayCpuPerCall,
      );
      const calls = perRep(c.runs, gw?.runs ?? [], (a, b) => a.callsPerSec / b.callsPerSec);
      const stopped = peer.reason ? ` — then stopped: ${peer.reason}` : "";
      return {
        goal: `${name}: CPU per call ÷ the gateway's (2025-11-25), ${c.sessions} session(s), ${
          sizeLabel(small)
        }`,
        target,
        measured: `${fmt(c.gatewayCpuPerCall, 3)} vs ${fmt(gw?.gatewayCpuPerCall, 3)} ms, ${
          ratioFigure(cpu)
        }; calls/s ${fmt(c.callsPerSec, 0)} vs ${fmt(gw?.callsPerSec, 0)}, ${
          ratioFigure(calls)
        }${stopped}`,
        met: cpu.length === 0 ? null : median(cpu) >= 1,
      };
    });
  });
}
