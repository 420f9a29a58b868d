/**
 * The official MCP conformance suite (`@modelcontextprotocol/conformance`) run against the
 * gateway's `/mcp`, for each requirement set (2026-07-28 and 2025-11-25), with the gateway
 * fronting a real stdio upstream on the 1.x SDK (`fixtures/servers/conformance.mjs`, exposed
 * unprefixed). A 2026-07-28 client thus meets a 2025 upstream: its input_required rounds are the
 * gateway's conversion of the upstream's sampling, elicitation and roots requests.
 *
 * Every scenario the suite runs must pass, except those in `conformance-expected-failures.yaml`
 * (each with its reason) — and those must still fail, so the list stays honest. The suite's CLI
 * needs a newer Node than the machine may have, so it runs under the repository's own Bun,
 * whatever runtime runs this test.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { parse } from "yaml";
import { nodeServer, ROOT, startTestGateway, type TestGateway } from "../_helpers/gateway.ts";

const BUN = join(ROOT, "node_modules/.bin/bun");
const CLI = join(ROOT, "node_modules/@modelcontextprotocol/conformance/dist/index.js");
const EXPECTED = parse(
  readFileSync(join(ROOT, "test/protocol/conformance-expected-failures.yaml"), "utf8"),
) as Record<string, Record<string, string> | null>;
/** The fixture's tools that run as tasks. */
const TASK_TOOLS = [
  "slow_compute",
  "failing_job",
  "protocol_error_job",
  "confirm_delete",
  "multi_input",
  "test_tool_with_task",
];
/**
 * Bound on one run of the suite: a 2026-07-28 run takes about a minute on a quiet machine (the
 * task scenarios wait on tasks that run for seconds), much longer on a loaded one.
 */
const RUN_MS = 240_000;

interface Run {
  code: number | null;
  stdout: string;
}

/** Runs the suite CLI under Bun and collects its output; killed by PID past `RUN_MS`. */
function conformance(args: string[]): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(BUN, [CLI, ...args], { stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    child.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
    child.stderr.on("data", (c: Buffer) => (stdout += c.toString()));
    const timer = setTimeout(() => child.kill("SIGKILL"), RUN_MS);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout });
    });
  });
}

/** The server scenarios the suite runs for `requirements` (scored and reported-only). */
async function scenariosOf(requirements: string): Promise<string[]> {
  const { stdout } = await conformance(["list", "--server", "--requirements", requirements]);
  const names: string[] = [];
  let inServer = false;
  for (const line of stdout.split("\n")) {
    if (line.startsWith("Server scenarios")) inServer = true;
    else if (line.trim() === "" || line.startsWith("Client scenarios")) inServer = false;
    const m = /^\s+- (\S+)( \[server\])?$/.exec(line);
    if (m && (inServer || m[2])) names.push(m[1]!);
  }
  return names;
}

/** Scenario name → its failed checks, read from the `-o` folder (one folder per scenario). */
function resultsOf(dir: string): Map<string, string[]> {
  const results = new Map<string, string[]>();
  for (const entry of readdirSync(dir)) {
    const name = /^server-(.+)-\d{4}-\d\d-\d\dT[\d-]+Z$/.exec(entry)?.[1];
    const file = join(dir, entry, "checks.json");
    if (!name || !existsSync(file)) continue;
    const checks = JSON.parse(readFileSync(file, "utf8")) as {
      id: string;
      status: string;
      errorMessage?: string;
    }[];
    results.set(
      name,
      checks.filter((c) => c.status === "FAILURE").map((c) => `${c.id}: ${c.errorMessage ?? ""}`),
    );
  }
  return results;
}

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
      const run = await conformance([
        "server",
        "--url",
        `${gw.url}/mcp`,
        "--requirements",
        requirements,
        "--timeout",
        "20000",
        "-o",
        dir,
      ]);
      const results = resultsOf(dir);
      const missing = scenarios.filter((s) => !results.has(s));
      assert.deepEqual(missing, [], `scenarios without results:\n${run.stdout.slice(-3000)}`);

      const unexpected = [...results].filter(([name, failed]) =>
        failed.length > 0 && !(name in expected)
      );
      assert.deepEqual(
        unexpected.map(([name, failed]) => `${name}: ${failed.join("; ")}`),
        [],
        "scenarios failing outside the expected-failure list",
      );
      const nowPassing = Object.keys(expected).filter((name) => results.get(name)?.length === 0);
      assert.deepEqual(
        nowPassing,
        [],
        "listed as expected failures but passing: remove them from the list",
      );
    });
  }
});
