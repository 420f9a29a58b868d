/**
 * The official MCP conformance suite (`@modelcontextprotocol/conformance`) run against the
 * gateway's `/mcp`, for each requirement set (2026-07-28 and 2025-11-25), with the gateway
 * fronting a real stdio upstream on the 1.x SDK (`fixtures/servers/conformance.mjs`, exposed
 * unprefixed). A 2026-07-28 client thus meets a 2025 upstream: its input_required rounds are the
 * gateway's conversion of the upstream's sampling, elicitation and roots requests.
 *
 * Every scenario the suite runs must pass, except those in `conformance-expected-failures.yaml`
 * (each with its reason) — and those must still fail, so the list stays honest.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { nodeServer, startTestGateway, type TestGateway } from "../_helpers/gateway.ts";
import { EXPECTED, RUN_MS, runSet, scenariosOf } from "./_conformance.ts";

/** The fixture's tools that run as tasks. */
const TASK_TOOLS = [
  "slow_compute",
  "failing_job",
  "protocol_error_job",
  "confirm_delete",
  "multi_input",
  "test_tool_with_task",
];

describe("the official conformance suite through the gateway", () => {
  let gw: TestGateway;
  const dirs: string[] = [];
  before(async () => {
    // The fixture's sampling, elicitation and roots reach exactly the client that asked: each
    // session (2025) or request flow (2026-07-28) gets its own process of it, with its own roots.
    // The list-change triggers live on a shared instance, whose list_changed every client hears;
    // so do the task tools, since a task outlives the request flow that created it.
    // Three spare processes: the suite's client sends one request flow after another and aborts
    // some after 500 ms, less than a node process start takes on a loaded machine; a scenario
    // (server-stateless) runs three flows within a second, so each must find one already up.
    const taskTools = JSON.stringify(TASK_TOOLS);
    gw = await startTestGateway(`
servers:
  conformance: ${
      nodeServer(
        "conformance.mjs",
        "prefix: false, isolation: session, roots: client, maxSessions: 64, spare: 3, " +
          `tools: { deny: ["test_trigger_*", ${taskTools.slice(1, -1)}] }`,
      )
    }
  triggers: ${nodeServer("conformance.mjs", 'prefix: false, tools: { allow: ["test_trigger_*"] }')}
  tasks: ${nodeServer("conformance.mjs", `prefix: false, tools: { allow: ${taskTools} }`)}
`);
  });
  after(async () => {
    await gw?.stop();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  for (const requirements of ["2026-07-28", "2025-11-25"]) {
    it(`passes every ${requirements} server scenario outside the expected-failure list`, {
      timeout: RUN_MS + 20_000,
    }, async () => {
      const expected = EXPECTED[requirements] ?? {};
      const scenarios = await scenariosOf(requirements);
      assert.ok(scenarios.length >= 30, `the suite listed ${scenarios.length} server scenarios`);
      for (const name of Object.keys(expected)) {
        assert.ok(scenarios.includes(name), `expected failure "${name}" is not a scenario`);
      }

      const dir = mkdtempSync(join(tmpdir(), "mcpgw-conformance-"));
      dirs.push(dir);
      const { run, results } = await runSet(`${gw.url}/mcp`, requirements, dir);
      const missing = scenarios.filter((s) => !results.has(s));
      assert.deepEqual(missing, [], `scenarios without results:\n${run.stdout.slice(-3000)}`);

      const unexpected = [...results].filter(([name, r]) =>
        r.failed.length > 0 && !(name in expected)
      );
      assert.deepEqual(
        unexpected.map(([name, r]) => `${name}: ${r.failed.join("; ")}`),
        [],
        "scenarios failing outside the expected-failure list",
      );
      const nowPassing = Object.keys(expected).filter((name) =>
        results.get(name)?.failed.length === 0
      );
      assert.deepEqual(
        nowPassing,
        [],
        "listed as expected failures but passing: remove them from the list",
      );
    });
  }
});
