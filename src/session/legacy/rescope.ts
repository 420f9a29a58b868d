/**
 * Re-scoping an open session when a reload changes its token's globs or its profile. The
 * session's caller already reads both at every check; what is left is telling the client — a
 * `list_changed` for each list it now sees differently (tools, prompts, resources) — and
 * dropping its resource subscriptions on servers it no longer reaches. A token or profile the
 * reload removes is not handled here: the HTTP layer closes its sessions. The servers a caller
 * reaches also change with the catalog (a server gains or loses its last allowed tool): that
 * too sends `resources/list_changed`.
 */
import type { GatewayConfig } from "../../config/mod.ts";
import {
  type ChangeListener,
  configuredToken,
  type Gateway,
  sameGlobs,
  VisibleLists,
} from "../../gateway/mod.ts";
import type { SessionLink } from "../../gateway/passthrough/mod.ts";
import type { Caller } from "../../gateway/types.ts";

/** Tells a session's client that one of its lists changed: sends that (param-less) notification. */
export type ListChanged = (method: ListChangedMethod) => void;

/** The notifications {@link ListChanged} sends. */
export type ListChangedMethod =
  | "notifications/tools/list_changed"
  | "notifications/prompts/list_changed"
  | "notifications/resources/list_changed";

/**
 * Watches what the session of `link` is shown — catalog changes it can see, reloads that
 * re-scope it — and tells its client through `notify`; returns how to stop watching.
 */
export function watchLists(
  gateway: Gateway,
  link: SessionLink,
  caller: () => Caller,
  notify: ListChanged,
): () => void {
  const watcher = new ListWatcher(gateway, link, caller, notify);
  const offCatalog = gateway.subscribe(watcher);
  const offConfig = gateway.observeConfig(watcher.reloaded);
  return () => {
    offCatalog();
    offConfig();
  };
}

/**
 * One session's watcher: one object with its state, not a closure per event, since a session
 * holding its GET stream open holds its watcher as long.
 */
class ListWatcher implements ChangeListener {
  readonly #gateway: Gateway;
  readonly #link: SessionLink;
  readonly #caller: () => Caller;
  readonly #notify: ListChanged;
  readonly #seen: VisibleLists;
  /** The servers the caller reached at the last check (`null`: every server). */
  #reached: ReadonlySet<string> | null;

  constructor(gateway: Gateway, link: SessionLink, caller: () => Caller, notify: ListChanged) {
    this.#gateway = gateway;
    this.#link = link;
    this.#caller = caller;
    this.#notify = notify;
    this.#seen = new VisibleLists(gateway, caller);
    this.#reached = gateway.serversOf(caller());
  }

  toolsChanged(): void {
    if (this.#seen.changed("tools")) this.#notify("notifications/tools/list_changed");
    // A server gaining or losing its last allowed tool changes the servers reached.
    const now = this.#gateway.serversOf(this.#caller());
    if (sameServers(this.#reached, now)) return;
    this.#reached = now;
    this.#notify("notifications/resources/list_changed");
  }

  promptsChanged(): void {
    if (this.#seen.changed("prompts")) this.#notify("notifications/prompts/list_changed");
  }

  resourcesChanged(): void {
    if (this.#seen.changed("resources")) this.#notify("notifications/resources/list_changed");
  }

  /** A reload: re-scopes the session when its token's globs or its profile changed. */
  readonly reloaded = (prev: GatewayConfig, next: GatewayConfig): void => {
    const gateway = this.#gateway;
    const caller = this.#caller;
    const link = this.#link;
    const notify = this.#notify;
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
    if (names(old, prev) !== names(now, next)) notify("notifications/tools/list_changed");
    const prompts = (c: Caller, config: GatewayConfig) =>
      gateway.catalogOf(c).prompts.filter((p) => gateway.reachesPrompt(c, p, config))
        .map((p) => p.name).join("\n");
    if (prompts(old, prev) !== prompts(now, next)) notify("notifications/prompts/list_changed");
    this.#reached = gateway.serversOf(now);
    if (!sameServers(gateway.serversOf(old, prev), this.#reached)) {
      notify("notifications/resources/list_changed");
    }
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
