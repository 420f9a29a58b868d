/**
 * The three views of the tool set a caller gets: what `tools/list` lists, what search and
 * describe may find, and what a script may call. Each is the local tools (meta-tools, macros,
 * execute) then the upstream catalog, filtered by the caller's {@link Scope}: its token's
 * current globs and, on a profile's endpoint, the profile (`./profiles.ts`). Tools for MCP Apps
 * views only (`appOnly`) are in none of the model's views, yet callable by name; `tools/list`
 * gives them, visibility unchanged, to a host that declared the Apps extension, which keeps them
 * from its model itself (as the extension asks of hosts).
 */
import type { Tool } from "../shared/protocol.ts";
import { callerAllows } from "./access.ts";
import type { Catalog, ToolEntry } from "./catalog.ts";
import type { ProfileView } from "./profiles.ts";
import type { Caller, LocalTool } from "./types.ts";

/** A tool as the search and describe features see it. */
export interface VisibleTool {
  readonly tool: Tool;
  readonly server: string | null;
  readonly keywords: readonly string[];
  readonly discoverable: boolean;
}

/** What narrows one caller's view: its token, its profile, and the exposure that applies. */
export interface Scope {
  readonly caller: Caller;
  /** The caller's profile; `null` = the whole catalog. */
  readonly view: ProfileView | null;
  /** The profile's exposure, else the gateway's. */
  readonly exposure: "all" | "search";
}

/** Local tools by exposed name, as the gateway holds them. */
type LocalTools = ReadonlyMap<string, LocalTool>;

/** True when the scope reaches the local tool (before hidden/listed rules). */
export function reachesLocal(scope: Scope, t: LocalTool): boolean {
  if (t.shownWith && !t.shownWith(scope.exposure)) return false;
  if (scope.view && !scope.view.local(t)) return false;
  return callerAllows(scope.caller, t.tool.name);
}

/** True when the scope reaches the upstream tool (before hidden/listed rules). */
export function reachesUpstream(scope: Scope, e: ToolEntry): boolean {
  if (scope.view && !scope.view.upstream(e.name, e.server)) return false;
  return callerAllows(scope.caller, e.name);
}

/** Tools listed to this scope by `tools/list`; `apps`: its client renders MCP Apps views. */
export function listedTools(
  local: LocalTools,
  catalog: Catalog,
  scope: Scope,
  apps = false,
): Tool[] {
  const search = scope.exposure === "search";
  const out: Tool[] = [];
  for (const t of local.values()) {
    if (!reachesLocal(scope, t)) continue;
    if (t.alwaysListed || (!search && !t.discoverable)) out.push(t.tool);
  }
  if (search) return out;
  for (const e of catalog.tools) {
    if (e.hidden || e.discoverable || (e.appOnly && !apps)) continue;
    if (reachesUpstream(scope, e)) out.push(e.tool);
  }
  return out;
}

/** Every tool this scope may find and call (listed or discoverable), for search/describe. */
export function visibleTools(local: LocalTools, catalog: Catalog, scope: Scope): VisibleTool[] {
  const out = visibleLocal(local, scope);
  for (const e of catalog.tools) {
    if (!e.hidden && !e.appOnly && reachesUpstream(scope, e)) {
      out.push({ tool: e.tool, server: e.server, keywords: [], discoverable: e.discoverable });
    }
  }
  return out;
}

/** The local tools of {@link visibleTools}: the part that does not come from the catalog. */
export function visibleLocal(local: LocalTools, scope: Scope): VisibleTool[] {
  const out: VisibleTool[] = [];
  for (const t of local.values()) {
    if (reachesLocal(scope, t)) {
      out.push({
        tool: t.tool,
        server: t.server,
        keywords: t.keywords ?? [],
        discoverable: t.discoverable,
      });
    }
  }
  return out;
}

/** True when two views hold the same tool objects, in order, found the same way. */
export function sameVisible(a: readonly VisibleTool[], b: readonly VisibleTool[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    if (x.tool !== y.tool || x.server !== y.server || x.discoverable !== y.discoverable) {
      return false;
    }
    if (x.keywords.length !== y.keywords.length) return false;
    if (x.keywords.some((k, j) => k !== y.keywords[j])) return false;
  }
  return true;
}

/** Names a script run for this scope may call (`internal`: hidden tools too). */
export function callableNames(
  local: LocalTools,
  catalog: Catalog,
  scope: Scope,
  internal: boolean,
): string[] {
  const names: string[] = [];
  for (const t of local.values()) if (reachesLocal(scope, t)) names.push(t.tool.name);
  for (const e of catalog.tools) {
    if ((internal || (!e.hidden && !e.appOnly)) && reachesUpstream(scope, e)) names.push(e.name);
  }
  return names;
}
