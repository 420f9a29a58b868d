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

/** Marks `value` as having arrived as `text` (its exact JSON serialisation); returns `value`. */
export function withRawJson<T extends object>(value: T, text: string): T {
  RAW.set(value, text);
  return value;
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
  if (!("result" in msg) || msg.jsonrpc !== "2.0") return undefined;
  let members = 0;
  for (const _ in msg) members++;
  if (members !== 3) return undefined;
  const id = JSON.stringify(msg.id);
  const sdkTail = `,"jsonrpc":"2.0","id":${id}}`;
  if (line.startsWith('{"result":') && line.endsWith(sdkTail)) {
    return line.slice(10, line.length - sdkTail.length);
  }
  const compactHead = `{"jsonrpc":"2.0","id":${id},"result":`;
  if (line.startsWith(compactHead) && line.endsWith("}")) {
    return line.slice(compactHead.length, -1);
  }
  return undefined;
}
