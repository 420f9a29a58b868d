/**
 * JSON-RPC answers of the `tools/call` fast paths of both eras, written byte for byte as the
 * SDK's servers write them (`{"result":…,"jsonrpc":"2.0","id":…}`,
 * `{"jsonrpc":"2.0","id":…,"error":…}`), so a client cannot tell which path answered
 * (`test/http/fast-path-parity.test.ts`, `test/protocol/modern-isolation.test.ts`). A result
 * that arrived from an upstream as JSON text and was not rewritten on the way (see
 * `shared/raw-json.ts`) is sent on as that text with the client's request id spliced in; an era
 * that stamps members into every result (2026-07-28: `resultType`, `serverInfo`) appends them
 * to that text instead of serialising the result again.
 */
import { noteReleased } from "../runtime/mod.ts";
import { rawBytesOf, rawJsonOf } from "../shared/raw-json.ts";

/** An answer this long is large: once sent, the heap it passed through is worth giving back. */
const LARGE_ANSWER = 256 * 1024;

/** Members an era adds to the results it sends. */
export interface ResultStamp {
  /** True when `result` has none of the stamped members: they can be appended to its text. */
  appendable(result: Record<string, unknown>): boolean;
  /** The members as JSON text (`"a":1,"b":2`), appended when {@link appendable}. */
  readonly text: string;
  /** The stamped result as an object, for every other case. */
  apply(result: Record<string, unknown>): Record<string, unknown>;
}

/** The answer carrying `result` for request `id`, stamped for its era when `stamp` is given. */
export function resultAnswer(id: string | number, result: unknown, stamp?: ResultStamp): string {
  const raw = rawJsonOf(result);
  const plain = result as Record<string, unknown>;
  const answer = raw !== undefined && (!stamp || stamp.appendable(plain))
    ? `{"result":${stamp ? appendMembers(raw, stamp.text) : raw},"jsonrpc":"2.0","id":${
      JSON.stringify(id)
    }}`
    : JSON.stringify({ result: stamp ? stamp.apply(plain) : result, jsonrpc: "2.0", id });
  // The result's text, the answer and its encoded bytes become garbage once it is sent (a
  // collection gives them back once releases pause).
  if (answer.length >= LARGE_ANSWER) noteReleased(answer.length * 3, "buffers");
  return answer;
}

/**
 * As {@link resultAnswer}, as the body of an HTTP answer: a result that arrived with its bytes
 * (a long line off a stdio pipe, `rawBytesOf`) is written from those bytes, between the answer's
 * head and tail, in slices as the socket takes them — the same bytes as the text answer, without
 * making that text (one more copy of the whole result). An era's stamp goes in the tail, before
 * the result's closing brace, when it can be appended (an appendable result has `content`, so
 * the stamp always follows a member).
 */
export function resultBody(
  id: string | number,
  result: unknown,
  stamp?: ResultStamp,
): string | ReadableStream<Uint8Array> {
  const parts = resultParts(id, result, stamp);
  return parts === undefined ? resultAnswer(id, result, stamp) : bytesBody(parts);
}

/**
 * The answer of {@link resultBody} as its three parts — the head, the result's own bytes (a view,
 * not a copy) and the tail — when the result arrived with its bytes and the stamp, if any, can
 * be appended; otherwise `undefined` (the caller writes {@link resultAnswer}).
 */
export function resultParts(
  id: string | number,
  result: unknown,
  stamp?: ResultStamp,
): Uint8Array[] | undefined {
  const bytes = rawBytesOf(result);
  if (bytes === undefined || (stamp && !stamp.appendable(result as Record<string, unknown>))) {
    return undefined;
  }
  const end = stamp ? bytes.lastIndexOf(CLOSING_BRACE) : bytes.length;
  if (end < 0) return undefined;
  // The pipe's chunks, the line's bytes and its text become garbage once it is sent.
  noteReleased(bytes.length * 3, "buffers");
  return [
    ENCODER.encode('{"result":'),
    bytes.subarray(0, end),
    ENCODER.encode(
      `${stamp ? `,${stamp.text}}` : ""},"jsonrpc":"2.0","id":${JSON.stringify(id)}}`,
    ),
  ];
}

const CLOSING_BRACE = "}".charCodeAt(0);

/** Slices of the bytes a socket takes at once, so a slow reader leaves no copy behind. */
const SLICE = 256 * 1024;
const ENCODER = new TextEncoder();

/**
 * `parts` as a stream read on demand, a slice at a time (never a byte stream: its reader would
 * take the buffers over, and these are views of the line's bytes).
 */
function bytesBody(parts: Uint8Array[]): ReadableStream<Uint8Array> {
  let part = 0;
  let at = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      const bytes = parts[part];
      if (bytes === undefined) return controller.close();
      const end = Math.min(at + SLICE, bytes.length);
      controller.enqueue(bytes.subarray(at, end));
      at = end;
      if (at < bytes.length) return;
      // Each part is let go once written.
      parts[part++] = EMPTY;
      at = 0;
    },
    cancel() {
      parts.length = 0;
    },
  }, { highWaterMark: 0 });
}

const EMPTY = new Uint8Array(0);

/** The error answer for request `id`. */
export function errorAnswer(
  id: string | number,
  error: { code: number; message: string; data?: unknown },
): string {
  return JSON.stringify({ jsonrpc: "2.0", id, error });
}

/** `members` added at the end of the JSON object text `raw` (which has none of them). */
function appendMembers(raw: string, members: string): string {
  const end = raw.lastIndexOf("}");
  // `{}` (possibly with whitespace) takes no comma; anything else already has a member.
  const empty = end < 64 && raw.slice(raw.indexOf("{") + 1, end).trim() === "";
  return `${raw.slice(0, end)}${empty ? "" : ","}${members}}`;
}
