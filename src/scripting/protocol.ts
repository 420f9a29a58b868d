/**
 * The parent↔worker channel, the only module both sides share: newline-delimited JSON on the
 * worker's stdin/stdout (JSON escapes every newline inside strings, so one line is one message;
 * binary data travels as base64), and the vocabulary of limits both sides speak.
 */

/** Per-script ceilings. */
export interface ScriptLimits {
  /** Wall time of one run, in milliseconds. */
  timeoutMs: number;
  /** Lua heap ceiling, in bytes. */
  memoryBytes: number;
  /** Ceiling on one argument string, and the cumulative budget of data returned to the script. */
  transferBytes: number;
  /** Pictures one result may carry. */
  pictures: number;
}

/** Which ceiling stopped a script. */
export type LimitName = "time" | "memory" | "transfer" | "crash" | "aborted";

const MiB = 1024 * 1024;

/** `64MiB`, `512KiB`, `1000 bytes`: the form limits are written in config. */
export function formatBytes(n: number): string {
  if (n >= MiB && n % MiB === 0) return `${n / MiB}MiB`;
  if (n >= 1024 && n % 1024 === 0) return `${n / 1024}KiB`;
  return `${n} bytes`;
}

/** `100ms`, `30s`. */
export function formatMs(ms: number): string {
  return ms >= 1000 && ms % 1000 === 0 ? `${ms / 1000}s` : `${ms}ms`;
}

/** The message of a script stopped at its time limit. */
export function timeLimitMessage(timeoutMs: number): string {
  return `script exceeded its time limit of ${formatMs(timeoutMs)}`;
}

/** The message of a script stopped at its memory limit. */
export function memoryLimitMessage(memoryBytes: number): string {
  return `script exceeded its memory limit of ${formatBytes(memoryBytes)}`;
}

/** Parent → worker: start a run. */
export interface RunMessage {
  t: "run";
  /**
   * The run's number, unique per worker: replies carry it back, and a reply meant for an earlier
   * run (one that ended while a tool call was still in flight) is dropped, never delivered.
   */
  run: number;
  code: string;
  chunk: string;
  prelude?: string;
  exposeHost: boolean;
  globals: Record<string, unknown>;
  limits: ScriptLimits;
  /**
   * When the run's time is up (epoch ms), fixed by the parent: both sides then agree on it, so
   * an answer the parent sends at its deadline always finds the worker's limit already reached.
   */
  deadline: number;
  vfs: Record<string, string>;
  hostNames: string[];
  /** The key that marks a buffer in host answers (see `ScriptBuffer.MARKER`). */
  bufferKey: string;
}

/** Parent → worker: the answer to a request. */
export type ReplyMessage =
  | { t: "reply"; run: number; id: number; ok: true; value: unknown }
  | { t: "reply"; run: number; id: number; ok: false; error: { code: string; message: string } };

/** Worker → parent: a tool call, the tool list, or a host function call. */
export interface RequestMessage {
  t: "request";
  /** The run that asked (see {@link RunMessage.run}). */
  run: number;
  id: number;
  kind: "tool" | "list" | "host";
  name?: string;
  args?: unknown;
}

/** Worker → parent: end of a run. `json` is the returned value, JSON-encoded in Lua. */
export type DoneMessage =
  & {
    t: "done";
    toolCalls: number;
    hostCalls: number;
    /** Which run of its engine this was: 1 on a new engine, 2 and up on a reused one. */
    engineRun?: number;
  }
  & (
    | { ok: true; json: string }
    | { ok: false; message: string; line?: number; chunk?: string; limit?: LimitName }
  );

/** Messages the parent sends. */
export type ToWorker = RunMessage | ReplyMessage;
/** Messages the worker sends. */
export type FromWorker =
  | { t: "ready" }
  | RequestMessage
  | { t: "print"; text: string }
  | { t: "emit"; json: string }
  | DoneMessage;

/** Encodes one message as a line. */
export function frame(message: ToWorker | FromWorker): string {
  return JSON.stringify(message) + "\n";
}

/**
 * Splits a byte stream into lines without quadratic copying: pieces are kept until a newline
 * arrives, then joined once. Multi-byte characters split across chunks are decoded correctly.
 */
export class LineSplitter {
  #decoder = new TextDecoder();
  #pieces: string[] = [];

  /** Feeds a chunk; returns the complete lines it finished. */
  push(chunk: Uint8Array | string): string[] {
    const text = typeof chunk === "string" ? chunk : this.#decoder.decode(chunk, { stream: true });
    const lines: string[] = [];
    let start = 0;
    for (let nl = text.indexOf("\n"); nl !== -1; nl = text.indexOf("\n", start)) {
      this.#pieces.push(text.slice(start, nl));
      lines.push(this.#pieces.join(""));
      this.#pieces = [];
      start = nl + 1;
    }
    if (start < text.length) this.#pieces.push(text.slice(start));
    return lines.filter((l) => l.length > 0);
  }
}
