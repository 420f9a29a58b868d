/**
 * @module Child processes on the runtime's own pipes. A stdio upstream's request and answer cross
 * a pipe on every call, so this leg is on the hot path: on Bun it is `Bun.spawn` (a `FileSink`
 * written once per turn of the event loop and flushed, stdout read as a byte stream), which
 * skips the `node:child_process` stream machinery Bun emulates on top of that same spawn (~10%
 * of a proxied call's CPU). On Deno and Node it is `node:child_process`: Deno's own
 * `Deno.Command` offers a new session too (`detached: true` → `setsid`), but its Web-stream
 * stdin measured slower per round trip than Deno's `node:child_process` (see
 * docs/PERFORMANCE.md, "The upstream pipe").
 *
 * Every child gets exactly the environment it is given (nothing inherited) and a stdin and
 * stdout pipe; by default also its own session and process group (so its whole tree can be
 * signalled) and a stderr pipe. A script worker (the program re-spawned) stays in this
 * process's group and writes to this process's stderr, as it always did.
 *
 * `node:child_process` is fetched through `process.getBuiltinModule` at the first spawn off
 * Bun, never imported: on Bun, merely importing it measured +2 MiB of idle RSS in a compiled
 * program (docs/PERFORMANCE.md, "Round 3").
 */
import { spawnBun } from "./spawn-bun.ts";
import { spawnNode } from "./spawn-node.ts";

/** What to start. */
export interface SpawnOptions {
  command: string;
  args: readonly string[];
  cwd: string;
  /** The child's whole environment; nothing of this process's is added. */
  env: Readonly<Record<string, string>>;
  /** Each chunk of stdout, as read. */
  onStdout(chunk: Uint8Array): void;
  /** Each chunk of stderr, as read (never called when stderr is inherited). */
  onStderr?(chunk: Uint8Array): void;
  /** Stdout reached its end: the child closed it or exited. */
  onStdoutEnd(): void;
  /**
   * `false` keeps the child in this process's session and process group (then
   * {@link SpawnedChild.signalGroup} reaches the child alone). Default `true`: a new session.
   */
  detached?: boolean;
  /** `"inherit"` hands the child this process's stderr; default `"pipe"` (see `onStderr`). */
  stderr?: "pipe" | "inherit";
}

/** How a child ended: a code when it exited, a signal name when a signal ended it. */
export interface ChildExit {
  code: number | null;
  signal: string | null;
}

/** A running child process (the leader of its own process group unless `detached: false`). */
export interface SpawnedChild {
  /** Its pid (also its process group id); undefined when it could not be started. */
  readonly pid: number | undefined;
  /** Resolves once the process runs; rejects with the spawn error (`ENOENT`, `EACCES`). */
  readonly started: Promise<void>;
  /** Resolves once the process has exited (its pipes may still hold output). */
  readonly exited: Promise<ChildExit>;
  /** Resolves once stderr has ended (at once when it is inherited). */
  readonly stderrEnded: Promise<void>;
  /** How it ended; `null` while it runs. */
  readonly exit: ChildExit | null;
  /**
   * Queues `text` for stdin; what one turn of the event loop queues goes to the pipe in one
   * write. Returns a promise only while the pipe is full (resolved once it drains). A write to a
   * child that died is dropped: its end is told by {@link exited}.
   */
  write(text: string): Promise<void> | undefined;
  /** Closes stdin (after what was queued). */
  endInput(): void;
  /** Sends `signal` to the child's whole process group (to the child alone if that fails). */
  signalGroup(signal: NodeJS.Signals): void;
  /** Sends `signal` to the child alone; nothing once it has exited. */
  kill(signal: NodeJS.Signals): void;
}

declare const Bun: unknown;

/** Starts `command` (in a new session unless `detached: false`), on the runtime's own pipes. */
export function spawnChild(options: SpawnOptions): SpawnedChild {
  return typeof Bun !== "undefined" ? spawnBun(options) : spawnNode(options);
}
