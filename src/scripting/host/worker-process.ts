/**
 * Parent-side handle of one worker child process: spawn, framed messages, readiness, SIGKILL.
 * A child process rather than a Worker thread because killing the process is the only thing that
 * stops a wasm engine stuck in one long C call on Bun and Deno (docs/ARCHITECTURE.md, "Runtime
 * facts that shaped the script workers"). It is spawned through the runtime's spawn room, as the
 * same program with this process's environment and folder, in this process's session and process
 * group (it is killed alone), writing to this process's stderr.
 */
import { type ChildExit, spawnChild, type SpawnedChild } from "../../runtime/mod.ts";
import { frame, type FromWorker, LineSplitter, type ToWorker } from "../protocol.ts";

/** The hidden sub-command that turns the program into a worker (see src/main.ts). */
export const WORKER_SUBCOMMAND = "__lua-worker";

/** How a worker ended. */
export type WorkerExit = ChildExit;

/** One warm worker process. */
export class WorkerProcess {
  readonly pid: number | undefined;
  /** Resolves when the worker has its first engine ready; rejects if it dies before. */
  readonly ready: Promise<void>;
  /** Resolves when the process has exited. */
  readonly exited: Promise<WorkerExit>;
  /** Receives every message of the worker (set by whoever runs a script on it). */
  onMessage: ((m: FromWorker) => void) | undefined;
  /** Called once when the process exits, for whatever reason. */
  onExit: ((exit: WorkerExit) => void) | undefined;
  #child: SpawnedChild;
  #readyHooks: { resolve: () => void; reject: (e: Error) => void } | undefined;
  #alive = true;
  #isReady = false;

  constructor(command: string[]) {
    const [program, ...args] = command;
    if (!program) throw new Error("empty worker command");
    const splitter = new LineSplitter();
    this.#child = spawnChild({
      command: program,
      args: [...args, WORKER_SUBCOMMAND],
      cwd: process.cwd(),
      env: inheritedEnv(),
      detached: false,
      stderr: "inherit",
      onStdout: (chunk) => {
        for (const line of splitter.push(chunk)) this.#receive(line);
      },
      onStdoutEnd: () => {},
    });
    this.pid = this.#child.pid;
    this.exited = new Promise((resolve) => {
      const done = ({ code, signal }: ChildExit) => {
        if (!this.#alive) return;
        this.#alive = false;
        resolve({ code, signal });
        this.onExit?.({ code, signal });
      };
      void this.#child.exited.then(done);
      this.#child.started.catch(() => done({ code: null, signal: "spawn-error" }));
    });
    this.ready = new Promise<void>((resolve, reject) => {
      this.#readyHooks = { resolve, reject };
      void this.exited.then(({ code, signal }) =>
        reject(new Error(`script worker exited before it was ready (${signal ?? `code ${code}`})`))
      );
    });
    this.ready.catch(() => {}); // observed by whoever awaits it; never an unhandled rejection
  }

  #receive(line: string): void {
    let m: FromWorker;
    try {
      m = JSON.parse(line) as FromWorker;
    } catch {
      return; // not ours: the channel carries JSON lines only
    }
    if (m.t === "ready") {
      this.#isReady = true;
      this.#readyHooks?.resolve();
      return;
    }
    this.onMessage?.(m);
  }

  /** True until the process exits. */
  get alive(): boolean {
    return this.#alive;
  }

  /** True once the worker has reported ready (even after it exited). */
  get everReady(): boolean {
    return this.#isReady;
  }

  /** Sends one message; ignored once the process is gone. */
  send(message: ToWorker): void {
    if (!this.#alive) return;
    // A write racing the child's death is dropped by the spawn room; its exit tells that story.
    void this.#child.write(frame(message));
  }

  /** SIGKILLs the process and waits until it is gone. */
  async kill(): Promise<void> {
    if (this.#alive) this.#child.kill("SIGKILL");
    await this.exited;
  }
}

/** This process's environment, as the worker always had it (it is the same program). */
function inheritedEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) if (value !== undefined) env[key] = value;
  return env;
}
