/**
 * @module `node:child_process` behind {@link SpawnedChild}, for Deno (and Node). Deno implements
 * it on its own process ops, and it measured cheaper per round trip there than `Deno.Command`'s
 * Web streams; `detached: true` gives the child its own session on both.
 */
import { type ChildProcess, spawn } from "node:child_process";
import type { ChildExit, SpawnedChild, SpawnOptions } from "./spawn.ts";
import { exitOf, neverStarted, signalGroupOf, WriteBatch } from "./spawn-shared.ts";

/** Spawns with `node:child_process`; a spawn error (`ENOENT`, `EACCES`) rejects `started`. */
export function spawnNode(options: SpawnOptions): SpawnedChild {
  let child: ChildProcess;
  try {
    child = spawn(options.command, [...options.args], {
      cwd: options.cwd,
      env: { ...options.env }, // the whole environment: nothing inherited
      stdio: ["pipe", "pipe", "pipe"],
      detached: true, // its own session and process group, so its tree can be killed
      shell: false,
      windowsHide: true,
    });
  } catch (err) {
    return neverStarted(err);
  }
  const started = new Promise<void>((resolve, reject) => {
    child.once("spawn", () => resolve());
    child.once("error", reject);
  });
  started.catch(() => {}); // the caller awaits it; never an unhandled rejection
  const exited = new Promise<ChildExit>((resolve) => {
    child.once("exit", (code, signal) => resolve({ code, signal }));
  });
  const stderrEnded = new Promise<void>((resolve) => {
    child.stderr!.once("end", resolve);
    child.stderr!.once("close", resolve);
  });
  child.stdout!.on("data", options.onStdout);
  child.stdout!.once("end", options.onStdoutEnd);
  child.stderr!.on("data", options.onStderr);
  const stdin = child.stdin!;
  stdin.on("error", () => {}); // EPIPE after a crash: the child's exit tells that story
  const batch = new WriteBatch((text) =>
    stdin.write(text) ? undefined : new Promise<void>((resolve) => {
      stdin.once("drain", resolve);
      stdin.once("close", resolve);
    })
  );
  return {
    pid: child.pid,
    started,
    exited,
    stderrEnded,
    get exit() {
      return exitOf(child.exitCode, child.signalCode);
    },
    write: (text) => (stdin.writable ? batch.write(text) : undefined),
    endInput: () => {
      batch.flushNow();
      stdin.end();
    },
    signalGroup: (sig) => signalGroupOf(child.pid, sig, (s) => child.kill(s)),
  };
}
