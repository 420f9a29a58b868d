/** Turning Lua error text and limits into the messages scripts' callers see. */

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

/** A Lua error split into its text and the position Lua prefixed it with. */
export interface ParsedLuaError {
  message: string;
  line?: number;
  chunk?: string;
}

const POSITION = /^(?:\[string "([^"\n]*)"\]|([A-Za-z0-9_.-]+)):(\d+): ([\s\S]*)$/;

/** Splits `[string "script"]:3: boom` into `{ message: "boom", line: 3, chunk: "script" }`. */
export function parseLuaError(raw: string): ParsedLuaError {
  const m = POSITION.exec(raw);
  if (!m) return { message: raw };
  return { message: m[4] ?? raw, line: Number(m[3]), chunk: m[1] ?? m[2] };
}

/** True when Lua reported an allocation failure (the memory ceiling). */
export function isMemoryError(raw: string): boolean {
  return raw.includes("not enough memory");
}
