/**
 * The benchmark harness end to end on its smallest plan (one session, 100 B, one repetition, a
 * few calls): real gateway, upstream and client processes, pinned where the machine allows.
 * Nothing here is timed; it checks that every row of the report gets a number (or says why a part
 * is not built yet). The peers and the crowd run in `bench-peers.test.ts`.
 */
import assert from "node:assert/strict";
import { PAIRED_TARGETS } from "../bench/paired.ts";
import { describe, it } from "node:test";
import type { BenchReport } from "../bench/report.ts";
import { goals } from "../bench/goals.ts";
import { renderMarkdown } from "../bench/report.ts";
import { runBench } from "../bench/run.ts";

const positive = (value: number, what: string) =>
  assert.ok(Number.isFinite(value) && value > 0, `${what} should be a positive number: ${value}`);

/** The whole run is measured inside the first test that asks for it. */
const SLOW = { timeout: 300_000 };

describe("the benchmark harness on its smallest plan", () => {
  // Run once, by the first test that needs it: a test's own timeout bounds it (a before hook
  // would be bounded by the runner's per-test timeout, too short for a loaded machine).
  let running: Promise<BenchReport> | undefined;
  const measured = () => running ??= runBench({ size: "smallest", progress: () => {} });

  it(
    "measures calls/s and latency on direct HTTP, direct stdio, the floor, the core and the gateway in both eras",
    SLOW,
    async () => {
      const report = await measured();
      assert.deepEqual(report.throughput.cells.map((c) => c.target), [
        "direct HTTP",
        "direct stdio",
        "floor 2025-11-25",
        "floor 2026-07-28",
        "core 2025-11-25",
        "core 2026-07-28",
        "gateway 2025-11-25",
        "gateway 2026-07-28",
      ]);
      assert.deepEqual(report.throughput.peers, []);
      for (const c of report.throughput.cells) {
        assert.equal(c.errors, 0, `${c.target}: ${c.firstError}`);
        positive(c.callsPerSec, `${c.target} calls/s`);
        positive(c.p50Ms, `${c.target} p50`);
        positive(c.p99Ms, `${c.target} p99`);
        positive(c.vsHttp, `${c.target} ratio`);
        // Each gateway and core row is set against the floor of its own era, in the same run.
        if (c.target.startsWith("gateway") || c.target.startsWith("core")) {
          positive(c.vsFloor, `${c.target} throughput ÷ floor`);
          positive(c.cpuVsFloor, `${c.target} CPU ÷ floor`);
          // The per-repetition range holds the median.
          const [low, high] = c.floorSpread.cpu;
          assert.ok(low! <= c.cpuVsFloor && c.cpuVsFloor <= high!, `${c.target} CPU spread`);
        } else {
          assert.ok(Number.isNaN(c.vsFloor), `${c.target} has no floor ratio`);
          assert.deepEqual(c.floorSpread, { calls: [], cpu: [] }, `${c.target} has no spread`);
        }
      }
    },
  );

  it(
    "reads the gateway's, the floor's and the upstream's CPU per proxied call from /proc",
    SLOW,
    async () => {
      const report = await measured();
      for (
        const target of [
          "floor 2025-11-25",
          "floor 2026-07-28",
          "gateway 2025-11-25",
          "gateway 2026-07-28",
        ]
      ) {
        const gateway = report.throughput.cells.find((c) => c.target === target)!;
        assert.ok(gateway.gatewayCpuPerCall >= 0, `${target} CPU ${gateway.gatewayCpuPerCall}`);
        assert.ok(
          gateway.upstreamCpuPerCall >= 0,
          `${target} upstream ${gateway.upstreamCpuPerCall}`,
        );
      }
      // The paired windows: every arm read from its own process, in one repetition.
      const paired = report.throughput.paired!;
      assert.deepEqual(paired.parts, [
        { payloadBytes: 100, windowCalls: 100, sessions: [1], cycles: [2] },
      ]);
      assert.deepEqual(paired.cells.map((c) => c.target), [...PAIRED_TARGETS]);
      for (const c of paired.cells) {
        assert.equal(c.runs.length, 1, c.target);
        positive(c.gatewayCpuPerCall, `${c.target} CPU per call in the paired windows`);
      }
      positive(report.throughput.idleRssBytes, "gateway idle RSS");
      positive(report.throughput.floorIdleRssBytes, "floor idle RSS");
    },
  );

  it(
    "measures cold start, upstream handshakes and RSS with the shipped three upstreams",
    SLOW,
    async () => {
      const report = await measured();
      const f = report.footprint!;
      assert.deepEqual(f.servers, ["everything", "memory", "filesystem"]);
      positive(f.coldStartMs, "cold start");
      positive(f.emptyGatewayMs, "start with no upstreams");
      positive(f.allTogetherMs, "upstreams started together");
      for (const h of f.handshakes) positive(h.readyMs, `${h.server} handshake`);
      positive(f.idleRssBytes, "idle RSS");
      positive(f.loadedRssBytes, "loaded RSS");
      positive(f.loadedCallsPerSec, "calls/s under load");
    },
  );

  it("gives the Lua rows numbers, or says the scripting layer is not built", SLOW, async () => {
    const report = await measured();
    const s = report.scripting!;
    if (s.notBuilt === null) {
      positive(s.trivialMs, "trivial execute");
      positive(s.fanOutMs, "fan-out");
      assert.ok(Number.isFinite(s.roundTripMs), `round trip ${s.roundTripMs}`);
    } else {
      assert.match(renderMarkdown(report), /n\/a \(not built\)/);
    }
  });

  it("gives tool_search a median, or says search is not built", SLOW, async () => {
    const report = await measured();
    const q = report.search!;
    if ("notBuilt" in q) assert.ok(q.notBuilt.length > 0);
    else positive(q.medianMs, "tool_search median");
  });

  it("judges every goal of the issue in the Markdown report", SLOW, async () => {
    const report = await measured();
    const judged = goals(report);
    // Smallest plan: ratio to direct HTTP, whole CPU ÷ floor, the door's share and
    // stateless-vs-session CPU at 1 session, 100 B; then idle RSS with one upstream, cold start,
    // the Lua round trip, the macro overhead and tool_search.
    assert.equal(judged.length, 9, judged.map((g) => g.goal).join("; "));
    for (
      const goal of [
        "whole gateway CPU per call ÷ the floor's, 1 session(s), 100 B",
        "the door's own CPU per call (gateway − core) ÷ the floor's, 1 session(s), 100 B",
        "a 2026-07-28 call's gateway CPU ÷ a 2025-11-25 session call's, 1 client(s), 100 B",
      ]
    ) {
      const g = judged.find((j) => j.goal === goal);
      assert.ok(g, `goal missing: ${goal}`);
      // Each names its figures and the median of the paired windows' repetitions it is judged on.
      assert.match(
        g.measured,
        /ms, paired windows -?\d+\.\d\d× \(1 rep\)/,
        `${goal}: ${g.measured}`,
      );
      assert.notEqual(g.met, null, `${goal} is judged`);
    }
    assert.ok(judged.some((g) => g.goal.startsWith("idle RSS with one upstream")));
    const markdown = renderMarkdown(report);
    for (const g of judged) assert.ok(markdown.includes(g.goal), g.goal);
    assert.match(markdown, /\| cores \| \d+ \|/);
    assert.match(markdown, /\| throughput part \| (server and its upstream on CPU|unpinned: )/);
  });
});
