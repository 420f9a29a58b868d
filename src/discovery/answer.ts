/**
 * The text blocks of the discovery answers. The structured content carries the data; the text is
 * a short readable form of it for clients that show only text, not a second copy of the data.
 */
import type { ServerSummary } from "./browse.ts";
import { summarize } from "./summary.ts";
import type { SearchResult, ToolDescription } from "./types.ts";

/**
 * `Tools A–B of TOTAL`, then one line per hit: its name and the other servers offering it. Scores
 * and summaries are data, in the structured content only: a line per hit is what a reader needs
 * to pick one, and every repeated field costs each search a few dozen tokens.
 */
export function searchText(result: SearchResult, offset = 0): string {
  if (result.items.length === 0) return `No tool matches (${result.total} in total).`;
  const to = offset + result.items.length;
  const head = `Tools ${offset + 1}–${to} of ${result.total}` +
    (result.has_more ? ` (next offset ${result.next_offset})` : "") + ":";
  const lines = result.items.map((i) => {
    const others = (i.servers ?? []).filter((s) => s !== i.server);
    return `${i.name}${others.length > 0 ? ` (also on ${others.join(", ")})` : ""}`;
  });
  return [head, ...lines].join("\n");
}

/** The signature and the description's first sentence (the whole text is in the data). */
export function describeText(d: ToolDescription): string {
  const first = summarize(d.description);
  return first === "" ? d.signature : `${d.signature}\n${first}`;
}

/** The server names; counts and topics are in the structured content. */
export function browseText(servers: readonly ServerSummary[]): string {
  const tools = servers.reduce((sum, s) => sum + s.tools, 0);
  const names = servers.map((s) => s.server ?? "(gateway)").join(", ");
  return `${servers.length} servers, ${tools} tools (counts and topics in structuredContent; ` +
    `tool_search {server} lists one's tools): ${names}`;
}
