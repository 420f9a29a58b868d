/**
 * The JSON text a value arrived as, kept beside the parsed value so an answer that needs no
 * rewriting can be sent on as the bytes that came in instead of being serialised again (for a
 * 1 MB tool result that is most of the gateway's work). The text is tied to the object by a
 * `WeakMap`: whatever builds a new result (outage results, scripts, tasks) has none, and only
 * a writer that asks for it uses it.
 *
 * Never mutate a value that carries raw text: the text would no longer match it.
 */

const RAW = new WeakMap<object, string>();
/** The UTF-8 bytes of the text in {@link RAW}, where they were at hand (see {@link rawBytesOf}). */
const RAW_BYTES = new WeakMap<object, Uint8Array>();

/**
 * Marks `value` as having arrived as `text` (its exact JSON serialisation) and, when given, as
 * `bytes` (exactly `text` in UTF-8); returns `value`.
 */
export function withRawJson<T extends object>(value: T, text: string, bytes?: Uint8Array): T {
  RAW.set(value, text);
  if (bytes !== undefined) RAW_BYTES.set(value, bytes);
  return value;
}

/**
 * The UTF-8 bytes `value` arrived as (a long line read off a pipe), if they were kept: a large
 * answer is written from them instead of from one more copy of its text.
 */
export function rawBytesOf(value: unknown): Uint8Array | undefined {
  return typeof value === "object" && value !== null ? RAW_BYTES.get(value) : undefined;
}

/** The JSON text `value` arrived as, if it was marked by {@link withRawJson}. */
export function rawJsonOf(value: unknown): string | undefined {
  return typeof value === "object" && value !== null ? RAW.get(value) : undefined;
}

/**
 * The text of the `result` member of a JSON-RPC response `line` that `JSON.parse` has already
 * turned into `msg`, found without a second parse: only when `msg` has exactly the members
 * `result`, `jsonrpc` and `id` and the line is laid out as the TypeScript SDK writes it
 * (`{"result":R,"jsonrpc":"2.0","id":ID}`) or as compact JSON with `result` last
 * (`{"jsonrpc":"2.0","id":ID,"result":R}`). Since the line is valid JSON and the members around
 * `R` close the top-level object, `R` is exactly the result's text. Anything else: `undefined`.
 */
export function rawResultOf(line: string, msg: Record<string, unknown>): string | undefined {
  const span = resultSpan(line, msg);
  return span && line.slice(span[0], span[1]);
}

/**
 * As {@link rawResultOf}, with the result's bytes cut from `lineBytes` (when given), the UTF-8
 * that `line` was decoded from, where that cut is sure: the members around the result are ASCII
 * (one byte per character, so the offsets carry over) and the line holds no U+FFFD (the
 * decoder's mark for invalid UTF-8, whose bytes would not be the text's).
 */
export function rawResultWithBytes(
  line: string,
  msg: Record<string, unknown>,
  lineBytes: Uint8Array | undefined,
): { text: string; bytes: Uint8Array | undefined } | undefined {
  const span = resultSpan(line, msg);
  if (span === undefined) return undefined;
  const [start, end] = span;
  const text = line.slice(start, end);
  const tailChars = line.length - end;
  const sure = lineBytes !== undefined && isAscii(line, 0, start) &&
    isAscii(line, end, line.length) && !line.includes("\uFFFD");
  return {
    text,
    bytes: sure ? lineBytes.subarray(start, lineBytes.length - tailChars) : undefined,
  };
}

/** True when `s` has only ASCII characters from `from` to `to` (a few dozen at most here). */
function isAscii(s: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) if (s.charCodeAt(i) > 0x7f) return false;
  return true;
}

/** Where the result's text starts and ends in `line` (see {@link rawResultOf}). */
function resultSpan(line: string, msg: Record<string, unknown>): [number, number] | undefined {
  if (!("result" in msg) || msg.jsonrpc !== "2.0") return undefined;
  let members = 0;
  for (const _ in msg) members++;
  if (members !== 3) return undefined;
  const id = JSON.stringify(msg.id);
  const sdkTail = `,"jsonrpc":"2.0","id":${id}}`;
  if (line.startsWith('{"result":') && line.endsWith(sdkTail)) {
    return [10, line.length - sdkTail.length];
  }
  const compactHead = `{"jsonrpc":"2.0","id":${id},"result":`;
  if (line.startsWith(compactHead) && line.endsWith("}")) {
    return [compactHead.length, line.length - 1];
  }
  return undefined;
}
