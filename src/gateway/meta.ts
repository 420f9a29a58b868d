/**
 * The discovery meta-tools `tool_search` and `tool_describe`: agents find tools without loading
 * every schema. The search index is rebuilt lazily when the catalog changes, one per token
 * scope, profile and catalog (an identity with per-user connections has its own).
 */
import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import {
  buildSearchIndex,
  describeTool,
  type SearchIndex,
  type SearchResult,
  suggestNames,
  type ToolDescription,
} from "../discovery/mod.ts";
import { GatewayError } from "../shared/errors.ts";
import type { Gateway } from "./gateway.ts";
import type { VisibleTool } from "./tool-views.ts";
import type { Caller, LocalTool, LocalToolProvider } from "./types.ts";

/** Names of the meta-tools. */
export const META_TOOL_NAMES = ["tool_search", "tool_describe"] as const;

const SEARCH_TOOL: Tool = {
  name: "tool_search",
  description:
    "Search every tool behind this gateway, including ones not listed, by words in their " +
    "names, descriptions, parameters and keywords. Returns ranked {name, server, description, score} " +
    "items with total and has_more; call a found tool by its name, or tool_describe it first.",
  inputSchema: {
    type: "object",
    properties: {
      query: { type: "string", description: "Words describing what you need, e.g. 'read file'" },
      server: { type: "string", description: "Only tools of this server" },
      limit: { type: "integer", minimum: 1, maximum: 100, default: 10 },
      offset: { type: "integer", minimum: 0, default: 0 },
    },
    required: ["query"],
  },
};

const DESCRIBE_TOOL: Tool = {
  name: "tool_describe",
  description: "Describe one tool: its full input schema, output schema and a compact signature.",
  inputSchema: {
    type: "object",
    properties: { name: { type: "string", description: "Exact tool name from tool_search" } },
    required: ["name"],
  },
};

/**
 * Serves the meta-tools for a gateway. `enabled()` decides whether the whole catalog's
 * endpoint has them now; a profile with `exposure: search` makes them exist too, but then only
 * callers whose exposure is `search` get them (their `shownWith`).
 */
export class MetaTools implements LocalToolProvider {
  #gateway: Gateway;
  #enabled: () => boolean;
  #indexes = new Map<
    string,
    { version: number; index: SearchIndex; tools: Map<string, VisibleTool> }
  >();

  constructor(gateway: Gateway, enabled: () => boolean) {
    this.#gateway = gateway;
    this.#enabled = enabled;
  }

  localTools(): readonly LocalTool[] {
    const forProfiles = this.#gateway.config.profiles.some((p) => p.exposure === "search");
    if (!this.#enabled() && !forProfiles) return [];
    return [
      this.#tool(SEARCH_TOOL, (args, caller) => ok(this.search(caller, args))),
      this.#tool(
        DESCRIBE_TOOL,
        (args, caller) => ok(this.describe(caller, String(args.name ?? ""))),
      ),
    ];
  }

  /** Ranked search over what this caller may find. */
  search(caller: Caller, args: Record<string, unknown>): SearchResult {
    const query = args.query;
    if (typeof query !== "string") {
      throw new GatewayError("INVALID_ARGUMENTS", "tool_search: query must be a string");
    }
    const num = (v: unknown, name: string): number | undefined => {
      if (v === undefined || v === null) return undefined;
      if (typeof v !== "number" || !Number.isInteger(v) || v < 0) {
        throw new GatewayError(
          "INVALID_ARGUMENTS",
          `tool_search: ${name} must be a non-negative integer`,
        );
      }
      return v;
    };
    const limit = num(args.limit, "limit");
    const offset = num(args.offset, "offset");
    return this.#index(caller).index.search(query, {
      ...(typeof args.server === "string" ? { server: args.server } : {}),
      ...(limit === undefined ? {} : { limit }),
      ...(offset === undefined ? {} : { offset }),
    });
  }

  /** Full description of one tool this caller may find. */
  describe(caller: Caller, name: string): ToolDescription {
    const { tools } = this.#index(caller);
    const found = tools.get(name);
    if (!found) {
      const near = suggestNames(name, [...tools.keys()]);
      const hint = near.length ? `; did you mean ${near.map((n) => `"${n}"`).join(", ")}?` : "";
      throw new GatewayError("TOOL_NOT_FOUND", `unknown tool "${name}"${hint}`, {
        data: { suggestions: near },
      });
    }
    return describeTool({ ...found.tool, server: found.server });
  }

  #index(caller: Caller) {
    const globs = caller.toolGlobs === null ? "" : JSON.stringify(caller.toolGlobs);
    const key = `${this.#gateway.viewOf(caller).user}\0${caller.profile ?? ""}\0${globs}`;
    const version = this.#gateway.version;
    const cached = this.#indexes.get(key);
    if (cached && cached.version === version) return cached;
    const visible = this.#gateway.visibleTools(caller)
      .filter((t) => !(META_TOOL_NAMES as readonly string[]).includes(t.tool.name));
    const tools = new Map(visible.map((t) => [t.tool.name, t]));
    const index = buildSearchIndex(visible.map((t) => ({
      name: t.tool.name,
      server: t.server,
      description: t.tool.description ?? "",
      inputSchema: t.tool.inputSchema,
      keywords: t.keywords,
    })));
    const entry = { version, index, tools };
    if (this.#indexes.size > 64) this.#indexes.clear();
    this.#indexes.set(key, entry);
    return entry;
  }

  #tool(
    tool: Tool,
    run: (args: Record<string, unknown>, caller: Caller) => CallToolResult,
  ): LocalTool {
    return {
      tool,
      server: null,
      discoverable: false,
      alwaysListed: true,
      shownWith: (exposure) => exposure === "search" || this.#enabled(),
      call: (args, caller) => {
        try {
          return Promise.resolve(run(args, caller));
        } catch (err) {
          if (
            err instanceof GatewayError &&
            (err.code === "INVALID_ARGUMENTS" || err.code === "TOOL_NOT_FOUND")
          ) {
            return Promise.resolve({
              content: [{ type: "text", text: err.message }],
              isError: true,
            });
          }
          return Promise.reject(err);
        }
      },
    };
  }
}

function ok(value: object): CallToolResult {
  return {
    content: [{ type: "text", text: JSON.stringify(value) }],
    structuredContent: value as Record<string, unknown>,
  };
}
