/** Runs the gateway's command line as a child process (the runtime the tests run on). */
import { spawn, spawnSync } from "node:child_process";
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

/** Runs `mcp-gateway ARGS…` as a child process without blocking a gateway this process serves. */
export function cliAsync(args: string[]): Promise<{ code: number | null; out: string }> {
  const [cmd, ...pre] = selfCommand();
  return new Promise((resolve, reject) => {
    const child = spawn(cmd!, [...pre, ...args], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout!.on("data", (d: Buffer) => (out += d.toString()));
    child.stderr!.on("data", (d: Buffer) => (out += d.toString()));
    const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
    child.once("error", reject);
    child.once("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, out });
    });
  });
}
