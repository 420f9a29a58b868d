/**
 * `completion/complete`, routed by its reference: a prompt reference by exposed prompt name
 * (renamed to the upstream's), a resource reference by exposed URI template or URI (mapped back
 * to the upstream's). An upstream without the completions capability gives no suggestions. A
 * prompt follows the token's globs (as `prompts/get` does); a template, the servers the token
 * reaches — anything else is answered as unknown.
 */
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CompleteRequestSchema, CompleteResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { GatewayError, onWire } from "../../shared/errors.ts";
import { callerAllows } from "../access.ts";
import type { Gateway } from "../gateway.ts";
import type { SessionLink } from "./link.ts";
import { resolveTemplate } from "./resource-index.ts";

const NO_VALUES = { completion: { values: [], hasMore: false } };

/** Installs the completion handler on a session server. */
export function registerCompletions(server: Server, gateway: Gateway, link: SessionLink): void {
  server.setRequestHandler(CompleteRequestSchema, (req, extra) =>
    onWire(async () => {
      gateway.passthrough.touch(link);
      const ref = req.params.ref;
      let target: { server: string; ref: typeof ref };
      if (ref.type === "ref/prompt") {
        const entry = gateway.catalog.promptsByName.get(ref.name);
        if (!entry || !callerAllows(link.caller(), ref.name)) {
          throw new GatewayError("PROMPT_NOT_FOUND", `unknown prompt "${ref.name}"`);
        }
        target = { server: entry.server, ref: { ...ref, name: entry.upstreamName } };
      } else {
        const found = resolveTemplate(gateway.resources, ref.uri);
        if (!found || !link.sees(found.server)) {
          throw new GatewayError("RESOURCE_NOT_FOUND", `no server offers "${ref.uri}"`);
        }
        target = { server: found.server, ref: { ...ref, uri: found.uri } };
      }
      const upstream = gateway.pool.get(target.server);
      if (!upstream?.client) {
        throw upstream?.unavailable() ??
          new GatewayError("UPSTREAM_UNAVAILABLE", `server "${target.server}" is gone`);
      }
      if (!upstream.client.getServerCapabilities()?.completions) return NO_VALUES;
      return await upstream.request(
        "completion/complete",
        { ...req.params, ref: target.ref },
        CompleteResultSchema,
        { signal: extra.signal },
      ) as never;
    }));
}
