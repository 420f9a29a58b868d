/**
 * Resource requests of one session: the aggregated `resources/list` and
 * `resources/templates/list` (paged by the gateway), `resources/read` routed by URI, and
 * `resources/subscribe` / `unsubscribe` shared through the hub. Each session sees only the
 * resources of the servers its token reaches; a URI of another server is answered as unknown.
 */
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ReadResourceRequestSchema,
  type ReadResourceResult,
  ReadResourceResultSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { GatewayError, onWire } from "../../shared/errors.ts";
import type { Gateway } from "../gateway.ts";
import { page } from "../paging.ts";
import type { SessionLink } from "./link.ts";
import { exposeUri, resolveResource, type ResourceTarget } from "./resource-index.ts";

/** Installs the resource handlers on a session server. */
export function registerResources(
  server: Server,
  gateway: Gateway,
  link: SessionLink,
  pageSize: number | undefined,
): void {
  const hub = gateway.passthrough;

  server.setRequestHandler(ListResourcesRequestSchema, (req) =>
    onWire(() => {
      hub.touch(link);
      const index = gateway.resources;
      const visible = index.resources.filter((r) => link.sees(index.byUri.get(r.uri)!.server));
      const { items, nextCursor } = page(visible, req.params?.cursor, pageSize);
      return nextCursor ? { resources: items, nextCursor } : { resources: items };
    }));

  server.setRequestHandler(ListResourceTemplatesRequestSchema, (req) =>
    onWire(() => {
      hub.touch(link);
      const index = gateway.resources;
      const visible = index.templates.filter((t) =>
        link.sees(index.byTemplate.get(t.uriTemplate)!.server)
      );
      const { items, nextCursor } = page(visible, req.params?.cursor, pageSize);
      return nextCursor ? { resourceTemplates: items, nextCursor } : { resourceTemplates: items };
    }));

  server.setRequestHandler(ReadResourceRequestSchema, (req, extra) =>
    onWire(async () => {
      hub.touch(link);
      const target = targetOf(gateway, req.params.uri, link);
      const upstream = gateway.pool.get(target.server);
      if (!upstream) {
        throw new GatewayError("UPSTREAM_UNAVAILABLE", `server "${target.server}" is gone`);
      }
      const result = await upstream.request(
        "resources/read",
        { ...req.params, uri: target.uri },
        ReadResourceResultSchema,
        { signal: extra.signal },
      ) as ReadResourceResult;
      return exposeContents(gateway, target, req.params.uri, result);
    }));

  server.setRequestHandler(SubscribeRequestSchema, (req) =>
    onWire(async () => {
      hub.touch(link);
      await hub.subscribe(link, targetOf(gateway, req.params.uri, link), req.params.uri);
      return {};
    }));

  server.setRequestHandler(UnsubscribeRequestSchema, (req) =>
    onWire(async () => {
      hub.touch(link);
      await hub.unsubscribe(link, targetOf(gateway, req.params.uri));
      return {};
    }));
}

/**
 * The upstream of `uri`; with `link`, only a server its token reaches — another server's URI is
 * answered exactly like an unknown one, so a narrow token learns nothing about it.
 */
function targetOf(gateway: Gateway, uri: string, link?: SessionLink): ResourceTarget {
  const target = resolveResource(gateway.resources, uri);
  if (!target || (link && !link.sees(target.server))) {
    throw new GatewayError("RESOURCE_NOT_FOUND", `no server offers resource "${uri}"`, {
      data: { uri },
    });
  }
  return target;
}

/** Shows read contents under the URIs the client knows (the requested one for the target). */
function exposeContents(
  gateway: Gateway,
  target: ResourceTarget,
  requested: string,
  result: ReadResourceResult,
): ReadResourceResult {
  if (requested === target.uri) return result;
  const contents = result.contents.map((c) => {
    const uri = c.uri === target.uri
      ? requested
      : exposeUri(gateway.resources, target.server, c.uri);
    return uri === c.uri ? c : { ...c, uri };
  });
  return { ...result, contents };
}
