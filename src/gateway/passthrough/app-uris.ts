/**
 * The one mapping of MCP Apps URIs (the `io.modelcontextprotocol/ui` extension). Hosts render
 * only `ui://` resources, and two servers may both serve `ui://charts/view.html`, so every
 * `ui://` URI an upstream gives is exposed with its server put in front, always:
 *
 *     ui://<rest>  of server s   ⇄   ui://s/<rest>
 *
 * It stays a `ui://` URI, cannot collide (the first segment names the server, and no `ui://`
 * URI is ever exposed unmapped) and is reversed by cutting the first segment. The same mapping
 * serves `resources/list`, `resources/templates/list`, `resources/read` (request and contents),
 * the `_meta.ui.resourceUri` and legacy `_meta["ui/resourceUri"]` of tools, and resource links
 * in tool results. Every other `_meta` key passes untouched.
 */
import type { CallToolResult, Tool } from "../../shared/protocol.ts";

/** Scheme of MCP Apps resources. */
export const APP_SCHEME = "ui://";

/** The legacy flat key some servers and hosts still use for a tool's view. */
export const LEGACY_RESOURCE_URI_KEY = "ui/resourceUri";

/** True for a `ui://` URI (or URI template). */
export function isAppUri(uri: string): boolean {
  return uri.startsWith(APP_SCHEME);
}

/** The exposed form of an upstream `ui://` URI of `server`. */
export function exposeAppUri(server: string, uri: string): string {
  return `${APP_SCHEME}${server}/${uri.slice(APP_SCHEME.length)}`;
}

/** Reverses {@link exposeAppUri}: the server and its own URI, or `undefined` for another URI. */
export function upstreamAppUri(uri: string): { server: string; uri: string } | undefined {
  if (!isAppUri(uri)) return undefined;
  const rest = uri.slice(APP_SCHEME.length);
  const slash = rest.indexOf("/");
  if (slash <= 0) return undefined;
  return { server: rest.slice(0, slash), uri: APP_SCHEME + rest.slice(slash + 1) };
}

/**
 * A tool's definition with its view URIs exposed: `_meta.ui.resourceUri` and the legacy key
 * are mapped when they are `ui://` strings; everything else (and key order) is kept.
 */
export function exposeToolMeta(server: string, tool: Tool): Tool {
  const meta = tool._meta as Record<string, unknown> | undefined;
  if (!meta) return tool;
  const next = mapViewKeys(
    meta,
    (v) => typeof v === "string" && isAppUri(v) ? exposeAppUri(server, v) : v,
  );
  return next === meta ? tool : { ...tool, _meta: next };
}

/** The MCP Apps extension's key in a client's `capabilities.extensions`. */
export const UI_EXTENSION_KEY = "io.modelcontextprotocol/ui";

/**
 * True when a client declared the MCP Apps extension: it is a host that renders views, and
 * filters view-only tools from its model itself, so it is listed them.
 */
export function rendersApps(capabilities: unknown): boolean {
  const extensions = (capabilities as { extensions?: unknown } | null | undefined)?.extensions;
  if (extensions === null || typeof extensions !== "object") return false;
  return Object.hasOwn(extensions, UI_EXTENSION_KEY) &&
    (extensions as Record<string, unknown>)[UI_EXTENSION_KEY] != null;
}

/**
 * True for a tool meant for views only: its `_meta.ui.visibility` is a list without `"model"`.
 * Such a tool is kept out of what a model lists and searches, and stays callable.
 */
export function appOnly(tool: Tool): boolean {
  const ui = (tool._meta as Record<string, unknown> | undefined)?.ui as
    | { visibility?: unknown }
    | undefined;
  return Array.isArray(ui?.visibility) && !ui.visibility.includes("model");
}

/**
 * The server a host says a view came from: the request's `_meta.ui.resourceUri` (or the legacy
 * key) holding an exposed `ui://` URI; `undefined` without such a hint.
 */
export function viewServerOf(meta: Record<string, unknown> | undefined): string | undefined {
  if (!meta) return undefined;
  const ui = meta.ui as { resourceUri?: unknown } | undefined;
  const uri = typeof ui?.resourceUri === "string" ? ui.resourceUri : meta[LEGACY_RESOURCE_URI_KEY];
  return typeof uri === "string" ? upstreamAppUri(uri)?.server : undefined;
}

/**
 * A request's `_meta` as `server` is sent it: a view hint naming one of its own views (see
 * {@link viewServerOf}) carries the URI the server knows, the way `resources/read` maps back.
 */
export function upstreamRequestMeta(
  meta: Record<string, unknown>,
  server: string,
): Record<string, unknown> {
  return mapViewKeys(meta, (v) => {
    const app = typeof v === "string" ? upstreamAppUri(v) : undefined;
    return app?.server === server ? app.uri : v;
  });
}

/**
 * `meta` with `map` applied to `ui.resourceUri` and the legacy key; `meta` itself when neither
 * changes. Other keys, and their order, are kept.
 */
function mapViewKeys(
  meta: Record<string, unknown>,
  map: (value: unknown) => unknown,
): Record<string, unknown> {
  const ui = meta.ui as Record<string, unknown> | undefined;
  const legacy = meta[LEGACY_RESOURCE_URI_KEY];
  const mapsUi = ui !== null && typeof ui === "object" && map(ui.resourceUri) !== ui.resourceUri;
  const mapsLegacy = map(legacy) !== legacy;
  if (!mapsUi && !mapsLegacy) return meta;
  const next: Record<string, unknown> = { ...meta };
  if (mapsUi) next.ui = { ...ui, resourceUri: map(ui!.resourceUri) };
  if (mapsLegacy) next[LEGACY_RESOURCE_URI_KEY] = map(legacy);
  return next;
}

/**
 * A tool result of `server` with the URIs of its resource links and embedded resources exposed
 * by `expose` (the same function `resources/read` uses); the result itself when nothing
 * changes, so a result kept as its raw JSON text is still sent as that text.
 */
export function exposeResultUris(
  result: CallToolResult,
  expose: (server: string, uri: string) => string,
  server: string,
): CallToolResult {
  const content = result.content;
  if (!Array.isArray(content)) return result;
  // Most results carry no link: they are handed on without a copy of their content.
  let links = false;
  for (let i = 0; i < content.length && !links; i++) {
    const type = content[i]?.type;
    links = type === "resource_link" || type === "resource";
  }
  return links ? withExposedLinks(result, content, expose, server) : result;
}

/**
 * {@link exposeResultUris} of a result that has links. A function of its own: its closure's
 * scope is then made only for such results, not for every result scanned.
 */
function withExposedLinks(
  result: CallToolResult,
  content: CallToolResult["content"],
  expose: (server: string, uri: string) => string,
  server: string,
): CallToolResult {
  let changed = false;
  const next = content.map((c) => {
    if (c.type === "resource_link") {
      const uri = expose(server, c.uri);
      if (uri === c.uri) return c;
      changed = true;
      return { ...c, uri };
    }
    if (c.type === "resource") {
      const uri = expose(server, c.resource.uri);
      if (uri === c.resource.uri) return c;
      changed = true;
      return { ...c, resource: { ...c.resource, uri } };
    }
    return c;
  });
  return changed ? { ...result, content: next } : result;
}
