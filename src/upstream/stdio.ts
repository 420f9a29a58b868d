/**
 * A stdio client transport of our own: the child runs in its own process group so the whole
 * tree can be killed, stdout lines that are not JSON-RPC are logged and skipped (one noisy
 * server must not break its session), and stderr is drained into the log with a rate cap so a
 * flood neither blocks the child nor the gateway. The last stderr lines and how the process
 * exited are kept: they are the reason an operator needs when a server dies at start.
 */
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { type ChildExit, spawnChild, type SpawnedChild } from "../runtime/mod.ts";
import { jsonParts, parseLine } from "../shared/lazy-json.ts";
import type { Logger } from "../shared/log.ts";
import type { LineTap } from "./lean-leg.ts";
import { LineReader } from "./line-reader.ts";
import { release, track } from "./reaper.ts";
import { StderrTail } from "./stderr-tail.ts";

/** Options for {@link StdioTransport}. */
export interface StdioTransportOptions {
  command: string;
  args: readonly string[];
  /** The child's whole environment (see child-env.ts); nothing else is inherited. */
  env: Readonly<Record<string, string>>;
  cwd: string;
  log: Logger;
  /** Maximum bytes of one stdout line; a longer line is dropped (default 64 MiB). */
  maxLineBytes?: number;
}

const STDERR_LINES_PER_SEC = 20;
/** After an exit, how long the last stderr bytes may take to arrive before the loss is told. */
const STDERR_SETTLE_MS = 200;
/** How long a child whose stdout ended may take to exit on its own before it is killed. */
const LINGER_MS = 200;
const STREAM = { stream: true } as const;
/** What `send` returns when the message went to the pipe at once. */
const WRITTEN: Promise<void> = Promise.resolve();

/** How a server process ended on its own (not because the gateway closed it). */
export type ProcessExit = ChildExit;

/** Spawns the child on `start()`; `close()` ends its whole process group. */
export class StdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  /** Takes the lean caller's answers and progress off the line first (see lean-leg.ts). */
  tap: LineTap | undefined;
  readonly #opts: StdioTransportOptions;
  #child: SpawnedChild | undefined;
  #closed = false;
  #stderrBudget = { windowStart: 0, count: 0, dropped: 0 };
  #tail = new StderrTail();
  #stderrText = new TextDecoder();
  #exit: ProcessExit | null = null;

  constructor(opts: StdioTransportOptions) {
    this.#opts = opts;
  }

  /** Fails lean calls at once, then tells the SDK client. */
  #ended(): void {
    this.tap?.closed();
    this.onclose?.();
  }

  /** The child's pid while it runs. */
  get pid(): number | undefined {
    return this.#child?.pid;
  }

  /** The last lines the process wrote to stderr (at most 20 lines, 4 KiB), oldest first. */
  get stderrTail(): string[] {
    return this.#tail.lines();
  }

  /** How the process exited, when it exited on its own; `null` while running or after close. */
  get exit(): ProcessExit | null {
    return this.#exit;
  }

  start(): Promise<void> {
    // Already running: the era probe started it, and the 1.x client takes it over.
    if (this.#child && !this.#closed) return Promise.resolve();
    // Closed before it started (a stop during connect): never spawn.
    if (this.#closed) {
      return Promise.reject(new Error("the transport was closed before it started"));
    }
    const { command, args, env, cwd, log } = this.#opts;
    const lines = new LineReader(
      this.#opts.maxLineBytes ?? 64 * 1024 ** 2,
      (line, bytes) => this.#onLine(line, bytes),
      (bytes) => log.warn("dropped an over-long stdout line", { bytes }),
    );
    const child = spawnChild({
      command,
      args,
      cwd,
      env, // the whole environment: built by child-env.ts, nothing inherited
      onStdout: (chunk) => lines.push(chunk),
      onStderr: (chunk) => this.#onStderr(chunk, log),
      onStdoutEnd: () => this.#onStdoutEnd(child),
    });
    this.#child = child;
    if (child.pid !== undefined) track(child.pid);
    void child.exited.then((exit) => this.#onExit(child, exit));
    return child.started.catch((err) => {
      if (!this.#closed) {
        this.#closed = true;
        this.onerror?.(err);
        this.#ended();
      }
      throw err;
    });
  }

  #onExit(child: SpawnedChild, exit: ProcessExit): void {
    // Children the server left behind would outlive it: sweep its process group now.
    if (child.pid !== undefined) {
      child.signalGroup("SIGKILL");
      release(child.pid);
    }
    if (this.#closed) return;
    this.#exit = exit;
    // Its last words (why it exited) may still be in the pipe: wait for them, briefly.
    void settle(child.stderrEnded, STDERR_SETTLE_MS).then(() => {
      this.#tail.push(this.#stderrText.decode());
      this.#tail.flush();
      if (this.#closed) return;
      this.#closed = true;
      const why = exit.signal ? `signal ${exit.signal}` : `code ${exit.code}`;
      this.onerror?.(new Error(`server process exited with ${why}`));
      this.#ended();
    });
  }

  /**
   * A child that closed its stdout can never answer again. One that is exiting anyway gets a
   * moment to report its own exit code; one that lingers is ended, so the exit path fails its
   * calls as UPSTREAM_UNAVAILABLE instead of letting them wait for their timeout.
   */
  #onStdoutEnd(child: SpawnedChild): void {
    const timer = setTimeout(() => {
      if (!this.#closed && child.exit === null) child.signalGroup("SIGKILL");
    }, LINGER_MS);
    (timer as { unref?: () => void }).unref?.();
  }

  /** One stdout line; a long one with the bytes it was decoded from (see `LineReader`). */
  #onLine(raw: string, rawBytes?: Uint8Array): void {
    const cr = raw.endsWith("\r");
    const line = cr ? raw.slice(0, -1) : raw;
    const bytes = cr ? rawBytes?.subarray(0, -1) : rawBytes;
    if (line.trim() === "") return;
    let msg: unknown;
    try {
      // A large result's long texts stay in the line until read (most are only sent on).
      msg = parseLine(line);
    } catch {
      this.#opts.log.warn("ignored a stdout line that is not JSON-RPC", {
        line: line.slice(0, 200),
      });
      return;
    }
    if (!msg || typeof msg !== "object" || (msg as { jsonrpc?: unknown }).jsonrpc !== "2.0") {
      this.#opts.log.warn("ignored a stdout message that is not JSON-RPC 2.0", {
        line: line.slice(0, 200),
      });
      return;
    }
    if (this.tap?.message(msg as Record<string, unknown>, line, bytes)) return;
    if ("method" in msg) {
      this.onmessage?.(msg as JSONRPCMessage);
      return;
    }
    // The SDK client handles notifications one microtask late but responses at once, so a
    // request's last progress notification, read in the same chunk as its answer, would find
    // its handler already gone. A response waits one microtask, behind what came before it.
    this.#later(msg as JSONRPCMessage);
  }

  /**
   * Hands `msg` on one microtask late. A function of its own: a closure in `#onLine` would make
   * every line pay the scope it holds, the lines a tap takes included.
   */
  #later(msg: JSONRPCMessage): void {
    queueMicrotask(() => this.onmessage?.(msg));
  }

  #onStderr(chunk: Uint8Array, log: Logger): void {
    const lines = this.#tail.push(this.#stderrText.decode(chunk, STREAM));
    if (!log.enabled("debug")) return;
    const b = this.#stderrBudget;
    const now = Date.now();
    if (now - b.windowStart > 1000) {
      if (b.dropped > 0) log.debug("stderr lines dropped", { dropped: b.dropped });
      b.windowStart = now;
      b.count = 0;
      b.dropped = 0;
    }
    for (const line of lines) {
      if (line.trim() === "") continue;
      if (b.count++ < STDERR_LINES_PER_SEC) log.debug("stderr", { line: line.slice(0, 500) });
      else b.dropped++;
    }
  }

  send(message: JSONRPCMessage): Promise<void> {
    return this.write(message) ?? WRITTEN;
  }

  /**
   * As {@link send}, but `undefined` where `send` answers a settled promise (the message is
   * queued and the pipe is not full): the lean leg's hot path then attaches no reaction.
   */
  write(message: JSONRPCMessage): Promise<void> | undefined {
    const child = this.#child;
    if (!child || this.#closed) return Promise.reject(new Error("server process is not running"));
    // Written with the rest of this tick's messages; a promise only while the pipe is full.
    // Parts, not one concatenation: a large message is then never copied into a joined string
    // before the pipe's own copy, and a long string of a request nobody read goes to the pipe as
    // the slice of the body it came in (`jsonParts`).
    for (const part of jsonParts(message)) child.write(part);
    return child.write("\n");
  }

  /** Ends the process group: SIGTERM, then SIGKILL after a grace period. */
  async close(): Promise<void> {
    const child = this.#child;
    const wasClosed = this.#closed;
    this.#closed = true;
    if (child) await killTree(child);
    if (!wasClosed) this.#ended();
  }
}

/** Resolves when `done` settles or after `ms`, whichever comes first. */
async function settle(done: Promise<void>, ms: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([done, new Promise((r) => (timer = setTimeout(r, ms)))]);
  clearTimeout(timer);
}

/** Kills a child's whole process group; resolves when the leader has exited. */
export async function killTree(child: SpawnedChild, graceMs = 1500): Promise<void> {
  if (child.pid === undefined) return;
  const exited = child.exited.then(() => false);
  child.endInput();
  child.signalGroup("SIGTERM");
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = await Promise.race([
    exited,
    new Promise<boolean>((r) => (timer = setTimeout(() => r(true), graceMs))),
  ]);
  clearTimeout(timer);
  // Grandchildren may outlive a leader that exited on SIGTERM: always sweep the group.
  child.signalGroup("SIGKILL");
  if (timedOut) await Promise.race([exited, new Promise((r) => setTimeout(r, 1000))]);
}
