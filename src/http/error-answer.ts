/**
 * @module The answer to a request refused or failed before the MCP layer answered it, mapped
 * from the gateway's string codes: one function for the security chain's refusals (`security/
 * chain.ts`), the `POST /mcp` pre-dispatch and hono's `onError` (`app.ts`), so a refusal reads
 * the same whichever of them answers it.
 */
import type { Gateway } from "../gateway/mod.ts";
import { GatewayError, httpStatusOf, messageOf, RETRY_AFTER_S } from "../shared/errors.ts";
import { plainError } from "./front-door.ts";

/** The answer to `err`, thrown while serving `path`; a 5xx is logged, a 500 says nothing. */
export function errorResponse(gateway: Gateway, err: unknown, path: string): Response {
  const status = httpStatusOf(err);
  if (status >= 500) gateway.log.error("request failed", { path, error: messageOf(err) });
  // A 500 says nothing about the server: its message may carry file paths; the log has it.
  if (status === 500) {
    return plainError(500, -32603, "Internal error (details are in the gateway's log)");
  }
  const code = err instanceof GatewayError ? err.code : "INTERNAL";
  return Response.json({ error: { code, message: messageOf(err) } }, {
    status,
    headers: headersOf(err, status),
  });
}

/**
 * Headers an error answer must carry: when to retry, on every `429` and `503` (the limit's own
 * wait when it knows one). The auth challenge of a 401 is put on by the security chain
 * (`addChallenge`), which knows whether OAuth is configured.
 */
function headersOf(err: unknown, status: number): Record<string, string> {
  if (status !== 429 && status !== 503) return {};
  const retryAfter = err instanceof GatewayError ? err.data?.retryAfter : undefined;
  const seconds = typeof retryAfter === "number" ? retryAfter : RETRY_AFTER_S;
  return { "Retry-After": String(seconds) };
}
