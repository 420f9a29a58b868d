/**
 * A stdio client transport of our own: the child runs in its own process group so the whole
 * tree can be killed, stdout lines that are not JSON-RPC are logged and skipped (one noisy
 * server must not break its session), and stderr is drained into the log with a rate cap so a
 * flood neither blocks the child nor the gateway.
 */
import { type ChildProcess, spawn } from "node:child_process";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import type { Logger } from "../shared/log.ts";
import { LeanCalls } from "./lean-calls.ts";

/** Options for {@link StdioTransport}. */
export interface StdioTransportOptions {
  /** Server name, for error messages. */
  name?: string;
  command: string;
  args: readonly string[];
  env: Readonly<Record<string, string>>;
  cwd: string;
  log: Logger;
  /** Maximum bytes of one stdout line; a longer line is dropped (default 64 MiB). */
  maxLineBytes?: number;
}

const STDERR_LINES_PER_SEC = 20;

/** Spawns the child on `start()`; `close()` ends its whole process group. */
export class StdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  /** Lean `tools/call` requests answered on this connection (see lean-calls.ts). */
  readonly calls = new LeanCalls((m) => this.send(m));
  readonly #opts: StdioTransportOptions;
  #child: ChildProcess | undefined;
  #chunks: Buffer[] = [];
  #buffered = 0;
  #closed = false;
  #stderrBudget = { windowStart: 0, count: 0, dropped: 0 };

  constructor(opts: StdioTransportOptions) {
    this.#opts = opts;
  }

  /** Fails lean calls at once, then tells the SDK client. */
  #ended(): void {
    this.calls.failAll(this.#opts.name ?? this.#opts.command);
    this.onclose?.();
  }

  /** The child's pid while it runs. */
  get pid(): number | undefined {
    return this.#child?.pid;
  }

  start(): Promise<void> {
    const { command, args, env, cwd, log } = this.#opts;
    return new Promise((resolve, reject) => {
      let child: ChildProcess;
      try {
        child = spawn(command, [...args], {
          cwd,
          env: { ...process.env, ...env },
          stdio: ["pipe", "pipe", "pipe"],
          detached: true, // own process group: close() kills grandchildren too
          shell: false,
          windowsHide: true,
        });
      } catch (err) {
        reject(err);
        return;
      }
      this.#child = child;
      child.once("error", (err) => {
        if (!this.#closed) {
          this.#closed = true;
          reject(err);
          this.onerror?.(err);
          this.#ended();
        }
      });
      child.once("spawn", () => resolve());
      child.once("exit", (code, signal) => {
        // Children the server left behind would outlive it: sweep its process group now.
        if (child.pid !== undefined) signalGroup(child, "SIGKILL");
        if (this.#closed) return;
        this.#closed = true;
        const why = signal ? `signal ${signal}` : `code ${code}`;
        this.onerror?.(new Error(`server process exited with ${why}`));
        this.#ended();
      });
      child.stdout!.on("data", (chunk: Buffer) => this.#onStdout(chunk));
      child.stderr!.on("data", (chunk: Buffer) => this.#onStderr(chunk, log));
      child.stdin!.on("error", () => {}); // EPIPE after a crash surfaces through "exit"
    });
  }

  #onStdout(chunk: Buffer): void {
    let start = 0;
    for (let nl = chunk.indexOf(10); nl !== -1; nl = chunk.indexOf(10, start)) {
      this.#chunks.push(chunk.subarray(start, nl));
      const line = Buffer.concat(this.#chunks).toString("utf8");
      this.#chunks = [];
      this.#buffered = 0;
      this.#onLine(line);
      start = nl + 1;
    }
    if (start < chunk.length) {
      this.#chunks.push(chunk.subarray(start));
      this.#buffered += chunk.length - start;
      if (this.#buffered > (this.#opts.maxLineBytes ?? 64 * 1024 ** 2)) {
        this.#opts.log.warn("dropped an over-long stdout line", { bytes: this.#buffered });
        this.#chunks = [];
        this.#buffered = 0;
      }
    }
  }

  #onLine(raw: string): void {
    const line = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
    if (line.trim() === "") return;
    let msg: unknown;
    try {
      msg = JSON.parse(line);
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
    if (this.calls.intercept(msg)) return;
    if ("method" in msg) {
      this.onmessage?.(msg as JSONRPCMessage);
      return;
    }
    // The SDK client handles notifications one microtask late but responses at once, so a
    // request's last progress notification, read in the same chunk as its answer, would find
    // its handler already gone. A response waits one microtask, behind what came before it.
    queueMicrotask(() => this.onmessage?.(msg as JSONRPCMessage));
  }

  #onStderr(chunk: Buffer, log: Logger): void {
    if (!log.enabled("debug")) return;
    const b = this.#stderrBudget;
    const now = Date.now();
    if (now - b.windowStart > 1000) {
      if (b.dropped > 0) log.debug("stderr lines dropped", { dropped: b.dropped });
      b.windowStart = now;
      b.count = 0;
      b.dropped = 0;
    }
    for (const line of chunk.toString("utf8").split("\n")) {
      if (line.trim() === "") continue;
      if (b.count++ < STDERR_LINES_PER_SEC) log.debug("stderr", { line: line.slice(0, 500) });
      else b.dropped++;
    }
  }

  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.#child?.stdin;
    if (!stdin || this.#closed) return Promise.reject(new Error("server process is not running"));
    return new Promise((resolve) => {
      if (stdin.write(JSON.stringify(message) + "\n")) resolve();
      else stdin.once("drain", resolve);
    });
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

/** Signals a detached child's process group (falling back to the child alone). */
function signalGroup(child: ChildProcess, sig: NodeJS.Signals): void {
  try {
    process.kill(-child.pid!, sig);
  } catch {
    try {
      child.kill(sig);
    } catch { /* already gone */ }
  }
}

/** Kills a detached child's whole process group; resolves when the leader has exited. */
export async function killTree(child: ChildProcess, graceMs = 1500): Promise<void> {
  const pid = child.pid;
  if (pid === undefined) return;
  const exited = child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve()
    : new Promise<void>((r) => child.once("exit", () => r()));
  const signal = (sig: NodeJS.Signals) => signalGroup(child, sig);
  child.stdin?.end();
  signal("SIGTERM");
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = await Promise.race([
    exited.then(() => false),
    new Promise<boolean>((r) => (timer = setTimeout(() => r(true), graceMs))),
  ]);
  clearTimeout(timer);
  // Grandchildren may outlive a leader that exited on SIGTERM: always sweep the group.
  signal("SIGKILL");
  if (timedOut) await Promise.race([exited, new Promise((r) => setTimeout(r, 1000))]);
}
