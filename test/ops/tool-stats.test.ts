/**
 * The console's per-tool series: calls and errors a minute, p50/p99 read from log-spaced bins
 * (within one bin's 25 %), minutes rolling out of the window, and client-chosen names bounded.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { CallRecord } from "../../src/gateway/mod.ts";
import { ToolStats } from "../../src/ops/tool-stats.ts";

function call(name: string, durationMs: number, extra: Partial<CallRecord> = {}): CallRecord {
  return {
    kind: "tool",
    name,
    server: "s",
    tokenName: null,
    profile: null,
    sessionId: null,
    era: "local",
    scriptDepth: 0,
    durationMs,
    outcome: "ok",
    at: 0,
    filters: [],
    ...extra,
  };
}

describe("per-tool stats", () => {
  it("counts calls and errors a minute and reads p50/p99 within a bin", () => {
    let now = 10 * 60_000;
    const stats = new ToolStats({ minutes: 5, now: () => now });
    for (let i = 1; i <= 100; i++) stats.record(call("t", i));
    stats.record(call("t", 5, { outcome: "error" }));
    now += 60_000;
    stats.record(call("t", 1));
    const [t] = stats.snapshot();
    assert.deepEqual(t!.calls, [0, 0, 0, 101, 1]);
    assert.deepEqual(t!.errors, [0, 0, 0, 1, 0]);
    const p50 = t!.p50[3]!;
    const p99 = t!.p99[3]!;
    assert.ok(p50 >= 50 && p50 <= 50 * 1.25 * 1.25, `p50 ${p50}`);
    assert.ok(p99 >= 99 && p99 <= 99 * 1.25 * 1.25, `p99 ${p99}`);
    assert.equal(t!.p50[0], null, "a minute without calls has no latency");
  });

  it("drops minutes that left the window, and tools with no call in it", () => {
    let now = 0;
    const stats = new ToolStats({ minutes: 3, now: () => now });
    stats.record(call("old", 1));
    now += 3 * 60_000;
    stats.record(call("new", 1));
    assert.deepEqual(stats.snapshot().map((s) => [s.tool, s.calls]), [["new", [0, 0, 1]]]);
  });

  it("counts unknown names as one and stops adding tools at the ceiling", () => {
    const stats = new ToolStats({ maxTools: 2 });
    stats.record(call("x1", 1, { code: "TOOL_NOT_FOUND", outcome: "error" }));
    stats.record(call("x2", 1, { code: "TOOL_NOT_FOUND", outcome: "error" }));
    for (const name of ["a", "b", "c", "d"]) stats.record(call(name, 1));
    const tools = stats.snapshot().map((s) => s.tool).sort();
    assert.deepEqual(tools, ["a", "b", "other", "unknown"]);
  });
});
