/**
 * Calls by upstream name (`gateway.unprefixedCalls`, on by default). An MCP Apps view knows its
 * server's tools by the names that server gives them (`chart_data`), not by the gateway's
 * (`charts__chart_data`), and its host sends the view's calls as they are. A `tools/call` whose
 * name the gateway does not expose is therefore routed to the one upstream tool of that name the
 * caller may call — narrowed to the view's own server when the host names the view's resource
 * (`_meta.ui.resourceUri` of the request). Several candidates are refused, naming them; none is
 * the usual unknown tool. Each candidate passes the same checks as a call by its gateway name,
 * so a token's globs apply unchanged.
 */
import { GatewayError } from "../shared/errors.ts";
import type { Catalog, ToolEntry } from "./catalog.ts";

/**
 * The one catalog entry an unprefixed call of `name` reaches, or `undefined` when none does.
 * `allowed` answers whether the caller may call an entry by its gateway name (hidden tools and
 * a token's globs refuse); `server` narrows the candidates to the view's server.
 */
export function unprefixedTarget(
  catalog: Catalog,
  name: string,
  allowed: (entry: ToolEntry) => boolean,
  server: string | undefined,
): ToolEntry | undefined {
  const candidates = catalog.tools.filter((e) =>
    e.upstreamName === name && (server === undefined || e.server === server) && allowed(e)
  );
  if (candidates.length <= 1) return candidates[0];
  const names = candidates.map((e) => e.name);
  throw new GatewayError(
    "TOOL_NOT_FOUND",
    `tool "${name}" is offered by several servers; call it by its gateway name: ${
      names.join(", ")
    }`,
    { data: { tool: name, candidates: names } },
  );
}
