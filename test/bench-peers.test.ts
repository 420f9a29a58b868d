/**
 * The throughput part's peer and crowd cells end to end, kept apart from `bench.test.ts` so each
 * fits its own time: real mcp-proxy and supergateway processes (the repository's devDependencies)
 * in front of bench-echo, set beside the gateway in the same cells, and a crowd of 4 clients on
 * the floor and the gateway in both eras, pinned where the machine allows. Nothing is timed; it
 * checks that each row gets its figures and its goal a verdict.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { choosePinning } from "../bench/pinning.ts";
import { killAll } from "../bench/procs.ts";
import { renderMarkdown } from "../bench/report.ts";
import { throughputGoals } from "../bench/throughput-goals.ts";
import { benchThroughput, type ThroughputReport } from "../bench/throughput.ts";

const positive = (value: number, what: string) =>
  assert.ok(Number.isFinite(value) && value > 0, `${what} should be a positive number: ${value}`);

describe("the benchmark's peer and crowd cells", () => {
  const workDir = mkdtempSync(join(tmpdir(), "mcpgw-bench-peers-"));
  let report: ThroughputReport;
  before(async () => {
    report = await benchThroughput({
      reps: 1,
      sessions: [1],
      payloads: [100],
      // 300 calls: CPU is read in 10 ms clock ticks, and a cell of 30 fast calls could read 0.
      limits: () => ({ warmupCalls: 5, warmupMs: 200, maxCalls: 300, maxMs: 2000 }),
      gatewayMode: "auto",
      workDir,
      pinning: choosePinning(),
      // The matrix cut to what the peers are set against (direct HTTP and the floors always run).
      targets: ["gateway 2025-11-25"],
      crowd: 4,
      peerSessions: [1],
    });
  });
  after(() => {
    killAll();
    rmSync(workDir, { recursive: true, force: true });
  });

  it("runs each peer beside the gateway, and the crowd on the floor and the gateway", () => {
    assert.deepEqual(report.cells.map((c) => `${c.target} × ${c.sessions}`), [
      "direct HTTP × 1",
      "floor 2025-11-25 × 1",
      "floor 2026-07-28 × 1",
      "gateway 2025-11-25 × 1",
      "mcp-proxy 2025-11-25 × 1",
      "supergateway 2025-11-25 × 1",
      "floor 2025-11-25 × 4",
      "floor 2026-07-28 × 4",
      "gateway 2025-11-25 × 4",
      "gateway 2026-07-28 × 4",
    ]);
    assert.deepEqual(report.peers.map((p) => [p.name, p.reason]), [
      ["mcp-proxy", null],
      ["supergateway", null],
    ]);
    assert.equal(report.crowd, 4);
    for (const c of report.cells) {
      assert.equal(c.errors, 0, `${c.target}: ${c.firstError}`);
      positive(c.callsPerSec, `${c.target} × ${c.sessions} calls/s`);
      if (c.target.startsWith("mcp-proxy") || c.target.startsWith("supergateway")) {
        positive(c.gatewayCpuPerCall, `${c.target} CPU per call`);
      }
      if (c.target.startsWith("gateway") && c.sessions === 4) {
        positive(c.vsFloor, `${c.target} × 4 calls/s ÷ floor`);
      }
    }
  });

  it("judges the crowd and the peer lead, and prints the peer table", () => {
    const judged = throughputGoals(report);
    const versions = report.peers.map((p) => `${p.name} ${p.version}`);
    for (
      const goal of [
        "calls/s through the gateway ÷ the floor's, 4 concurrent clients, 100 B",
        ...versions.map((v) =>
          `${v}: CPU per call ÷ the gateway's (2025-11-25), 1 session(s), 100 B`
        ),
      ]
    ) {
      const g = judged.find((j) => j.goal === goal);
      assert.ok(g, `goal missing: ${goal} in ${judged.map((j) => j.goal).join("; ")}`);
      assert.match(g.measured, /(ms|\/s), \d+\.\d\d× \(1 rep\)/, `${goal}: ${g.measured}`);
      assert.notEqual(g.met, null, `${goal} is judged`);
    }
    const markdown = renderMarkdown({
      mode: "peers",
      facts: [],
      throughput: report,
      footprint: null,
      scripting: null,
      search: null,
      seconds: 0,
      loadAtEnd: "0",
    });
    assert.match(markdown, /## Peers/);
    for (const v of versions) assert.match(markdown, new RegExp(`\\| ${v} \\| 1 × 100 B \\|`));
  });
});
