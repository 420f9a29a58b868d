/**
 * Resource URIs across upstreams. A URI is exposed exactly as its upstream gives it while no
 * other server lists the same one; on a collision the server listed first in the config keeps
 * it and every later one is exposed as `mcpgw://<server>/<encodeURIComponent(uri)>` — a
 * rewrite that is reversed on the way back. Templates follow the same rule, except that their
 * `{…}` expressions stay unencoded so clients can still expand them.
 *
 * MCP Apps URIs (`ui://…`) are the exception: hosts render only that scheme, so they are always
 * exposed as `ui://<server>/<rest>` (./app-uris.ts), collision or not, and resolved only so.
 */
import type { Resource, ResourceTemplate } from "../../shared/protocol.ts";
import { type UriMatcher, uriMatcher } from "../../shared/protocol-checks.ts";
import type { Upstream } from "../../upstream/mod.ts";
import { exposeAppUri, isAppUri, upstreamAppUri } from "./app-uris.ts";

/** Scheme of rewritten URIs. */
export const REWRITE_SCHEME = "mcpgw:";

/** Where an exposed URI lives upstream. */
export interface ResourceTarget {
  readonly server: string;
  /** The URI (or URI template) the upstream knows. */
  readonly uri: string;
}

/** Every exposed resource and template, with the lookups routing needs. */
export interface ResourceIndex {
  readonly resources: readonly Resource[];
  readonly templates: readonly ResourceTemplate[];
  /** Exposed resource URI → target. */
  readonly byUri: ReadonlyMap<string, ResourceTarget>;
  /** Exposed URI template → target. */
  readonly byTemplate: ReadonlyMap<string, ResourceTarget>;
  /** `server\0uri` → exposed URI, for every listed resource. */
  readonly exposed: ReadonlyMap<string, string>;
  /** Upstream URI → the server that keeps it unrewritten. */
  readonly owner: ReadonlyMap<string, string>;
  /** Templates kept unrewritten, to route URIs expanded from them. */
  readonly matchers: readonly { server: string; matches: UriMatcher }[];
  /** `scheme://authority` and `scheme:` → servers listing resources or templates under it. */
  readonly origins: ReadonlyMap<string, ReadonlySet<string>>;
  /** Servers that offer resources at all. */
  readonly servers: readonly string[];
}

/** The rewritten form of an upstream URI. */
export function rewriteUri(server: string, uri: string): string {
  return `${REWRITE_SCHEME}//${server}/${encodeURIComponent(uri)}`;
}

/** The rewritten form of a URI template: literals encoded, `{…}` expressions kept. */
export function rewriteTemplate(server: string, template: string): string {
  const body = template.split(/(\{[^}]*\})/).map((part, i) =>
    i % 2 === 1 ? part : encodeURIComponent(part)
  ).join("");
  return `${REWRITE_SCHEME}//${server}/${body}`;
}

/** Reverses {@link rewriteUri}; `undefined` for any other URI. */
export function unrewriteUri(uri: string): ResourceTarget | undefined {
  const m = /^mcpgw:\/\/([^/]+)\/(.*)$/s.exec(uri);
  if (!m) return undefined;
  try {
    return { server: m[1]!, uri: decodeURIComponent(m[2]!) };
  } catch {
    return undefined;
  }
}

/** Whether a server's resource or template (by its upstream URI) may be listed at all. */
export type ResourceKeep = (server: string, kind: "resource" | "template", uri: string) => boolean;

/**
 * Builds the index over the upstreams that are up, in config order; `keep` leaves out what
 * quarantine holds back (before collisions are settled: a held URI takes no other's name).
 */
export function buildResourceIndex(
  upstreams: readonly Upstream[],
  keep: ResourceKeep = () => true,
): ResourceIndex {
  const resources: Resource[] = [];
  const templates: ResourceTemplate[] = [];
  const byUri = new Map<string, ResourceTarget>();
  const byTemplate = new Map<string, ResourceTarget>();
  const exposed = new Map<string, string>();
  const owner = new Map<string, string>();
  const templateOwner = new Map<string, string>();
  const matchers: { server: string; matches: UriMatcher }[] = [];
  const origins = new Map<string, Set<string>>();
  const servers: string[] = [];
  const addOrigin = (uri: string, server: string) => {
    for (const o of originsOf(uri)) origins.set(o, (origins.get(o) ?? new Set()).add(server));
  };
  for (const u of upstreams) {
    const server = u.name;
    if (u.client?.getServerCapabilities()?.resources) servers.push(server);
    for (const r of u.catalog.resources) {
      if (!keep(server, "resource", r.uri)) continue;
      if (isAppUri(r.uri)) {
        const uri = exposeAppUri(server, r.uri);
        if (byUri.has(uri)) continue;
        byUri.set(uri, { server, uri: r.uri });
        exposed.set(`${server}\0${r.uri}`, uri);
        resources.push({ ...r, uri });
        continue;
      }
      const first = owner.get(r.uri);
      if (first === undefined) owner.set(r.uri, server);
      const uri = first === undefined || first === server ? r.uri : rewriteUri(server, r.uri);
      if (!byUri.has(uri)) {
        byUri.set(uri, { server, uri: r.uri });
        exposed.set(`${server}\0${r.uri}`, uri);
        resources.push(uri === r.uri ? r : { ...r, uri });
      }
      addOrigin(r.uri, server);
    }
    for (const t of u.catalog.resourceTemplates) {
      if (!keep(server, "template", t.uriTemplate)) continue;
      if (isAppUri(t.uriTemplate)) {
        const uriTemplate = exposeAppUri(server, t.uriTemplate);
        if (byTemplate.has(uriTemplate)) continue;
        byTemplate.set(uriTemplate, { server, uri: t.uriTemplate });
        templates.push({ ...t, uriTemplate });
        continue;
      }
      const first = templateOwner.get(t.uriTemplate);
      if (first === undefined) templateOwner.set(t.uriTemplate, server);
      const plain = first === undefined || first === server;
      const uriTemplate = plain ? t.uriTemplate : rewriteTemplate(server, t.uriTemplate);
      if (byTemplate.has(uriTemplate)) continue;
      byTemplate.set(uriTemplate, { server, uri: t.uriTemplate });
      templates.push(plain ? t : { ...t, uriTemplate });
      if (plain) {
        try {
          matchers.push({ server, matches: uriMatcher(t.uriTemplate) });
        } catch { /* a template the SDK cannot parse is still listed, just not matched */ }
      }
      addOrigin(t.uriTemplate, server);
    }
  }
  return { resources, templates, byUri, byTemplate, exposed, owner, matchers, origins, servers };
}

/**
 * Finds the upstream of a URI a client asks for: a `ui://` URI only by its server segment; a
 * rewritten URI names its server; a listed URI
 * is looked up; an unlisted one is matched against the templates kept unrewritten, then goes
 * to the one server using its `scheme://authority`, or else its scheme, if exactly one does;
 * last, to the only server that offers resources, if there is just one.
 */
export function resolveResource(index: ResourceIndex, uri: string): ResourceTarget | undefined {
  if (isAppUri(uri)) {
    const app = upstreamAppUri(uri);
    return app && index.servers.includes(app.server) ? app : undefined;
  }
  const rewritten = unrewriteUri(uri);
  if (rewritten) return index.servers.includes(rewritten.server) ? rewritten : undefined;
  const listed = index.byUri.get(uri);
  if (listed) return listed;
  for (const m of index.matchers) {
    if (m.matches(uri)) return { server: m.server, uri };
  }
  for (const o of originsOf(uri)) {
    const owners = index.origins.get(o);
    if (owners?.size === 1) return { server: [...owners][0]!, uri };
    if (owners) break;
  }
  if (index.servers.length === 1) return { server: index.servers[0]!, uri };
  return undefined;
}

/** Finds the upstream of an exposed URI template (for completions). */
export function resolveTemplate(index: ResourceIndex, uri: string): ResourceTarget | undefined {
  return index.byTemplate.get(uri) ?? resolveResource(index, uri);
}

/** The URI a client sees for an upstream URI of `server` (in notifications and read results). */
export function exposeUri(index: ResourceIndex, server: string, uri: string): string {
  if (isAppUri(uri)) return exposeAppUri(server, uri);
  const listed = index.exposed.get(`${server}\0${uri}`);
  if (listed !== undefined) return listed;
  const first = index.owner.get(uri);
  return first === undefined || first === server ? uri : rewriteUri(server, uri);
}

/** `scheme://authority` (when there is one) and then `scheme:`, most specific first. */
function originsOf(uri: string): string[] {
  const m = /^([a-zA-Z][a-zA-Z0-9+.-]*:)(\/\/[^/?#{]*)?/.exec(uri);
  if (!m) return [];
  return m[2] ? [m[0].toLowerCase(), m[1]!.toLowerCase()] : [m[1]!.toLowerCase()];
}
