/**
 * @module `node:child_process` behind {@link SpawnedChild}, for Deno (and Node). Deno implements
 * it on its own process ops, and it measured cheaper per round trip there than `Deno.Command`'s
 * Web streams; `detached: true` gives the child its own session on both. The module is fetched
 * through `process.getBuiltinModule` at the first spawn, never imported: Bun (which never calls
 * this) would load it at start otherwise (+2 MiB of idle RSS measured in a compiled program).
 */
import type * as ChildProcesses from "node:child_process";
import type { ChildProcess } from "node:child_process";
import type { ChildExit, SpawnedChild, SpawnOptions } from "./spawn.ts";
import { exitOf, neverStarted, signalGroupOf, WriteBatch } from "./spawn-shared.ts";

let childProcesses: typeof ChildProcesses | undefined;

/** `node:child_process`, loaded at first use. */
function nodeSpawn(): typeof ChildProcesses.spawn {
  if (childProcesses) return childProcesses.spawn;
  const load = (process as unknown as {
    getBuiltinModule?(id: string): typeof ChildProcesses;
  }).getBuiltinModule;
  if (!load) {
    throw new Error("spawning needs Bun, Deno 2 or Node 22.3+ (no process.getBuiltinModule)");
  }
  return (childProcesses = load.call(process, "node:child_process")).spawn;
}

/** Spawns with `node:child_process`; a spawn error (`ENOENT`, `EACCES`) rejects `started`. */
export function spawnNode(options: SpawnOptions): SpawnedChild {
  let child: ChildProcess;
  try {
    child = nodeSpawn()(options.command, [...options.args], {
      cwd: options.cwd,
      env: { ...options.env }, // the whole environment: nothing inherited
      stdio: ["pipe", "pipe", options.stderr ?? "pipe"],
      // its own session and process group, so its tree can be killed
      detached: options.detached ?? true,
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
  const stderr = child.stderr;
  const stderrEnded = stderr
    ? new Promise<void>((resolve) => {
      stderr.once("end", resolve);
      stderr.once("close", resolve);
    })
    : Promise.resolve();
  child.stdout!.on("data", options.onStdout);
  child.stdout!.once("end", options.onStdoutEnd);
  // A piped stderr is always read, so a chatty child never blocks on a full pipe.
  stderr?.on("data", options.onStderr ?? (() => {}));
  const stdin = child.stdin!;
  stdin.on("error", () => {}); // EPIPE after a crash: the child's exit tells that story
  const batch = new WriteBatch((parts) => {
    // Corked, the parts leave in one write (`writev`) when uncorked.
    stdin.cork();
    let room = true;
    for (const part of parts) room = stdin.write(part);
    stdin.uncork();
    return room ? undefined : new Promise<void>((resolve) => {
      stdin.once("drain", resolve);
      stdin.once("close", resolve);
    });
  });
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
    kill: (sig) => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      try {
        child.kill(sig);
      } catch { /* already gone */ }
    },
  };
}
