/**
 * Liberal in what a 2026-07-28 upstream sends: that revision says every result carries
 * `resultType`, and the SDK v2 client refuses one without it ("missing required resultType"),
 * but servers in the wild leave it out on a plain result (the conformance project's own
 * reference server does on its streamed path) and answer correctly otherwise. A result without
 * `resultType` is read as `complete` — the meaning the revision gives the common case — before
 * the client decodes it, and said once per server config; every other field passes untouched.
 *
 * The same client also refuses every result type it does not know, and the tasks extension adds
 * one: a `tools/call` answered with a task (`resultType: "task"`). Such a result reaches the
 * client as a complete one with the task under `_meta[CREATED_TASK_META]`, for the leg to read
 * back (tasks.ts); a server sends it only to a request that declared the extension.
 */
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import type { ServerConfig } from "../../config/mod.ts";
import type { Logger } from "../../shared/log.ts";
import { CREATED_TASK_META } from "./tasks.ts";

/** Server configs already warned about (a reload's new config is warned about again). */
const warned = new WeakSet<ServerConfig>();

type OnMessage = NonNullable<Transport["onmessage"]>;

/**
 * Makes `transport` hand its client results with `resultType` filled in (`complete`) when the
 * server left it out. Installed before the client connects: whatever handler the client sets
 * as `onmessage` is wrapped.
 */
export function lenientResults(transport: Transport, server: ServerConfig, log?: Logger): void {
  // Each handler set gets its own wrapper: one that chains the handler it read before (as the
  // SDK's Protocol does) then calls that wrapper, never itself.
  const wrap = (fn: OnMessage | undefined): OnMessage | undefined =>
    fn && ((message, extra) => fn(completed(message, server, log), extra));
  let current = wrap(transport.onmessage);
  Object.defineProperty(transport, "onmessage", {
    configurable: true,
    enumerable: true,
    get: () => current,
    set: (fn: OnMessage | undefined) => (current = wrap(fn)),
  });
}

/** `message` itself, or a copy of a result lacking `resultType` with it set to `complete`. */
export function completed(
  message: JSONRPCMessage,
  server: ServerConfig,
  log?: Logger,
): JSONRPCMessage {
  const result = (message as { result?: unknown }).result;
  if (result === null || typeof result !== "object" || Array.isArray(result)) return message;
  if ((result as { resultType?: unknown }).resultType === "task") {
    const { resultType: _, _meta, ...task } = result as Record<string, unknown>;
    const meta = { ...(_meta as Record<string, unknown> | undefined), [CREATED_TASK_META]: task };
    return {
      ...message,
      // `isError`: the client checks no output schema against this stand-in for a tool result.
      result: { resultType: "complete", content: [], isError: true, _meta: meta },
    } as JSONRPCMessage;
  }
  if ("resultType" in result) return message;
  if (!warned.has(server)) {
    warned.add(server);
    log?.warn("upstream result without resultType read as complete (logged once per server)", {
      server: server.name,
    });
  }
  return { ...message, result: { ...result, resultType: "complete" } } as JSONRPCMessage;
}
