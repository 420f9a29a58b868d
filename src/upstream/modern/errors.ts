/**
 * Errors of the SDK v2 client in the shape the rest of the gateway already reads (SDK 1.x
 * `McpError`): a wire error keeps its JSON-RPC code and data, a local timeout or closed
 * connection gets the 1.x code that `Upstream` turns into UPSTREAM_TIMEOUT / UNAVAILABLE.
 * Decided by error class and code, never by message text.
 */
import { ProtocolError, SdkError, SdkErrorCode } from "@modelcontextprotocol/client";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";

/** True when the v2 client's pinned negotiation found no 2026-07-28 server. */
export function isEraMismatch(err: unknown): boolean {
  return err instanceof SdkError && err.code === SdkErrorCode.EraNegotiationFailed;
}

/** The 1.x-shaped error for a v2 client failure; anything else passes unchanged. */
export function toLegacyError(err: unknown): unknown {
  if (err instanceof ProtocolError) {
    return new McpError(err.code, stripPrefix(err.message), err.data);
  }
  if (err instanceof SdkError) {
    if (err.code === SdkErrorCode.RequestTimeout) {
      return new McpError(ErrorCode.RequestTimeout, err.message, err.data);
    }
    if (err.code === SdkErrorCode.ConnectionClosed || err.code === SdkErrorCode.NotConnected) {
      return new McpError(ErrorCode.ConnectionClosed, err.message, err.data);
    }
    return new McpError(ErrorCode.InternalError, err.message, { sdkCode: err.code });
  }
  return err;
}

/** McpError adds its own `MCP error <code>: ` prefix; do not carry the v2 one twice. */
function stripPrefix(message: string): string {
  return message.replace(/^MCP error -?\d+: /, "");
}
