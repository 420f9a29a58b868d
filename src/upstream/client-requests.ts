/**
 * @module What an upstream asks of its client (`sampling/createMessage`, `elicitation/create`,
 * `roots/list`), handed to the core as one plain callback of plain requests: the SDK's request
 * schemas (which the client checks each request against before the handler sees it, and each
 * answer against before it is sent) stay on this side of the boundary, so the core names
 * methods and shapes, never an SDK schema.
 */
import {
  type ClientResult,
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import type { ProtocolRequest } from "../shared/protocol.ts";
import type { UpstreamClient } from "./client.ts";

/** What the core is told beside one upstream request. */
export interface ClientRequestExtra {
  /** Aborted when the upstream cancels its request. */
  readonly signal: AbortSignal;
  /** The request's JSON-RPC id on the upstream's connection (absent for an input round). */
  readonly requestId?: string | number;
}

/** Answers one upstream request: the result the client gave, or throws its refusal. */
export type ClientRequestHandler = (
  request: ProtocolRequest,
  extra: ClientRequestExtra,
) => Promise<unknown>;

/**
 * Registers `handle` for the requests an upstream may send its client. `roots` false leaves
 * `roots/list` unhandled: the capability is not offered, and the SDK answers it itself with
 * "method not found".
 */
export function answerClientRequests(
  client: UpstreamClient,
  handle: ClientRequestHandler,
  { roots }: { roots: boolean },
): void {
  // The client's answer, whatever its request: the SDK checks it against the request's schema.
  const handler = (request: ProtocolRequest, extra: ClientRequestExtra) =>
    handle(request, extra) as Promise<ClientResult>;
  client.setRequestHandler(CreateMessageRequestSchema, handler);
  client.setRequestHandler(ElicitRequestSchema, handler);
  if (roots) client.setRequestHandler(ListRootsRequestSchema, handler);
}
