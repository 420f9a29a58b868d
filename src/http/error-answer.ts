/**
 * @module The answer to a request refused or failed before the MCP layer answered it, mapped
 * from the gateway's string codes: one function for the security chain's refusals (`security/
 * chain.ts`), the `POST /mcp` pre-dispatch and hono's `onError` (`app.ts`), so a refusal reads
 * the same whichever of them answers it.
 */
import type { Gateway } from "../gateway/mod.ts";
import { GatewayError, httpStatusOf, messageOf } from "../shared/errors.ts";
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
    headers: headersOf(err),
  });
}

/**
 * Headers an error answer must carry: when to retry. The auth challenge of a 401 is put on by the
 * security chain (`addChallenge`), which knows whether OAuth is configured.
 */
function headersOf(err: unknown): Record<string, string> {
  if (!(err instanceof GatewayError)) return {};
  const retryAfter = err.data?.retryAfter;
  if (err.code === "RATE_LIMITED" && typeof retryAfter === "number") {
    return { "Retry-After": String(retryAfter) };
  }
  return {};
}
