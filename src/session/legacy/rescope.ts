/**
 * Re-scoping an open session when a reload changes its token's globs or its profile. The
 * session's caller already reads both at every check; what is left is telling the client — a
 * `list_changed` for each list it now sees differently (tools, prompts, resources) — and
 * dropping its resource subscriptions on servers it no longer reaches. A token or profile the
 * reload removes is not handled here: the HTTP layer closes its sessions. The servers a caller
 * reaches also change with the catalog (a server gains or loses its last allowed tool): that
 * too sends `resources/list_changed`.
 */
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { GatewayConfig } from "../../config/mod.ts";
import { configuredToken, type Gateway, sameGlobs } from "../../gateway/mod.ts";
import type { SessionLink } from "../../gateway/passthrough/mod.ts";
import type { Caller } from "../../gateway/types.ts";

/** Watches reloads and catalog changes for `server`'s caller; returns how to stop watching. */
export function watchScope(
  server: Server,
  gateway: Gateway,
  link: SessionLink,
  caller: () => Caller,
): () => void {
  let reached = gateway.serversOf(caller());
  const resourcesChanged = () => void server.sendResourceListChanged().catch(() => {});
  const offCatalog = gateway.subscribe({
    toolsChanged: () => {
      const now = gateway.serversOf(caller());
      if (sameServers(reached, now)) return;
      reached = now;
      resourcesChanged();
    },
    promptsChanged: () => {},
    resourcesChanged: () => {},
  });
  const offConfig = gateway.observeConfig((prev, next) => {
    const { sessionId, tokenName, profile } = caller();
    const before = configuredToken(prev, tokenName);
    const after = configuredToken(next, tokenName);
    const tokenChanged = before !== undefined && after !== undefined &&
      !sameGlobs(before.tools, after.tools);
    if (!tokenChanged && !profileChanged(prev, next, profile)) return;
    // The token's globs before and after (an identity not in the list keeps its own).
    const globs = (token: typeof before) => token ? token.tools : caller().toolGlobs;
    const old: Caller = { sessionId, tokenName, toolGlobs: globs(before), profile };
    const now: Caller = { sessionId, tokenName, toolGlobs: globs(after), profile };
    gateway.log.debug("session scope changed; session re-scoped", { tokenName, profile });

    for (const key of [...link.subscriptions.keys()]) {
      const i = key.indexOf("\0");
      const target = { server: key.slice(0, i), uri: key.slice(i + 1) };
      if (!gateway.sees(now, target.server)) {
        void gateway.passthrough.unsubscribe(link, target).catch(() => {});
      }
    }

    const names = (c: Caller, config: GatewayConfig) =>
      gateway.listTools(c, config).map((t) => t.name).join("\n");
    if (names(old, prev) !== names(now, next)) void server.sendToolListChanged().catch(() => {});
    const prompts = (c: Caller, config: GatewayConfig) =>
      gateway.catalogOf(c).prompts.filter((p) => gateway.reachesPrompt(c, p, config))
        .map((p) => p.name).join("\n");
    if (prompts(old, prev) !== prompts(now, next)) {
      void server.sendPromptListChanged().catch(() => {});
    }
    reached = gateway.serversOf(now);
    if (!sameServers(gateway.serversOf(old, prev), reached)) resourcesChanged();
  });
  return () => {
    offCatalog();
    offConfig();
  };
}

/** True when the reload changed the definition of `profile` (never for no profile). */
function profileChanged(prev: GatewayConfig, next: GatewayConfig, profile: string | null) {
  if (profile === null) return false;
  const of = (c: GatewayConfig) => JSON.stringify(c.profiles.find((p) => p.name === profile));
  return of(prev) !== of(next);
}

function sameServers(a: ReadonlySet<string> | null, b: ReadonlySet<string> | null): boolean {
  if (a === null || b === null) return a === b;
  return a.size === b.size && [...a].every((s) => b.has(s));
}
