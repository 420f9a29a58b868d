/**
 * The text blocks of the discovery answers. The structured content carries the data; the text is
 * a short readable form of it for clients that show only text, not a second copy of the data.
 */
import type { ServerSummary } from "./browse.ts";
import type { SearchResult, ToolDescription } from "./types.ts";

/** `N of TOTAL tools`, then one line per hit: name, score, other servers offering it. */
export function searchText(result: SearchResult, offset = 0): string {
  if (result.items.length === 0) return `No tool matches (${result.total} in total).`;
  const to = offset + result.items.length;
  const head = `Tools ${offset + 1}–${to} of ${result.total}` +
    (result.has_more ? ` (next offset ${result.next_offset})` : "") +
    "; summaries in structuredContent, parameters via tool_describe:";
  const lines = result.items.map((i) => {
    const others = (i.servers ?? []).filter((s) => s !== i.server);
    return `${i.name} ${i.score}${others.length > 0 ? ` (also on ${others.join(", ")})` : ""}`;
  });
  return [head, ...lines].join("\n");
}

/** The signature and the first line of the description. */
export function describeText(d: ToolDescription): string {
  const first = d.description.split("\n", 1)[0] ?? "";
  return first === "" ? d.signature : `${d.signature}\n${first}`;
}

/** The server names; counts and topics are in the structured content. */
export function browseText(servers: readonly ServerSummary[]): string {
  const tools = servers.reduce((sum, s) => sum + s.tools, 0);
  const names = servers.map((s) => s.server ?? "(gateway)").join(", ");
  return `${servers.length} servers, ${tools} tools (counts and topics in structuredContent; ` +
    `tool_search {server} lists one's tools): ${names}`;
}
