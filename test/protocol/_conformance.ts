/**
 * Running the official MCP conformance suite (`@modelcontextprotocol/conformance`) from tests:
 * its CLI needs a newer Node than the machine may have, so it runs under the repository's own
 * Bun, whatever runtime runs the test.
 */
import { spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import { ROOT } from "../_helpers/gateway.ts";

const BUN = join(ROOT, "node_modules/.bin/bun");
const CLI = join(ROOT, "node_modules/@modelcontextprotocol/conformance/dist/index.js");
/** Scenarios expected to fail (or to check less), per list name, each with its reason. */
export const EXPECTED = parse(
  readFileSync(join(ROOT, "test/protocol/conformance-expected-failures.yaml"), "utf8"),
) as Record<string, Record<string, string> | null>;
/**
 * Bound on one run of the suite: a 2026-07-28 run takes about a minute on a quiet machine (the
 * task scenarios wait on tasks that run for seconds), much longer on a loaded one.
 */
export const RUN_MS = 240_000;

/** One run's exit code and output. */
export interface Run {
  code: number | null;
  stdout: string;
}

/** Runs the suite CLI under Bun and collects its output; killed by PID past `RUN_MS`. */
export function conformance(args: string[]): Promise<Run> {
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
export async function scenariosOf(requirements: string): Promise<string[]> {
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

/** One scenario's checks: how many passed, and each failed one as `id: message`. */
export interface ScenarioResult {
  passed: number;
  failed: string[];
}

/** Scenario name → its checks, read from the `-o` folder (one folder per scenario). */
export function resultsOf(dir: string): Map<string, ScenarioResult> {
  const results = new Map<string, ScenarioResult>();
  for (const entry of readdirSync(dir)) {
    const name = /^server-(.+)-\d{4}-\d\d-\d\dT[\d-]+Z$/.exec(entry)?.[1];
    const file = join(dir, entry, "checks.json");
    if (!name || !existsSync(file)) continue;
    const checks = JSON.parse(readFileSync(file, "utf8")) as {
      id: string;
      status: string;
      errorMessage?: string;
    }[];
    results.set(name, {
      passed: checks.filter((c) => c.status === "SUCCESS").length,
      failed: checks.filter((c) => c.status === "FAILURE").map((c) =>
        `${c.id}: ${c.errorMessage ?? ""}`
      ),
    });
  }
  return results;
}

/** Runs the `requirements` set against `url`, writing into `dir`; resolves the results. */
export async function runSet(
  url: string,
  requirements: string,
  dir: string,
): Promise<{ run: Run; results: Map<string, ScenarioResult> }> {
  const run = await conformance([
    "server",
    "--url",
    url,
    "--requirements",
    requirements,
    "--timeout",
    "20000",
    "-o",
    dir,
  ]);
  return { run, results: resultsOf(dir) };
}
