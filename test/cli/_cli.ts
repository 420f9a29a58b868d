/** Runs the gateway's command line as a child process (the runtime the tests run on). */
import { execFile, spawnSync } from "node:child_process";
import { selfCommand } from "../../src/runtime/mod.ts";
import { ROOT } from "../_helpers/gateway.ts";

/** Exit code and output of one command-line run. */
export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `mcp-gateway ARGS…` in `cwd` (default: the repository root). */
export function cli(args: string[], cwd = ROOT, env: NodeJS.ProcessEnv = process.env): CliResult {
  const [cmd, ...pre] = selfCommand();
  const r = spawnSync(cmd!, [...pre, ...args], { cwd, env, encoding: "utf8", timeout: 60_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/**
 * {@link cli} without blocking this process: for a command that talks to a gateway this test
 * process serves (a synchronous run would wait on a server that cannot answer meanwhile).
 */
export function cliAsync(
  args: string[],
  env: NodeJS.ProcessEnv = process.env,
  cwd = ROOT,
): Promise<CliResult> {
  const [cmd, ...pre] = selfCommand();
  return new Promise((resolve) => {
    execFile(
      cmd!,
      [...pre, ...args],
      { cwd, env, encoding: "utf8", timeout: 60_000 },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === "number" ? err.code : null) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}
