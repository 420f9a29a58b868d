/**
 * What the runtime's server answers when a request handler throws: a bare JSON-RPC error, never
 * the runtime's own error page (which can show source lines and file paths).
 */

/** A `500` with a JSON-RPC error body and nothing about the server. */
export function internalErrorResponse(): Response {
  return Response.json(
    { jsonrpc: "2.0", id: null, error: { code: -32603, message: "Internal error" } },
    { status: 500 },
  );
}
