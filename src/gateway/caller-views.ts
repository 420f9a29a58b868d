/**
 * @module What one caller sees and reaches in the core's catalog: the servers its token's globs
 * and its profile leave it, the tools it is listed, finds and may call, and which tool a name
 * it calls resolves to. Read from the caller's current catalog (the shared one, or its own with
 * what its per-user connections declare: `./user-views.ts`) and local tools at each use, so a
 * reload or a catalog change applies to callers already connected.
 */
import type { Tool } from "../shared/protocol.ts";
import type { GatewayConfig } from "../config/mod.ts";
import { GatewayError } from "../shared/errors.ts";
import { callerAllows } from "./access.ts";
import type { Catalog, PromptEntry, ToolEntry } from "./catalog.ts";
import { downServerEntry } from "./down-servers.ts";
import type { Pins } from "./pinning/mod.ts";
import { type PreparedList, PreparedLists } from "./prepared-lists.ts";
import { profileView } from "./profiles.ts";
import { ServerScopes } from "./server-scopes.ts";
import {
  callableNames,
  listedTools,
  reachesUpstream,
  sameVisible,
  type Scope,
  visibleLocal,
  type VisibleTool,
  visibleTools,
} from "./tool-views.ts";
import type { Caller, LocalTool } from "./types.ts";
import { unprefixedTarget } from "./unprefixed.ts";
import type { CatalogView } from "./user-views.ts";

/** What the views read of the gateway, each time (the gateway itself). */
export interface ViewSource {
  readonly config: GatewayConfig;
  /** The catalog `caller` sees, with the upstreams it was built from. */
  viewOf(caller: Caller): CatalogView;
  readonly localByName: ReadonlyMap<string, LocalTool>;
  readonly pins: Pins;
}

/**
 * What one caller's {@link CallerViews.visibleTools} is made of, cheap to compare (with the
 * caller's scope key: its identity's catalog, profile and token globs): the local tools it
 * finds (a handful, worked out at each read), the catalog's entries and the config that scopes
 * them. A rebuild keeps one entry object per tool that did not change, so equal inputs
 * ({@link sameVisibleInputs}) mean an equal view without filtering the catalog again.
 */
export interface VisibleInputs {
  readonly local: readonly VisibleTool[];
  readonly entries: readonly ToolEntry[];
  readonly config: GatewayConfig;
}

/** True when `a` and `b` (of one scope key) make the same visible tools. */
export function sameVisibleInputs(a: VisibleInputs, b: VisibleInputs): boolean {
  if (a.config !== b.config || !sameVisible(a.local, b.local)) return false;
  if (a.entries === b.entries) return true;
  if (a.entries.length !== b.entries.length) return false;
  for (let i = 0; i < a.entries.length; i++) if (a.entries[i] !== b.entries[i]) return false;
  return true;
}

/** The views of one gateway. */
export class CallerViews {
  readonly #source: ViewSource;
  /** Servers per glob list, valid for one catalog version. */
  #scopes = new ServerScopes();
  /** `tools/list` answers per view, kept per catalog (`./prepared-lists.ts`). */
  readonly #prepared = new PreparedLists();

  constructor(source: ViewSource) {
    this.#source = source;
  }

  /**
   * The upstream servers this caller reaches: those owning at least one tool its token's globs
   * allow (hidden tools do not count), within its profile's servers on a profile's endpoint;
   * `null` = every server (no globs, no profile). `config` (default: the running one) gives the
   * profile's definition: a re-scope compares the one a reload replaced with the new one.
   */
  serversOf(
    caller: Caller,
    config: GatewayConfig = this.#source.config,
  ): ReadonlySet<string> | null {
    const view = profileView(config, caller.profile);
    // Cached for the running config only; another one's profile of the same name differs.
    const scopes = config === this.#source.config ? this.#scopes : new ServerScopes();
    const catalog = this.#source.viewOf(caller).catalog;
    return scopes.serversOf(caller, view, catalog);
  }

  /** True when this caller's prompt list holds `entry` (token globs, then profile servers). */
  reachesPrompt(
    caller: Caller,
    entry: PromptEntry,
    config: GatewayConfig = this.#source.config,
  ): boolean {
    if (!callerAllows(caller, entry.name)) return false;
    if (caller.profile === null) return true;
    const servers = this.serversOf(caller, config);
    return servers === null || servers.has(entry.server);
  }

  /** What narrows this caller's view under `config`: its token, its profile, the exposure. */
  scope(caller: Caller, config: GatewayConfig = this.#source.config): Scope {
    const view = profileView(config, caller.profile);
    return { caller, view, exposure: view?.exposure ?? config.gateway.exposure };
  }

  /** True when this caller reaches `server` (see {@link serversOf}). */
  sees(caller: Caller, server: string): boolean {
    const servers = this.serversOf(caller);
    return servers === null || servers.has(server);
  }

  /**
   * Tools listed to this caller by `tools/list` (under `config`: default the running one);
   * `apps`: its client declared the MCP Apps extension, so view-only tools are listed too.
   */
  listTools(
    caller: Caller,
    config: GatewayConfig = this.#source.config,
    apps = false,
  ): readonly Tool[] {
    // Another config's list (a re-scope comparing before and after a reload) is never kept.
    if (config !== this.#source.config) {
      return listedTools(
        this.#source.localByName,
        this.#catalog(caller),
        this.scope(caller, config),
        apps,
      );
    }
    return this.preparedList(caller, apps).tools;
  }

  /** This caller's `tools/list`, prepared once per view and catalog (see `listTools`). */
  preparedList(caller: Caller, apps = false): PreparedList {
    const { localByName: local, config } = this.#source;
    const catalog = this.#catalog(caller);
    return this.#prepared.get(
      catalog,
      caller,
      apps,
      local,
      config,
      () => listedTools(local, catalog, this.scope(caller, config), apps),
    );
  }

  /** After a rebuild: the views listed lately are prepared again, off the request path. */
  prepareAgain(): void {
    this.#prepared.prepareAgain((caller, apps) => this.preparedList(caller, apps));
  }

  /** Gives up a preparation under way (the gateway stops). */
  stopPreparing(): void {
    this.#prepared.stop();
  }

  /** Every tool this caller may find and call (listed or discoverable), for search/describe. */
  visibleTools(caller: Caller): VisibleTool[] {
    return visibleTools(this.#source.localByName, this.#catalog(caller), this.scope(caller));
  }

  /** What this caller's {@link visibleTools} are made of, to compare (`sameVisibleInputs`). */
  visibleInputs(caller: Caller): VisibleInputs {
    return {
      local: visibleLocal(this.#source.localByName, this.scope(caller)),
      entries: this.#catalog(caller).tools,
      config: this.#source.config,
    };
  }

  /** Names a script run for this caller may call (hidden tools included: macros may call them). */
  callableNames(caller: Caller, internal: boolean): string[] {
    return callableNames(
      this.#source.localByName,
      this.#catalog(caller),
      this.scope(caller),
      internal,
    );
  }

  /**
   * Finds a tool by exposed name for this caller, or throws TOOL_NOT_FOUND / FORBIDDEN. A name
   * the gateway does not expose may still reach one upstream tool by its upstream name
   * (./unprefixed.ts; `view`: the server of the MCP Apps view the call came from).
   */
  resolveTool(
    name: string,
    caller: Caller,
    internal = false,
    view?: string,
  ): LocalTool | ToolEntry {
    const local = this.#source.localByName.get(name);
    const own = this.#source.viewOf(caller);
    let entry = local ? undefined : own.catalog.toolsByName.get(name);
    const config = this.#source.config;
    // Made only where it is asked for: most calls name a listed tool.
    let scope: Scope | undefined;
    if (!local && !entry) {
      // A server that never came up has no catalog: its names answer "down", not "unknown" (a
      // per-user server the caller has not connected: its connect link). Outside the caller's
      // profile a tool does not exist, as for an unknown name.
      scope = this.scope(caller);
      refuseHeldTool(this.#source.pins, name, scope, internal, own);
      entry = downServerEntry(name, own.upstreams, config.gateway.separator);
      if (!entry && !internal && config.gateway.unprefixedCalls) {
        const found = unprefixedFor(own.catalog, name, scope, view);
        if (found) return found;
      }
    }
    const profile = scope ? scope.view : profileView(config, caller.profile);
    const outside = local
      ? local.shownWith?.((scope ?? this.scope(caller)).exposure) === false ||
        (profile && !profile.local(local))
      : entry && profile && !profile.upstream(entry.name, entry.server);
    if ((!local && (!entry || (entry.hidden && !internal))) || outside) {
      throw new GatewayError("TOOL_NOT_FOUND", `unknown tool "${name}"`, { data: { tool: name } });
    }
    if (!callerAllows(caller, name)) {
      throw new GatewayError(
        "FORBIDDEN",
        `tool "${name}" is not allowed for token "${caller.tokenName}"`,
        {
          data: { tool: name },
        },
      );
    }
    return local ?? entry!;
  }

  #catalog(caller: Caller): Catalog {
    return this.#source.viewOf(caller).catalog;
  }
}

// The rare roads of `resolveTool`, as functions of their own: a closure in it would make every
// call pay the scope the closure holds.

/** Refuses a name held by pinning (quarantined, or changed since it was approved). */
function refuseHeldTool(
  pins: Pins,
  name: string,
  scope: Scope,
  internal: boolean,
  own: CatalogView,
): void {
  pins.refuseHeld("tool", name, (h) => {
    const held = h.entry as ToolEntry;
    return !(held.hidden && !internal) && reachesUpstream(scope, held);
  }, own.user);
}

/** The one upstream tool an unprefixed `name` reaches for this caller, if any. */
function unprefixedFor(
  catalog: Catalog,
  name: string,
  scope: Scope,
  view: string | undefined,
): ToolEntry | undefined {
  const allowed = (e: ToolEntry) => !e.hidden && reachesUpstream(scope, e);
  return unprefixedTarget(catalog, name, allowed, view);
}
