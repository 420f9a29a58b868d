/**
 * The three views of the tool set a caller gets: what `tools/list` lists, what search and
 * describe may find, and what a script may call. Each is the local tools (meta-tools, macros,
 * execute) then the upstream catalog, filtered by the caller's current globs. Tools for MCP Apps
 * views only (`appOnly`) are in none of the model's views, yet callable by name.
 */
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { callerAllows } from "./access.ts";
import type { Catalog } from "./catalog.ts";
import type { Caller, LocalTool } from "./types.ts";

/** A tool as the search and describe features see it. */
export interface VisibleTool {
  readonly tool: Tool;
  readonly server: string | null;
  readonly keywords: readonly string[];
  readonly discoverable: boolean;
}

/** Local tools by exposed name, as the gateway holds them. */
type LocalTools = ReadonlyMap<string, LocalTool>;

/** Tools listed to this caller by `tools/list` (`search`: `exposure: search`). */
export function listedTools(
  local: LocalTools,
  catalog: Catalog,
  caller: Caller,
  search: boolean,
): Tool[] {
  const out: Tool[] = [];
  for (const t of local.values()) {
    if (!callerAllows(caller, t.tool.name)) continue;
    if (t.alwaysListed || (!search && !t.discoverable)) out.push(t.tool);
  }
  if (search) return out;
  for (const e of catalog.tools) {
    if (!e.hidden && !e.discoverable && !e.appOnly && callerAllows(caller, e.name)) {
      out.push(e.tool);
    }
  }
  return out;
}

/** Every tool this caller may find and call (listed or discoverable), for search/describe. */
export function visibleTools(local: LocalTools, catalog: Catalog, caller: Caller): VisibleTool[] {
  const out: VisibleTool[] = [];
  for (const t of local.values()) {
    if (callerAllows(caller, t.tool.name)) {
      out.push({
        tool: t.tool,
        server: t.server,
        keywords: t.keywords ?? [],
        discoverable: t.discoverable,
      });
    }
  }
  for (const e of catalog.tools) {
    if (!e.hidden && !e.appOnly && callerAllows(caller, e.name)) {
      out.push({ tool: e.tool, server: e.server, keywords: [], discoverable: e.discoverable });
    }
  }
  return out;
}

/** Names a script run for this caller may call (`internal`: hidden tools too). */
export function callableNames(
  local: LocalTools,
  catalog: Catalog,
  caller: Caller,
  internal: boolean,
): string[] {
  const names: string[] = [];
  for (const name of local.keys()) if (callerAllows(caller, name)) names.push(name);
  for (const e of catalog.tools) {
    if ((internal || (!e.hidden && !e.appOnly)) && callerAllows(caller, e.name)) {
      names.push(e.name);
    }
  }
  return names;
}
