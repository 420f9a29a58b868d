/**
 * @module The upstream leg of a tool call, after the call path has admitted, observed and routed
 * it: the server's result filters screen it, it is sent on the caller's process (the shared one,
 * the caller's own connection of a per-user server, or its own process of an isolated one, with
 * the connect-link round when a login is missing), and the result's resource URIs are named as
 * the client knows them. An outage becomes an `isError` result unless the context asks for it
 * thrown. Every call is one small record ({@link UpstreamCall}) handed to functions made once per
 * gateway, so the road itself makes no closure per call.
 */
import type { CallToolResult } from "../shared/protocol.ts";
import type { CallContext } from "../shared/call-context.ts";
import { GatewayError } from "../shared/errors.ts";
import type { Upstream } from "../upstream/mod.ts";
import type { CallNotes } from "./call-records.ts";
import type { ToolEntry } from "./catalog.ts";
import { filterContext, screenProgress, screenRpcError } from "./filters/mod.ts";
import type { Gateway } from "./gateway.ts";
import { outageOf, outageResult } from "./outcome.ts";
import { mayOfferConnect, withConnectRound } from "./passthrough/connect-round.ts";
import { exposeResultUris, exposeUri, upstreamRequestMeta } from "./passthrough/mod.ts";
import { childContext } from "./call-context.ts";

/** What one upstream tool call hands the process that serves it. */
interface UpstreamCall {
  /** The server's shared upstream (the caller's own process, if any, is found from it). */
  readonly shared: Upstream;
  readonly target: ToolEntry;
  readonly args: Record<string, unknown> | undefined;
  readonly options: CallContext;
}

/** The upstream tool calls of one gateway. */
export class UpstreamCalls {
  readonly #gateway: Gateway;

  constructor(gateway: Gateway) {
    this.#gateway = gateway;
  }

  /** Calls `target` upstream for `options.caller`; `notes` hears the filters that acted. */
  async call(
    target: ToolEntry,
    args: Record<string, unknown> | undefined,
    options: CallContext,
    notes: CallNotes,
  ): Promise<CallToolResult> {
    const upstream = this.#gateway.pool.get(target.server);
    // A server without filters (the common case) pays no screen: no context, no promise.
    const filters = this.#gateway.filters;
    const gatewayConfig = this.#gateway.config;
    const screen = filters.none(gatewayConfig, target.server) ? undefined : {
      ...filterContext("tool", target.server, target.name, options),
      ...(target.tool.outputSchema ? { outputSchema: target.tool.outputSchema } : {}),
    };
    if (screen) options = screenProgress(filters, gatewayConfig, screen, options);
    try {
      if (!upstream) {
        throw new GatewayError("UPSTREAM_UNAVAILABLE", `server "${target.server}" is gone`, {
          data: { server: target.server },
        });
      }
      const result = await this.#serve({ shared: upstream, target, args, options });
      let value = result;
      if (screen) {
        const screened = await filters.run(gatewayConfig, screen, result);
        notes.filters.push(...screened.acted);
        value = screened.value;
      }
      // Resource links name URIs as the client knows them (`ui://` views especially).
      return exposeResultUris(value, this.#exposeUri, target.server);
    } catch (err) {
      const outage = options.outagesThrow ? undefined : outageOf(err);
      if (outage) return outageResult(outage);
      throw screen ? screenRpcError(filters, gatewayConfig, screen, err) : err;
    }
  }

  /**
   * Sends `call` on its caller's process: tracked in flight, on the caller's own process of an
   * `isolation: session` server, or on the caller's own connection of a per-user server (whose
   * connect link the client may be asked to open within the call).
   */
  #serve(call: UpstreamCall): Promise<CallToolResult> {
    const passthrough = this.#gateway.passthrough;
    const { shared: upstream, options } = call;
    if (mayOfferConnect(upstream, options.caller.tokenName)) return this.#serveConnecting(call);
    return passthrough.serve(upstream, options, this.#callOn, call);
  }

  /**
   * {@link #serve} with the connect-link round: a function of its own, so the calls that cannot
   * need one make none of its closures (nor the scope they would keep).
   */
  #serveConnecting(call: UpstreamCall): Promise<CallToolResult> {
    const passthrough = this.#gateway.passthrough;
    const { shared: upstream, options } = call;
    return withConnectRound(
      passthrough,
      upstream,
      options,
      options.caller.tokenName,
      (who) => this.#gateway.upstreamAuth.connectHint(upstream.config, who),
      () => passthrough.serve(upstream, options, this.#callOn, call),
    );
  }

  /** One tool call on the process that serves it: one function for every call. */
  readonly #callOn = (serving: Upstream, call: UpstreamCall): Promise<CallToolResult> => {
    const { target, options } = call;
    // A 2026-07-28 upstream's input rounds belong to this call: they go to its client.
    const input = this.#gateway.passthrough.inputRelay(serving, call.shared, options);
    // The context goes on as it came; only a view URI of this server is mapped back.
    const meta = options.meta && upstreamRequestMeta(options.meta, target.server);
    const context = meta === options.meta ? options : childContext(options, { meta });
    return serving.callTool(target.upstreamName, call.args, context, input);
  };

  /** A result's resource URI as the client knows it. */
  readonly #exposeUri = (server: string, uri: string): string =>
    exposeUri(this.#gateway.resources, server, uri);
}
