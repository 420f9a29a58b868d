/** Reading Lua error text: the position Lua prefixes, and the allocation-failure status. */

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
