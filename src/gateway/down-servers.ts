/**
 * Names of servers that never came up. A server that failed before its first lists has no
 * catalog, so its tools, prompts and resources are not listed; an agent that asks for one anyway
 * (from an earlier session, a prompt, a config it read) should learn that the server is down and
 * why — not that the tool, prompt or resource does not exist.
 */
import type { Upstream, UpstreamCatalog } from "../upstream/mod.ts";
import type { ToolEntry } from "./catalog.ts";
import { sanitise } from "./names.ts";

/**
 * An entry routing `<server><separator><anything>` to a configured, enabled, prefixed server
 * that is down (or restarting, or needs a login) with no known tools; the call then fails as any call to a down
 * server does (an `isError` result with the reason). `undefined` when no such server matches.
 */
export function downServerEntry(
  name: string,
  upstreams: readonly Upstream[],
  separator: string,
): ToolEntry | undefined {
  const match = downServerNamed(name, upstreams, separator, "tools");
  if (!match) return undefined;
  return {
    name,
    server: match.upstream.name,
    upstreamName: name.slice(match.head.length),
    tool: { name, inputSchema: { type: "object" } },
    hidden: false,
    discoverable: false,
    appOnly: false,
  };
}

/** A server that is down, restarting or needs a login, and of which no `kind` is known. */
function unknownWhileDown(u: Upstream, kinds: readonly (keyof UpstreamCatalog)[]): boolean {
  if (!u.config.enabled || kinds.some((k) => u.catalog[k].length > 0)) return false;
  return u.state === "down" || u.state === "starting" || u.state === "needs-login";
}

/**
 * The down server (see {@link unknownWhileDown}) whose exposed prefix `name` carries — the
 * longest such prefix — and that prefix; `undefined` when none matches.
 */
export function downServerNamed(
  name: string,
  upstreams: readonly Upstream[],
  separator: string,
  kind: keyof UpstreamCatalog,
): { upstream: Upstream; head: string } | undefined {
  let match: { upstream: Upstream; head: string } | undefined;
  for (const u of upstreams) {
    if (!u.config.prefix || !unknownWhileDown(u, [kind])) continue;
    const head = sanitise(`${u.name}${separator}`);
    if (name.length <= head.length || !name.startsWith(head)) continue;
    if (!match || head.length > match.head.length) match = { upstream: u, head };
  }
  return match;
}

/**
 * The servers that may offer a resource nobody up offers: down (see {@link unknownWhileDown})
 * with no resources or templates known.
 */
export function downResourceServers(upstreams: readonly Upstream[]): Upstream[] {
  return upstreams.filter((u) => unknownWhileDown(u, ["resources", "resourceTemplates"]));
}
