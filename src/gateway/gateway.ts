/**
 * The gateway core: owns the upstream pool and the aggregated catalog, merges in local tools
 * (meta-tools, macros, execute), routes calls, and tells every session when lists change.
 */
import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import type { GatewayConfig } from "../config/mod.ts";
import { GatewayError, messageOf } from "../shared/errors.ts";
import type { Logger } from "../shared/log.ts";
import { type Upstream, UpstreamPool } from "../upstream/mod.ts";
import { callerAllows } from "./access.ts";
import { buildCatalog, type Catalog, type ToolEntry } from "./catalog.ts";
import {
  buildResourceIndex,
  PassthroughHub,
  relayTaskStatus,
  type ResourceIndex,
  TaskRouter,
} from "./passthrough/mod.ts";
import type { Caller, CallOptions, LocalTool, LocalToolProvider } from "./types.ts";

/** Something that wants to hear about list changes (one per downstream session). */
export interface ChangeListener {
  toolsChanged(): void;
  promptsChanged(): void;
  resourcesChanged(): void;
}

/** One finished tool call, for metrics and the status page. */
export interface CallRecord {
  readonly name: string;
  /** Upstream server, or `null` for local tools. */
  readonly server: string | null;
  readonly tokenName: string | null;
  readonly durationMs: number;
  /** `ok`, `tool_error` (an isError result), or `error` (thrown). */
  readonly outcome: "ok" | "tool_error" | "error";
  readonly error?: string;
  readonly at: number;
}

/** A tool as the search and describe features see it. */
export interface VisibleTool {
  readonly tool: Tool;
  readonly server: string | null;
  readonly keywords: readonly string[];
  readonly discoverable: boolean;
}

/** Gateway lifecycle and routing. */
export class Gateway {
  #config: GatewayConfig;
  readonly pool: UpstreamPool;
  readonly log: Logger;
  /** Pass-through state shared by all sessions (server requests, logging, subscriptions). */
  readonly passthrough: PassthroughHub;
  /** Tasks created through the gateway, routed to the upstreams that own them. */
  readonly tasks: TaskRouter = new TaskRouter(this);
  #catalog: Catalog;
  #resources: ResourceIndex;
  #providers: LocalToolProvider[] = [];
  #local = new Map<string, LocalTool>();
  #listeners = new Set<ChangeListener>();
  #signature = { tools: "", prompts: "", resources: "" };
  #observers: ((call: CallRecord) => void)[] = [];
  #version = 0;
  #closers: (() => Promise<void>)[] = [];

  constructor(config: GatewayConfig, log: Logger) {
    this.#config = config;
    this.log = log;
    this.pool = new UpstreamPool(config.servers, log.child("upstream"), {
      onCatalog: () => this.#rebuild(),
      setup: (upstream, client) => {
        this.passthrough.setupClient(upstream, client);
        relayTaskStatus(this.tasks, upstream, client);
      },
    });
    this.passthrough = new PassthroughHub(
      this.pool,
      () => this.#resources,
      log.child("passthrough"),
    );
    this.#catalog = buildCatalog(config, [], log);
    this.#resources = buildResourceIndex([]);
  }

  /** The running config. */
  get config(): GatewayConfig {
    return this.#config;
  }

  /** The current catalog of upstream tools and prompts. */
  get catalog(): Catalog {
    return this.#catalog;
  }

  /** Every upstream resource and template under its exposed URI. */
  get resources(): ResourceIndex {
    return this.#resources;
  }

  /** Connects every upstream concurrently. */
  async start(onEach?: (u: Upstream) => void): Promise<void> {
    await this.pool.startAll(onEach);
    this.#rebuild();
  }

  /** Stops every upstream, then whatever was registered with {@link onStop} (script workers). */
  async stop(): Promise<void> {
    await this.pool.stopAll();
    await Promise.all(this.#closers.map((c) => c().catch(() => {})));
  }

  /** Registers work to do on {@link stop}. */
  onStop(closer: () => Promise<void>): void {
    this.#closers.push(closer);
  }

  /** Swaps in a new validated config: only changed upstreams restart. */
  async applyConfig(
    config: GatewayConfig,
  ): Promise<{ added: string[]; removed: string[]; changed: string[] }> {
    this.#config = config;
    const diff = await this.pool.apply(config.servers);
    for (const p of this.#providers) await p.applyConfig?.(config);
    this.refreshLocalTools();
    return diff;
  }

  /** Adds a source of local tools (macros, meta-tools). */
  addProvider(provider: LocalToolProvider): void {
    this.#providers.push(provider);
    this.refreshLocalTools();
  }

  /** Re-reads local tools from every provider (after a macro reload). */
  refreshLocalTools(): void {
    this.#local = new Map();
    for (const p of this.#providers) {
      for (const t of p.localTools()) this.#local.set(t.tool.name, t);
    }
    this.#rebuild();
  }

  /** Registers a session for list_changed notifications; returns the unsubscribe function. */
  subscribe(listener: ChangeListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Registers an observer told about every finished tool call (metrics, status page). */
  observeCalls(observer: (call: CallRecord) => void): void {
    this.#observers.push(observer);
  }

  /** Tools listed to this caller by `tools/list`. */
  listTools(caller: Caller): Tool[] {
    const search = this.#config.gateway.exposure === "search";
    const out: Tool[] = [];
    for (const t of this.#local.values()) {
      if (!callerAllows(caller, t.tool.name)) continue;
      if (t.alwaysListed || (!search && !t.discoverable)) out.push(t.tool);
    }
    if (search) return out;
    for (const e of this.#catalog.tools) {
      if (!e.hidden && !e.discoverable && callerAllows(caller, e.name)) out.push(e.tool);
    }
    return out;
  }

  /** Every tool this caller may find and call (listed or discoverable), for search/describe. */
  visibleTools(caller: Caller): VisibleTool[] {
    const out: VisibleTool[] = [];
    for (const t of this.#local.values()) {
      if (callerAllows(caller, t.tool.name)) {
        out.push({
          tool: t.tool,
          server: t.server,
          keywords: t.keywords ?? [],
          discoverable: t.discoverable,
        });
      }
    }
    for (const e of this.#catalog.tools) {
      if (!e.hidden && callerAllows(caller, e.name)) {
        out.push({ tool: e.tool, server: e.server, keywords: [], discoverable: e.discoverable });
      }
    }
    return out;
  }

  /** Names a script run for this caller may call (hidden tools included: macros may call them). */
  callableNames(caller: Caller, internal: boolean): string[] {
    const names: string[] = [];
    for (const name of this.#local.keys()) if (callerAllows(caller, name)) names.push(name);
    for (const e of this.#catalog.tools) {
      if ((internal || !e.hidden) && callerAllows(caller, e.name)) names.push(e.name);
    }
    return names;
  }

  /** Finds a tool by exposed name for this caller, or throws TOOL_NOT_FOUND / FORBIDDEN. */
  resolveTool(name: string, caller: Caller, internal = false): LocalTool | ToolEntry {
    const local = this.#local.get(name);
    const entry = local ? undefined : this.#catalog.toolsByName.get(name);
    if (!local && (!entry || (entry.hidden && !internal))) {
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

  /**
   * Calls a tool. Upstream outages and timeouts become `isError` results (the agent reads them);
   * unknown or forbidden tools throw.
   */
  async callTool(
    name: string,
    args: Record<string, unknown> | undefined,
    caller: Caller,
    options: CallOptions = {},
  ): Promise<CallToolResult> {
    if (this.#observers.length === 0) return await this.#route(name, args, caller, options);
    const started = performance.now();
    let server: string | null = null;
    try {
      const result = await this.#route(name, args, caller, options, (s) => (server = s));
      this.#record({
        name,
        server,
        caller,
        started,
        outcome: result.isError ? "tool_error" : "ok",
      });
      return result;
    } catch (err) {
      this.#record({ name, server, caller, started, outcome: "error", error: messageOf(err) });
      throw err;
    }
  }

  #record(r: {
    name: string;
    server: string | null;
    caller: Caller;
    started: number;
    outcome: CallRecord["outcome"];
    error?: string;
  }): void {
    const call: CallRecord = {
      name: r.name,
      server: r.server,
      tokenName: r.caller.tokenName,
      durationMs: performance.now() - r.started,
      outcome: r.outcome,
      ...(r.error === undefined ? {} : { error: r.error }),
      at: Date.now(),
    };
    for (const o of this.#observers) {
      try {
        o(call);
      } catch { /* an observer must never break a call */ }
    }
  }

  async #route(
    name: string,
    args: Record<string, unknown> | undefined,
    caller: Caller,
    options: CallOptions,
    onServer?: (server: string) => void,
  ): Promise<CallToolResult> {
    const target = this.resolveTool(name, caller, options.internal);
    if ("call" in target) return await target.call(args ?? {}, caller, options);
    onServer?.(target.server);
    const upstream = this.pool.get(target.server);
    // The options object is the in-flight record: no allocation beyond what routing needs.
    if (options.session || options.origin) this.passthrough.track(target.server, options);
    try {
      if (!upstream) {
        throw new GatewayError("UPSTREAM_UNAVAILABLE", `server "${target.server}" is gone`);
      }
      return await upstream.callTool(target.upstreamName, args, {
        ...(options.signal ? { signal: options.signal } : {}),
        ...(options.onprogress
          ? { onprogress: options.onprogress, resetTimeoutOnProgress: true }
          : {}),
        ...(options.meta ? { meta: options.meta } : {}),
      });
    } catch (err) {
      if (
        err instanceof GatewayError &&
        (err.code === "UPSTREAM_UNAVAILABLE" || err.code === "UPSTREAM_TIMEOUT")
      ) {
        return { content: [{ type: "text", text: err.message }], isError: true };
      }
      throw err;
    } finally {
      if (options.session || options.origin) this.passthrough.untrack(target.server, options);
    }
  }

  /** Bumped whenever the catalog or local tools are rebuilt; caches key on it. */
  get version(): number {
    return this.#version;
  }

  #rebuild(): void {
    this.#version++;
    const up = this.pool.all().filter((u) => u.state === "up");
    // Tools and prompts of a server that went down stay listed from its last-known catalog;
    // calls to them answer with the reason. Resources follow live servers only.
    const known = this.pool.all().filter((u) =>
      u.state === "up" || u.state === "down" || u.state === "starting"
    );
    this.#catalog = buildCatalog(this.#config, known, this.log);
    this.#resources = buildResourceIndex(up);
    this.passthrough.onRebuild(up);
    const sig = {
      tools: signature(
        [...this.#local.values()].map((t) => t.tool),
        this.#catalog.tools.map((e) => e.tool),
      ),
      prompts: signature(this.#catalog.prompts.map((p) => p.prompt)),
      resources: signature(this.#resources.resources, this.#resources.templates),
    };
    const changed = {
      tools: sig.tools !== this.#signature.tools,
      prompts: sig.prompts !== this.#signature.prompts,
      resources: sig.resources !== this.#signature.resources,
    };
    this.#signature = sig;
    for (const l of this.#listeners) {
      try {
        if (changed.tools) l.toolsChanged();
        if (changed.prompts) l.promptsChanged();
        if (changed.resources) l.resourcesChanged();
      } catch (err) {
        this.log.debug("list_changed notification failed", { error: messageOf(err) });
      }
    }
  }
}

function signature(...parts: unknown[]): string {
  return JSON.stringify(parts);
}
