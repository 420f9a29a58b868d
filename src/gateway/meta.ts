/**
 * The discovery meta-tools `tool_search` and `tool_describe`: agents find tools without loading
 * every schema. The search index is rebuilt lazily when what a scope finds changes, one per token
 * scope, profile and catalog (an identity with per-user connections has its own).
 */
import type { CallToolResult, Tool } from "../shared/protocol.ts";
import {
  browseServers,
  buildSearchIndex,
  describeTool,
  searchFused,
  type SearchIndex,
  type SearchResult,
  SemanticRanker,
  type SemanticStats,
  type ServerSummary,
  suggestNames,
  type ToolDescription,
  type ToolDescriptor,
} from "../discovery/mod.ts";
import { onCompacted } from "../runtime/mod.ts";
import { GatewayError } from "../shared/errors.ts";
import { sameVisibleInputs, type VisibleInputs } from "./caller-views.ts";
import { DESCRIBE_TOOL, describeAnswer, SEARCH_TOOL, searchAnswer } from "./meta-answers.ts";
import type { Gateway } from "./gateway.ts";
import { sameVisible, type VisibleTool } from "./tool-views.ts";
import { type Caller, LOCAL_CALLER, type LocalTool, type LocalToolProvider } from "./types.ts";

/** Names of the meta-tools. */
export const META_TOOL_NAMES = ["tool_search", "tool_describe"] as const;

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
    {
      inputs: VisibleInputs;
      index: SearchIndex;
      tools: Map<string, VisibleTool>;
      visible: readonly VisibleTool[];
    }
  >();

  #descriptors = new WeakMap<Tool, ToolDescriptor>();
  #ranker: { key: string; ranker: SemanticRanker } | null = null;
  #warming = false;

  constructor(gateway: Gateway, enabled: () => boolean) {
    this.#gateway = gateway;
    this.#enabled = enabled;
    // Off the request path: after each change of the tool list the whole catalog's index is
    // built in the background, so the first search finds it ready, and every tool's terms are
    // cached for the indexes of narrower scopes (tokens, profiles) built on demand.
    gateway.subscribe({
      toolsChanged: () => this.#warmSoon(),
      promptsChanged: () => {},
      resourcesChanged: () => {},
    });
    // A heap compaction drops the runtime's compiled code with the garbage: the first search
    // after one would run the ranking interpreted. Searches off the request path compile it again.
    const off = onCompacted(() => this.#warmSoon());
    gateway.onStop(async () => off());
  }

  #warmSoon(): void {
    if (this.#warming) return;
    this.#warming = true;
    setTimeout(() => {
      this.#warming = false;
      if (this.localTools().length === 0) return;
      try {
        const { index } = this.#index(LOCAL_CALLER);
        // The whole answer (ranking, summaries, its text), unless the semantic half would ask
        // its endpoint: then the lexical ranking alone.
        const whole = this.#semantic() === null;
        for (const query of warmQueries(index)) {
          if (whole) void searchAnswer(this, LOCAL_CALLER, { query }).catch(() => {});
          else index.search(query);
        }
      } catch (err) {
        this.#gateway.log.debug("search index warm-up failed", {
          error: err instanceof Error ? err.message : String(err),
        });
      }
    }, 0);
  }

  localTools(): readonly LocalTool[] {
    const forProfiles = this.#gateway.config.profiles.some((p) => p.exposure === "search");
    if (!this.#enabled() && !forProfiles) return [];
    return [
      this.#tool(SEARCH_TOOL, (args, caller) => searchAnswer(this, caller, args)),
      this.#tool(DESCRIBE_TOOL, (args, caller) => describeAnswer(this, caller, args)),
    ];
  }

  /** The servers this caller may search, with tool counts and what they are about. */
  browse(caller: Caller): ServerSummary[] {
    return browseServers(this.#index(caller).index);
  }

  /**
   * Ranked search fused with the semantic ranking when `discovery.embeddings` is set; the
   * lexical ranking alone when it is not, or when the endpoint cannot answer.
   */
  async searchFused(caller: Caller, args: Record<string, unknown>): Promise<SearchResult> {
    const ranker = this.#semantic();
    const lexical = this.search(caller, args);
    if (ranker === null || String(args.query ?? "").trim() === "") return lexical;
    const server = typeof args.server === "string" ? args.server : undefined;
    const fused = await searchFused(this.#index(caller).index, ranker, String(args.query), {
      server,
      limit: args.limit as number | undefined,
      offset: args.offset as number | undefined,
    });
    return fused ?? lexical;
  }

  /** Counters of the semantic ranking; `null` when it is not configured. */
  semanticStats(): SemanticStats | null {
    return this.#semantic()?.stats ?? null;
  }

  // One ranker per embeddings setting: a reload that changes it starts a new one.
  #semantic(): SemanticRanker | null {
    const config = this.#gateway.config.discovery.embeddings;
    if (config === null) return null;
    const key = JSON.stringify(config);
    if (this.#ranker?.key !== key) {
      const ranker = new SemanticRanker(
        config,
        this.#gateway.log,
        this.#gateway.config.gateway.state,
      );
      this.#ranker = { key, ranker };
    }
    return this.#ranker.ranker;
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
    const out = describeTool({ ...found.tool, server: found.server });
    const also = this.#index(caller).index.copiesOf(name).filter((n) => n !== name);
    if (also.length > 0) out.also = also;
    return out;
  }

  /** Whether this caller's index is built for the tools it may find now. */
  hasIndex(caller: Caller): boolean {
    const cached = this.#indexes.get(this.#scopeKey(caller));
    if (!cached) return false;
    return sameVisibleInputs(cached.inputs, this.#gateway.visibleInputs(caller)) ||
      sameVisible(cached.visible, this.#visible(caller));
  }

  // One index per user view (per-user servers' own catalogs), token scope and profile.
  #scopeKey(caller: Caller): string {
    const globs = caller.toolGlobs === null ? "" : JSON.stringify(caller.toolGlobs);
    return `${this.#gateway.viewOf(caller).user}\0${caller.profile ?? ""}\0${globs}`;
  }

  #index(caller: Caller) {
    const key = this.#scopeKey(caller);
    const inputs = this.#gateway.visibleInputs(caller);
    const cached = this.#indexes.get(key);
    // A rebuild that left the catalog's entries as they were (a restart, a pins review, another
    // identity's change) keeps the index without filtering the catalog again: a rebuild keeps
    // one entry object per unchanged tool. Else the view itself is compared: a reload that
    // changed nothing this scope finds keeps it too.
    if (cached && sameVisibleInputs(cached.inputs, inputs)) {
      cached.inputs = inputs;
      return cached;
    }
    const visible = this.#visible(caller);
    if (cached && sameVisible(cached.visible, visible)) {
      cached.inputs = inputs;
      return cached;
    }
    const tools = new Map(visible.map((t) => [t.tool.name, t]));
    const index = buildSearchIndex(visible.map((t) => this.#descriptor(t)));
    const entry = { inputs, index, tools, visible };
    if (this.#indexes.size > 64) this.#indexes.clear();
    this.#indexes.set(key, entry);
    return entry;
  }

  // What search and describe may find for this caller (not the meta-tools themselves).
  #visible(caller: Caller): VisibleTool[] {
    return this.#gateway.visibleTools(caller)
      .filter((t) => !(META_TOOL_NAMES as readonly string[]).includes(t.tool.name));
  }

  // What search sees of a tool; the name without its server prefix is what makes two servers'
  // copies of one tool the same definition. Kept per tool object, so an index rebuilt after a
  // catalog change re-reads only the tools that changed (discovery caches their terms).
  #descriptor(t: VisibleTool): ToolDescriptor {
    const known = this.#descriptors.get(t.tool);
    if (
      known !== undefined && known.server === t.server &&
      JSON.stringify(known.keywords ?? []) === JSON.stringify(t.keywords)
    ) {
      return known;
    }
    const made = this.#describe(t);
    this.#descriptors.set(t.tool, made);
    return made;
  }

  #describe(t: VisibleTool): ToolDescriptor {
    const { tool, server } = t;
    const head = server === null ? "" : `${server}${this.#gateway.config.gateway.separator}`;
    const title = tool.title ?? tool.annotations?.title;
    return {
      name: tool.name,
      server,
      description: tool.description ?? "",
      inputSchema: tool.inputSchema,
      keywords: t.keywords,
      ...(title === undefined ? {} : { title }),
      ...(head !== "" && tool.name.startsWith(head) && tool.name.length > head.length
        ? { localName: tool.name.slice(head.length) }
        : {}),
    };
  }

  #tool(
    tool: Tool,
    run: (
      args: Record<string, unknown>,
      caller: Caller,
    ) => CallToolResult | Promise<CallToolResult>,
  ): LocalTool {
    return {
      tool,
      server: null,
      discoverable: false,
      alwaysListed: true,
      shownWith: (exposure) => exposure === "search" || this.#enabled(),
      call: async (args, options) => {
        try {
          return await run(args, options.caller);
        } catch (err) {
          if (
            err instanceof GatewayError &&
            (err.code === "INVALID_ARGUMENTS" || err.code === "TOOL_NOT_FOUND")
          ) {
            return { content: [{ type: "text", text: err.message }], isError: true };
          }
          throw err;
        }
      },
    };
  }
}

/**
 * Queries from `index`'s first tool's own words (its description, its name, the start of its
 * name), so a search for each runs every stage of the ranking.
 */
function warmQueries(index: SearchIndex): string[] {
  const doc = index.data.docs[0];
  if (doc === undefined) return [];
  const name = doc.localName ?? doc.name;
  const words = (doc.description ?? "").split(/\s+/).slice(0, 8).join(" ");
  return [words, name, name.slice(0, 4)];
}
