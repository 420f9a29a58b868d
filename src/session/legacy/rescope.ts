/**
 * Re-scoping an open session when a reload changes its token's globs. The session's caller
 * already reads the new globs at every check; what is left is telling the client — a
 * `list_changed` for each list its token now sees differently (tools, prompts, resources) — and
 * dropping its resource subscriptions on servers it no longer reaches. A token the reload
 * removes is not handled here: the HTTP layer closes its sessions. The servers a token reaches
 * also change with the catalog (a server gains or loses its last allowed tool): that too sends
 * `resources/list_changed`.
 */
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { callerAllows, configuredToken, type Gateway, sameGlobs } from "../../gateway/mod.ts";
import type { SessionLink } from "../../gateway/passthrough/mod.ts";
import type { Caller } from "../../gateway/types.ts";

/** Watches reloads and catalog changes for `server`'s token; returns how to stop watching. */
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
    const { sessionId, tokenName } = caller();
    const before = configuredToken(prev, tokenName);
    const after = configuredToken(next, tokenName);
    if (!before || !after || sameGlobs(before.tools, after.tools)) return;
    const old: Caller = { sessionId, tokenName, toolGlobs: before.tools };
    const now: Caller = { sessionId, tokenName, toolGlobs: after.tools };
    gateway.log.debug("token scope changed; session re-scoped", { tokenName, sessionId });

    for (const key of [...link.subscriptions.keys()]) {
      const i = key.indexOf("\0");
      const target = { server: key.slice(0, i), uri: key.slice(i + 1) };
      if (!gateway.sees(now, target.server)) {
        void gateway.passthrough.unsubscribe(link, target).catch(() => {});
      }
    }

    const names = (c: Caller) => gateway.listTools(c).map((t) => t.name).join("\n");
    if (names(old) !== names(now)) void server.sendToolListChanged().catch(() => {});
    const prompts = (c: Caller) =>
      gateway.catalog.prompts.filter((p) => callerAllows(c, p.name)).map((p) => p.name).join("\n");
    if (prompts(old) !== prompts(now)) void server.sendPromptListChanged().catch(() => {});
    reached = gateway.serversOf(now);
    if (!sameServers(gateway.serversOf(old), reached)) resourcesChanged();
  });
  return () => {
    offCatalog();
    offConfig();
  };
}

function sameServers(a: ReadonlySet<string> | null, b: ReadonlySet<string> | null): boolean {
  if (a === null || b === null) return a === b;
  return a.size === b.size && [...a].every((s) => b.has(s));
}
