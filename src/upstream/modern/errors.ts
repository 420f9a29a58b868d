/**
 * How the SDK v2 client's connect failures are judged: a pinned negotiation that found no
 * 2026-07-28 server is the era verdict (not a failure under `protocol: auto`); anything else is
 * a start failure in the same words the 1.x path gives. Decided by class and code, never by
 * message text.
 */
import { SdkError, SdkErrorCode } from "@modelcontextprotocol/client";
import { GatewayError, messageOf } from "../../shared/errors.ts";

/** True when the v2 client's pinned negotiation found no 2026-07-28 server. */
export function isEraMismatch(err: unknown): boolean {
  return err instanceof SdkError && err.code === SdkErrorCode.EraNegotiationFailed;
}

/** A connect failure: a probe timeout reads as the handshake timeout, the rest pass as they are. */
export function startError(err: unknown): unknown {
  if (err instanceof SdkError && err.code === SdkErrorCode.RequestTimeout) {
    return new GatewayError("UPSTREAM_TIMEOUT", `no answer to server/discover: ${messageOf(err)}`);
  }
  return err;
}
