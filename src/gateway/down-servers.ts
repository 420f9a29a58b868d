/**
 * Tool names of servers that never came up. A server that failed before its first `tools/list`
 * has no catalog, so its tools are not listed; an agent that calls one anyway (from an earlier
 * session, a prompt, a config it read) should learn that the server is down and why — not
 * that the tool does not exist.
 */
import type { Upstream } from "../upstream/mod.ts";
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
  let match: { upstream: Upstream; head: string } | undefined;
  for (const u of upstreams) {
    if (!u.config.enabled || !u.config.prefix || u.catalog.tools.length > 0) continue;
    if (u.state !== "down" && u.state !== "starting" && u.state !== "needs-login") continue;
    const head = sanitise(`${u.name}${separator}`);
    if (name.length <= head.length || !name.startsWith(head)) continue;
    if (!match || head.length > match.head.length) match = { upstream: u, head };
  }
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
