/**
 * What the discovery meta-tools answer: their definitions, and the answers built from
 * {@link MetaTools}' search, browse and describe — a short readable text beside the data.
 */
import type { CallToolResult, Tool } from "../shared/protocol.ts";
import { browseText, describeText, searchText, type ToolDescription } from "../discovery/mod.ts";
import { GatewayError } from "../shared/errors.ts";
import type { MetaTools } from "./meta.ts";
import type { Caller } from "./types.ts";

/** Names one `tool_describe` call may ask for at once. */
const MAX_DESCRIBE_NAMES = 20;
/** Names listed per page when browsing one server. */
const BROWSE_LIMIT = 100;

/** The `tool_search` definition. */
export const SEARCH_TOOL: Tool = {
  name: "tool_search",
  description:
    "Search every tool behind this gateway, including ones not listed, by words in their " +
    "names, descriptions and parameters. Returns ranked {name, server, description (first " +
    "sentence), score} items with total and has_more; call a found tool by its name, or " +
    "tool_describe it for its parameters. Without a query: the servers, their tool counts and " +
    "what they are about; with only a server: that server's tool names.",
  inputSchema: {
    type: "object",
    properties: {
      query: { type: "string", description: "Words describing what you need, e.g. 'read file'" },
      server: { type: "string", description: "Only tools of this server" },
      limit: { type: "integer", minimum: 1, maximum: 100, default: 10 },
      offset: { type: "integer", minimum: 0, default: 0 },
    },
  },
};

/** The `tool_describe` definition. */
export const DESCRIBE_TOOL: Tool = {
  name: "tool_describe",
  description: "Describe tools: a compact signature and parameter shape, parameter notes and " +
    "the output schema. Give one name, or several as names.",
  inputSchema: {
    type: "object",
    properties: {
      name: { type: "string", description: "Exact tool name from tool_search" },
      names: {
        type: "array",
        items: { type: "string" },
        maxItems: MAX_DESCRIBE_NAMES,
        description: "Several exact tool names",
      },
    },
  },
};

/** `tool_search`: a ranked page, or without a query the catalog's shape. */
export async function searchAnswer(
  meta: MetaTools,
  caller: Caller,
  args: Record<string, unknown>,
): Promise<CallToolResult> {
  const query = args.query ?? "";
  if (typeof query !== "string") {
    throw new GatewayError("INVALID_ARGUMENTS", "tool_search: query must be a string");
  }
  if (query.trim() !== "") {
    const found = await meta.searchFused(caller, args);
    return answer(searchText(found, typeof args.offset === "number" ? args.offset : 0), found);
  }
  if (args.server === undefined) {
    const servers = meta.browse(caller);
    return answer(browseText(servers), { servers });
  }
  const page = meta.search(caller, { limit: BROWSE_LIMIT, ...args, query: "" });
  const names = page.items.map((i) => i.name);
  const value = { server: args.server, names, total: page.total, has_more: page.has_more };
  const next = page.next_offset === undefined ? {} : { next_offset: page.next_offset };
  return answer(
    `${page.total} tools of ${String(args.server)}${
      page.has_more ? ` (next offset ${page.next_offset})` : ""
    }:\n${names.join("\n")}`,
    { ...value, ...next },
  );
}

/** `tool_describe`: one tool, or several (`names`) with the unknown ones listed apart. */
export function describeAnswer(
  meta: MetaTools,
  caller: Caller,
  args: Record<string, unknown>,
): CallToolResult {
  const { name, names } = args;
  if (names === undefined) {
    const one = meta.describe(caller, String(name ?? ""));
    return answer(describeText(one), describedData(one));
  }
  if (
    name !== undefined || !Array.isArray(names) || names.length === 0 ||
    names.length > MAX_DESCRIBE_NAMES || !names.every((n) => typeof n === "string")
  ) {
    throw new GatewayError(
      "INVALID_ARGUMENTS",
      `tool_describe: names must be 1–${MAX_DESCRIBE_NAMES} tool names, without name`,
    );
  }
  const tools: ToolDescription[] = [];
  const unknown: { name: string; suggestions: string[] }[] = [];
  for (const n of new Set(names as string[])) {
    try {
      tools.push(meta.describe(caller, n));
    } catch (err) {
      if (!(err instanceof GatewayError) || err.code !== "TOOL_NOT_FOUND") throw err;
      const data = err.data as { suggestions?: string[] } | undefined;
      unknown.push({ name: n, suggestions: data?.suggestions ?? [] });
    }
  }
  const text = [
    ...tools.map(describeText),
    ...unknown.map((u) =>
      `unknown tool "${u.name}"${
        u.suggestions.length ? `; did you mean ${u.suggestions.join(", ")}?` : ""
      }`
    ),
  ].join("\n\n");
  const data = tools.map(describedData);
  return answer(text, unknown.length > 0 ? { tools: data, unknown } : { tools: data });
}

/**
 * A description as the answer's data: without the signature, which the text block carries and
 * which repeats the parameter shape — once in each block is enough for a model reading both.
 */
function describedData(d: ToolDescription): Omit<ToolDescription, "signature"> {
  const { signature: _signature, ...data } = d;
  return data;
}

// The text is a short readable form; the data is in structuredContent only.
function answer(text: string, value: object): CallToolResult {
  return {
    content: [{ type: "text", text }],
    structuredContent: value as Record<string, unknown>,
  };
}
