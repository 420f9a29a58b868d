/**
 * The goals a run is judged on, each met, not met or n/a: the throughput part's
 * (`./throughput-goals.ts`), then idle RSS, cold start, the Lua rows and tool_search.
 */
import type { BenchReport } from "./report.ts";
import { fmt, mib } from "./stats.ts";
import { throughputGoals } from "./throughput-goals.ts";

/** One goal. `met` is null when it could not be measured. */
export interface Goal {
  goal: string;
  target: string;
  measured: string;
  met: boolean | null;
}

/** Shown for a measure whose feature is not built. */
export const NA = "n/a (not built)";

/** Judges every goal against a run. */
export function goals(r: BenchReport): Goal[] {
  const out = throughputGoals(r.throughput);
  const smallest = Math.min(...r.throughput.cells.map((c) => c.payloadBytes));
  const stdio = r.throughput.cells.find((c) =>
    c.target === "direct stdio" && c.sessions === 1 && c.payloadBytes === smallest
  );
  const idle = r.throughput.idleRssBytes;
  out.push({
    goal: `idle RSS with one upstream (${r.facts.find(([k]) => k === "gateway process")?.[1]})`,
    target: "≤ 60 MiB",
    measured: `${mib(idle)} (the floor: ${mib(r.throughput.floorIdleRssBytes)})`,
    met: Number.isFinite(idle) ? idle <= 60 * 1024 ** 2 : null,
  });
  const f = r.footprint;
  if (f) {
    const budget = 150 + (f.slowest?.readyMs ?? Number.NaN);
    out.push({
      goal: `cold start to first tools/list (slowest upstream: ${f.slowest?.server ?? "?"})`,
      target: `≤ 150 ms + ${fmt(f.slowest?.readyMs, 0)} ms = ${fmt(budget, 0)} ms`,
      measured: `${fmt(f.coldStartMs, 0)} ms (all three upstreams together, directly: ${
        fmt(f.allTogetherMs, 0)
      } ms)`,
      met: Number.isFinite(budget) && Number.isFinite(f.coldStartMs)
        ? f.coldStartMs <= budget
        : null,
    });
  }
  const s = r.scripting;
  if (s) {
    const direct = stdio?.p50Ms ?? Number.NaN;
    const added = s.roundTripMs - direct;
    const micro = Number.isFinite(s.microRoundTripMs);
    out.push({
      goal: micro
        ? "Lua mcp.call + task.await round trip (bench/lua.ts, in-process bridge)"
        : "Lua mcp.call + task.await round trip, over a direct stdio call",
      target: "≤ 0.20 ms",
      measured: micro
        ? `${fmt(s.microRoundTripMs, 3)} ms`
        : s.notBuilt
        ? NA
        : `${fmt(added, 3)} ms (${fmt(s.roundTripMs, 3)} − ${fmt(direct, 3)})`,
      met: micro
        ? s.microRoundTripMs <= 0.2
        : s.notBuilt || !Number.isFinite(added)
        ? null
        : added <= 0.2,
    });
    const over = s.macroOverheadMs;
    out.push({
      goal: "macro call over the upstream call it wraps (median of back-to-back differences)",
      target: "≤ 0.50 ms",
      measured: s.notBuilt || !Number.isFinite(over)
        ? NA
        : `${fmt(over, 3)} ms (macro file: ${fmt(s.fileMacroOverheadMs, 3)} ms)`,
      met: s.notBuilt || !Number.isFinite(over) ? null : over <= 0.5,
    });
  }
  const q = r.search;
  if (q) {
    out.push({
      goal: "tool_search median at 10,000 tools",
      target: "≤ 2 ms",
      measured: "notBuilt" in q ? NA : `${fmt(q.medianMs, 3)} ms (${q.tools} tools)`,
      met: "notBuilt" in q ? null : q.medianMs <= 2,
    });
  }
  return out;
}
