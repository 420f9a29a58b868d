/**
 * @module `Bun.spawn` behind {@link SpawnedChild}: stdin is Bun's `FileSink` (one write and one
 * flush per turn of the event loop), stdout and stderr are read straight from their byte streams.
 */
import type { ChildExit, SpawnedChild, SpawnOptions } from "./spawn.ts";
import { exitOf, neverStarted, signalGroupOf, WriteBatch } from "./spawn-shared.ts";

/** The slice of Bun's subprocess API used here (the project compiles without Bun's types). */
interface BunSink {
  write(chunk: string): number | Promise<number>;
  flush(): number | Promise<number> | undefined;
  end(): number | Promise<number> | undefined;
}
interface BunSubprocess {
  readonly pid: number;
  readonly stdin: BunSink;
  readonly stdout: ReadableStream<Uint8Array>;
  readonly stderr: ReadableStream<Uint8Array> | undefined;
  readonly exited: Promise<number>;
  readonly exitCode: number | null;
  readonly signalCode: string | null;
  kill(signal?: string): void;
}
declare const Bun: {
  spawn(argv: string[], options: {
    cwd: string;
    env: Record<string, string>;
    stdin: "pipe";
    stdout: "pipe";
    stderr: "pipe" | "inherit";
    detached: boolean;
    windowsHide: boolean;
  }): BunSubprocess;
};

const NOTHING = (): void => {};

/** Spawns with `Bun.spawn`; a spawn error (`ENOENT`, `EACCES`) rejects `started`. */
export function spawnBun(options: SpawnOptions): SpawnedChild {
  let proc: BunSubprocess;
  try {
    proc = Bun.spawn([options.command, ...options.args], {
      cwd: options.cwd,
      env: { ...options.env }, // the whole environment: nothing inherited
      stdin: "pipe",
      stdout: "pipe",
      stderr: options.stderr ?? "pipe",
      // setsid: its own session and process group, so its tree can be killed
      detached: options.detached ?? true,
      windowsHide: true,
    });
  } catch (err) {
    return neverStarted(err);
  }
  const exited = proc.exited.then((): ChildExit => ({
    code: proc.exitCode,
    signal: proc.signalCode,
  }));
  void drain(proc.stdout, options.onStdout).then(options.onStdoutEnd);
  // A piped stderr is always read, so a chatty child never blocks on a full pipe.
  const stderrEnded = proc.stderr
    ? drain(proc.stderr, options.onStderr ?? NOTHING)
    : Promise.resolve();
  const sink = proc.stdin;
  let open = true;
  const batch = new WriteBatch((parts) => {
    if (!open) return undefined;
    try {
      for (const part of parts) sink.write(part);
      const flushed = sink.flush();
      // A full pipe: the sink keeps the rest and writes it as the child reads. A pipe whose
      // reader died (EPIPE) rejects here; the child's exit tells that story.
      return flushed instanceof Promise ? flushed.then(NOTHING, NOTHING) : undefined;
    } catch {
      return undefined;
    }
  });
  const signal = (sig: NodeJS.Signals) => signalGroupOf(proc.pid, sig, (s) => proc.kill(s));
  return {
    pid: proc.pid,
    started: Promise.resolve(),
    exited,
    stderrEnded,
    get exit() {
      return exitOf(proc.exitCode, proc.signalCode);
    },
    write: (text) => (open ? batch.write(text) : undefined),
    endInput: () => {
      if (!open) return;
      batch.flushNow();
      open = false;
      try {
        const ended = sink.end();
        if (ended instanceof Promise) ended.catch(NOTHING);
      } catch { /* already closed */ }
    },
    signalGroup: signal,
    kill: (sig) => {
      if (proc.exitCode !== null || proc.signalCode !== null) return;
      try {
        proc.kill(sig);
      } catch { /* already gone */ }
    },
  };
}

/** Reads `stream` to its end, handing each chunk to `onChunk`; a read error ends it too. */
async function drain(
  stream: ReadableStream<Uint8Array>,
  onChunk: (chunk: Uint8Array) => void,
): Promise<void> {
  try {
    for await (const chunk of stream) {
      try {
        onChunk(chunk);
      } catch (err) {
        // A throwing handler must not cancel the stream; it is thrown as uncaught, as a
        // `node:child_process` "data" listener's would be.
        queueMicrotask(() => {
          throw err;
        });
      }
    }
  } catch { /* the pipe broke: the same as its end */ }
}
