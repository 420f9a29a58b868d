/**
 * A gateway started as a process of its own (the compiled binary or this checkout's CLI): waits
 * for the log line that says where it listens, and stops it by its PID. One copy for every test
 * that runs the gateway end to end.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { chmodSync, copyFileSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** Copies the compiled binary into a fresh empty folder (no node_modules beside it). */
export function binaryInEmptyDir(binary: string, prefix: string): { dir: string; exe: string } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const exe = join(dir, "mcp-gateway");
  copyFileSync(binary, exe);
  chmodSync(exe, 0o755);
  return { dir, exe };
}

/** A running gateway process and the base URL it listens on (`…/mcp` stripped). */
export interface GatewayProcess {
  readonly child: ChildProcess;
  readonly url: string;
}

/**
 * Spawns `cmd args` and resolves once its log says where it listens (and, with `ready`, once it
 * has also logged "ready"); rejects with the log so far if it exits or `timeoutMs` passes first.
 */
export async function startGatewayProcess(
  cmd: string,
  args: readonly string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv; ready?: boolean; timeoutMs?: number },
): Promise<GatewayProcess> {
  const child = spawn(cmd, [...args], {
    cwd: options.cwd,
    ...(options.env ? { env: options.env } : {}),
    stdio: ["ignore", "ignore", "pipe"],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let err = "";
    const timer = setTimeout(
      () => reject(new Error(`no listening line:\n${err}`)),
      options.timeoutMs ?? 20_000,
    );
    child.stderr!.on("data", (d: Buffer) => {
      err += d.toString();
      const m = /"url":"(http:\/\/[^"]+)\/mcp"/.exec(err);
      if (m && (!options.ready || /"msg":"ready"/.test(err))) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`gateway exited with ${code}:\n${err}`));
    });
  });
  return { child, url };
}

/**
 * The compiled binary copied into an empty folder ({@link binaryInEmptyDir}) with `yaml` as its
 * `gateway.yaml`, started there on 127.0.0.1:0 (it finds the config by its default name).
 */
export async function startBinaryInEmptyDir(
  binary: string,
  prefix: string,
  yaml: string,
): Promise<GatewayProcess & { dir: string; exe: string }> {
  const { dir, exe } = binaryInEmptyDir(binary, prefix);
  writeFileSync(join(dir, "gateway.yaml"), yaml);
  const started = await startGatewayProcess(exe, [
    "--listen",
    "127.0.0.1:0",
    "--log-level",
    "info",
  ], { cwd: dir });
  return { ...started, dir, exe };
}

/** Stops a child by its PID (SIGTERM) and waits for it to exit. */
export async function stopProcess(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once("exit", r));
  process.kill(child.pid!, "SIGTERM");
  await exited;
}
