/**
 * The one adapter from the gateway core to an SDK v2 server's request handlers. The core
 * answers with its results typed by SDK 1.x (its own wire types); v2 types each method's result
 * by its own schemas, which describe the same wire shapes and which the server checks every
 * result against before it is sent. So the two eras' result types meet in this file only, and
 * every handler's failure becomes the JSON-RPC error the core's error table names.
 */
import type {
  RequestMethod,
  RequestTypeMap,
  Server,
  ServerContext,
} from "@modelcontextprotocol/server";
import { onWire } from "../../shared/errors.ts";

/** Registers `handler` for `method`: its answer or its error goes out through {@link onWire}. */
export function handle<M extends RequestMethod>(
  server: Server,
  method: M,
  handler: (request: RequestTypeMap[M], ctx: ServerContext) => unknown,
): void {
  const wired = (request: RequestTypeMap[M], ctx: ServerContext) =>
    onWire(() => handler(request, ctx));
  // as never: a 1.x-typed result onto v2's per-method result type (checked by the server on send)
  server.setRequestHandler(method, wired as never);
}
