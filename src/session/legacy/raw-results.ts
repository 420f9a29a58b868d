/**
 * Tool results of one session that arrived from an upstream as raw JSON (`shared/raw-json.ts`),
 * held by request id from the moment its `tools/call` handler returns one until the transport
 * sends its answer. The SDK's server checks a `tools/call` result against its schema and sends
 * the checked copy, which has lost the raw text; with the original at hand the transport writes
 * the answer from the bytes the result arrived as (a 1 MB result: no serialisation, no joined
 * text, no encoding), byte for byte what it would have written from the copy (the result schema
 * keeps unknown members, and a result with `content` takes none of its defaults).
 *
 * An entry lives only between two steps of one promise chain (the handler's result, then the
 * SDK's send); a call cancelled by then is never held, the answer's send takes it out whatever
 * it carries, and a session's close drops what is left. At most {@link MAX_HELD} are held. A
 * client that has two calls with one id in flight (JSON-RPC forbids it, nothing stops it) could
 * have both results held at once under that id: then neither is, and both answers are written
 * from their checked copies, each with its own result.
 */
import { rawBytesOf, rawJsonOf } from "../../shared/raw-json.ts";

/** More than this many answers between a handler and its send is not a session's normal life. */
const MAX_HELD = 16;
/** Held under an id two results arrived for: the answers of that id are written from their copies. */
const AMBIGUOUS: object = Object.freeze({});

/** See the module comment. */
export class RawResults {
  readonly #held = new Map<string | number, object>();

  /**
   * `called`, which notes its result for request `id` on the way when it carries raw JSON, has
   * `content` and the call was not cancelled (`signal`) by the time it resolved.
   */
  keepOn<T>(called: Promise<T>, id: string | number, signal: AbortSignal): Promise<T> {
    return called.then((result) => {
      if (!signal.aborted && worthHolding(result)) {
        if (this.#held.size >= MAX_HELD) this.#held.clear();
        this.#held.set(id, this.#held.has(id) ? AMBIGUOUS : result);
      }
      return result;
    });
  }

  /** The original result of the answer `message` sends, if one is held; it is let go either way. */
  take(message: object): object | undefined {
    const id = (message as { id?: unknown }).id;
    if (typeof id !== "string" && typeof id !== "number") return undefined;
    const held = this.#held.get(id);
    if (held === undefined) return undefined;
    // Every answer of an ambiguous id passes here: its mark stays until the held are cleared.
    if (held !== AMBIGUOUS) this.#held.delete(id);
    return "result" in message && held !== AMBIGUOUS ? held : undefined;
  }

  /** Lets every held result go (the session closed). */
  clear(): void {
    this.#held.clear();
  }
}

/** A result with raw text (or bytes) and a `content` list: one an answer can be written from. */
function worthHolding(result: unknown): result is object {
  return (rawBytesOf(result) !== undefined || rawJsonOf(result) !== undefined) &&
    Array.isArray((result as { content?: unknown }).content);
}
