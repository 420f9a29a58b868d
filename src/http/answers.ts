/**
 * JSON-RPC answers of the HTTP fast path, written byte for byte as the SDK's session server
 * writes them (`{"result":…,"jsonrpc":"2.0","id":…}`, `{"jsonrpc":"2.0","id":…,"error":…}`), so
 * a client cannot tell which path answered; `test/http/fast-path-parity.test.ts` holds it. A
 * result that arrived from an upstream as JSON text and was not rewritten on the way (see
 * `shared/raw-json.ts`) is sent on as that text, with the client's request id spliced in.
 */
import { rawJsonOf } from "../shared/raw-json.ts";

/** The answer carrying `result` for request `id`. */
export function resultAnswer(id: string | number, result: unknown): string {
  const raw = rawJsonOf(result);
  if (raw === undefined) return JSON.stringify({ result, jsonrpc: "2.0", id });
  return `{"result":${raw},"jsonrpc":"2.0","id":${JSON.stringify(id)}}`;
}

/** The error answer for request `id`. */
export function errorAnswer(
  id: string | number,
  error: { code: number; message: string; data?: unknown },
): string {
  return JSON.stringify({ jsonrpc: "2.0", id, error });
}
