/**
 * Server-to-client requests: `sampling/createMessage`, `elicitation/create` and `roots/list`
 * from an upstream go to the client session whose tool call caused them — the most recent call
 * still in flight on that upstream (stdio and most servers give no other clue) — and out on that
 * call's stream. `roots/list` outside any call goes to the most recently active session that
 * declared roots. A request no session can take is answered at once with a JSON-RPC error.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { getSupportedElicitationModes } from "@modelcontextprotocol/sdk/client/index.js";
import type { RequestHandlerExtra } from "@modelcontextprotocol/sdk/shared/protocol.js";
import {
  type ClientCapabilities,
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
  type Request,
  ResultSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { GatewayError, onWire } from "../../shared/errors.ts";
import type { Upstream } from "../../upstream/mod.ts";
import type { PassthroughHub } from "./hub.ts";
import type { SessionLink } from "./link.ts";

type Extra = RequestHandlerExtra<never, never>;

/** Installs the three relays on an upstream client. */
export function registerServerRequests(
  hub: PassthroughHub,
  upstream: Upstream,
  client: Client,
): void {
  client.setRequestHandler(
    CreateMessageRequestSchema,
    (req, extra) => relay(hub, upstream, req, extra as Extra) as never,
  );
  client.setRequestHandler(
    ElicitRequestSchema,
    (req, extra) => relay(hub, upstream, req, extra as Extra) as never,
  );
  client.setRequestHandler(
    ListRootsRequestSchema,
    (req, extra) => relay(hub, upstream, req, extra as Extra) as never,
  );
}

/** Sends one upstream request to its session's client and returns the client's answer. */
function relay(hub: PassthroughHub, upstream: Upstream, req: Request, extra: Extra) {
  return onWire(async () => {
    const call = hub.latestCall(upstream.name);
    // A 2026-07-28 client's call: the request becomes an input_required round.
    if (call?.origin) return await call.origin.request(req.method, req.params) as never;
    let session: SessionLink | undefined = call?.session;
    if (!session && req.method === "roots/list") {
      session = hub.latestSession((s) => s.capabilities.roots !== undefined);
    }
    if (!session) {
      throw new GatewayError(
        "UNSUPPORTED",
        `no client session can answer ${req.method} from server "${upstream.name}": ` +
          (req.method === "roots/list"
            ? "no connected client declared roots"
            : "it arrived outside any tool call of this server"),
        { data: { server: upstream.name, method: req.method } },
      );
    }
    const missing = missingCapability(session.capabilities, req);
    if (missing) {
      throw new GatewayError(
        "UNSUPPORTED",
        `the client of the calling session did not declare ${missing}, so it cannot answer ` +
          `${req.method} from server "${upstream.name}"`,
        { data: { server: upstream.name, method: req.method, capability: missing } },
      );
    }
    hub.touch(session);
    return await session.server.request(
      { method: req.method, params: req.params } as never,
      ResultSchema,
      {
        signal: extra.signal,
        timeout: upstream.config.timeoutMs,
        ...(call?.requestId === undefined ? {} : { relatedRequestId: call.requestId }),
      },
    );
  });
}

/**
 * The capability a client lacks for this server-to-client request (`"sampling"`,
 * `"elicitation.url"`, …), or `undefined` when it has it. Both front doors check with it.
 */
export function missingCapability(caps: ClientCapabilities, req: Request): string | undefined {
  const params = (req.params ?? {}) as Record<string, unknown>;
  switch (req.method) {
    case "sampling/createMessage":
      if (!caps.sampling) return "sampling";
      if ((params.tools || params.toolChoice) && !caps.sampling.tools) return "sampling.tools";
      return undefined;
    case "elicitation/create": {
      if (!caps.elicitation) return "elicitation";
      const modes = getSupportedElicitationModes(caps.elicitation);
      if (params.mode === "url") return modes.supportsUrlMode ? undefined : "elicitation.url";
      return modes.supportsFormMode ? undefined : "elicitation.form";
    }
    case "roots/list":
      return caps.roots ? undefined : "roots";
    default:
      return undefined;
  }
}
