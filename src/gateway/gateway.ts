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
import { buildCatalog, type Catalog, matchesAny, type ToolEntry } from "./catalog.ts";
import { downServerEntry } from "./down-servers.ts";
import { type CallOutcome, outageOf, outageResult } from "./outcome.ts";
import {
  buildResourceIndex,
  PassthroughHub,
  relayTaskStatus,
  type ResourceIndex,
  TaskRouter,
} from "./passthrough/mod.ts";
import { type CallTracer, type SpanKind, traceparentOf } from "./tracing.ts";
import type { CallGate } from "./call-gate.ts";
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
  /** Why it failed: the thrown error's message, or the text of an `isError` result. */
  readonly error?: string;
  /** The `GatewayError` code of a thrown error (`TOOL_NOT_FOUND`: `name` came from the client). */
  readonly code?: string;
  readonly at: number;
}

/** How much of an `isError` result's text a call record keeps. */
const ERROR_TEXT_MAX = 500;

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
  #tracer: CallTracer | null = null;
  #configObservers = new Set<(prev: GatewayConfig, next: GatewayConfig) => void>();
  /** Servers per glob list, valid for one catalog version. */
  #scopes = { version: -1, byGlobs: new Map<string, ReadonlySet<string>>() };
  #gate: CallGate | null = null;

  constructor(config: GatewayConfig, log: Logger) {
    this.#config = config;
    this.log = log;
    this.pool = new UpstreamPool(config.servers, log.child("upstream"), {
      onCatalog: () => this.#rebuild(),
      setup: (upstream, client, owner) => {
        this.passthrough.setupClient(upstream, client, owner);
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
    const prev = this.#config;
    this.#config = config;
    const diff = await this.pool.apply(config.servers);
    for (const p of this.#providers) await p.applyConfig?.(config);
    this.refreshLocalTools();
    for (const o of this.#configObservers) {
      try {
        o(prev, config);
      } catch (err) {
        this.log.debug("config observer failed", { error: messageOf(err) });
      }
    }
    return diff;
  }

  /**
   * Registers an observer told after each applied config, with the one it replaced (sessions
   * re-scope or close when their token changed); returns the unsubscribe function.
   */
  observeConfig(observer: (prev: GatewayConfig, next: GatewayConfig) => void): () => void {
    this.#configObservers.add(observer);
    return () => this.#configObservers.delete(observer);
  }

  /**
   * The upstream servers this caller's token reaches: those owning at least one tool its globs
   * allow (hidden tools do not count); `null` = every server (no globs).
   */
  serversOf(caller: Caller): ReadonlySet<string> | null {
    const globs = caller.toolGlobs;
    if (globs === null) return null;
    if (this.#scopes.version !== this.#version) {
      this.#scopes = { version: this.#version, byGlobs: new Map() };
    }
    const key = JSON.stringify(globs);
    let servers = this.#scopes.byGlobs.get(key);
    if (!servers) {
      const found = new Set<string>();
      for (const e of this.#catalog.tools) {
        if (!e.hidden && !found.has(e.server) && matchesAny(e.name, globs)) found.add(e.server);
      }
      servers = found;
      if (this.#scopes.byGlobs.size > 256) this.#scopes.byGlobs.clear();
      this.#scopes.byGlobs.set(key, servers);
    }
    return servers;
  }

  /** True when this caller's token reaches `server` (see {@link serversOf}). */
  sees(caller: Caller, server: string): boolean {
    const servers = this.serversOf(caller);
    return servers === null || servers.has(server);
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

  /** The local tools (meta-tools, macros, execute) as served now. */
  localTools(): readonly LocalTool[] {
    return [...this.#local.values()];
  }

  /** Registers a session for list_changed notifications; returns the unsubscribe function. */
  subscribe(listener: ChangeListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Traces every tool call, script run and upstream request from now on (telemetry on). */
  setTracer(tracer: CallTracer): void {
    this.#tracer = tracer;
    this.onStop(() => tracer.shutdown());
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
    let entry = local ? undefined : this.#catalog.toolsByName.get(name);
    // A server that never came up has no catalog: its names answer "down", not "unknown".
    if (!local && !entry) {
      entry = downServerEntry(name, this.pool.all(), this.#config.gateway.separator);
    }
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

  /** Installs the gate every call passes (per-token call rates and concurrency). */
  setCallGate(gate: CallGate | null): void {
    this.#gate = gate;
  }

  /**
   * Calls a tool. Upstream outages and timeouts become `isError` results (the agent reads them);
   * unknown or forbidden tools throw, and so does a call the {@link CallGate} refuses.
   */
  async callTool(
    name: string,
    args: Record<string, unknown> | undefined,
    caller: Caller,
    options: CallOptions = {},
  ): Promise<CallToolResult> {
    // Every call passes here once, scripts' calls included: this is where limits count calls.
    const release = this.#gate?.acquire(caller, { tool: name, local: this.#local.has(name) });
    try {
      if (this.#tracer) {
        const attributes = { "mcp.tool": name, "mcp.token": caller.tokenName ?? "" };
        return await this.#traced(
          "tool",
          `tools/call ${name}`,
          attributes,
          options,
          (inner) => this.#observed(name, args, caller, inner),
        );
      }
      return await this.#observed(name, args, caller, options);
    } finally {
      release?.();
    }
  }

  async #observed(
    name: string,
    args: Record<string, unknown> | undefined,
    caller: Caller,
    options: CallOptions,
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
        ...(result.isError ? { error: errorText(result) } : {}),
      });
      return result;
    } catch (err) {
      this.#record({
        name,
        server,
        caller,
        started,
        outcome: "error",
        error: messageOf(err),
        ...(err instanceof GatewayError ? { code: err.code } : {}),
      });
      throw err;
    }
  }

  /**
   * Calls a tool and answers its typed outcome: an upstream outage comes back as data (kind and
   * server) instead of an `isError` text result, so scripts branch on it without reading text.
   */
  async callToolOutcome(
    name: string,
    args: Record<string, unknown> | undefined,
    caller: Caller,
    options: CallOptions = {},
  ): Promise<CallOutcome> {
    try {
      const result = await this.callTool(name, args, caller, { ...options, outagesThrow: true });
      return { kind: "result", result };
    } catch (err) {
      const outage = outageOf(err);
      if (outage) return outage;
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
    code?: string;
  }): void {
    const call: CallRecord = {
      name: r.name,
      server: r.server,
      tokenName: r.caller.tokenName,
      durationMs: performance.now() - r.started,
      outcome: r.outcome,
      ...(r.error === undefined ? {} : { error: r.error }),
      ...(r.code === undefined ? {} : { code: r.code }),
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
    if ("call" in target) {
      if (!this.#tracer || !target.script) return await target.call(args ?? {}, caller, options);
      return await this.#traced(
        "script",
        `script ${name}`,
        { "mcp.script": target.script },
        options,
        (inner) => target.call(args ?? {}, caller, inner),
      );
    }
    onServer?.(target.server);
    if (this.#tracer) {
      const attributes = { "mcp.server": target.server, "mcp.upstream_tool": target.upstreamName };
      return await this.#traced(
        "upstream",
        `${target.server} tools/call`,
        attributes,
        options,
        (inner) => this.#callUpstream(target, args, inner),
      );
    }
    return await this.#callUpstream(target, args, options);
  }

  /**
   * Runs `run` inside a span that is a child of the `traceparent` in `options.meta`; what runs
   * inside gets the span's own `traceparent` in its `_meta` (an upstream request carries it on).
   */
  async #traced(
    kind: SpanKind,
    spanName: string,
    attributes: Record<string, string>,
    options: CallOptions,
    run: (inner: CallOptions) => Promise<CallToolResult>,
  ): Promise<CallToolResult> {
    const span = this.#tracer!.start(kind, spanName, attributes, traceparentOf(options.meta));
    const inner: CallOptions = {
      ...options,
      meta: { ...options.meta, traceparent: span.traceparent },
    };
    try {
      const result = await run(inner);
      span.end(result.isError ? "tool_error" : "ok");
      return result;
    } catch (err) {
      span.end("error", messageOf(err));
      throw err;
    }
  }

  async #callUpstream(
    target: ToolEntry,
    args: Record<string, unknown> | undefined,
    options: CallOptions,
  ): Promise<CallToolResult> {
    const upstream = this.pool.get(target.server);
    try {
      if (!upstream) {
        throw new GatewayError("UPSTREAM_UNAVAILABLE", `server "${target.server}" is gone`, {
          data: { server: target.server },
        });
      }
      // Tracked in flight, on the caller's own process of an `isolation: session` server.
      return await this.passthrough.serve(
        upstream,
        options,
        (serving) => {
          // A 2026-07-28 upstream's input rounds belong to this call: they go to its client.
          const input = serving.era === "modern"
            ? this.passthrough.inputRelay(serving, options)
            : undefined;
          return serving.callTool(target.upstreamName, args, {
            ...(options.signal ? { signal: options.signal } : {}),
            ...(options.onprogress
              ? { onprogress: options.onprogress, resetTimeoutOnProgress: true }
              : {}),
            ...(options.meta ? { meta: options.meta } : {}),
            ...(input ? { input } : {}),
          });
        },
      );
    } catch (err) {
      const outage = options.outagesThrow ? undefined : outageOf(err);
      if (outage) return outageResult(outage);
      throw err;
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

/** The text blocks of an `isError` result, cut to {@link ERROR_TEXT_MAX} characters. */
function errorText(result: CallToolResult): string {
  const text = (result.content ?? []).map((c) => c.type === "text" ? c.text : `[${c.type}]`)
    .join("\n");
  return text.length > ERROR_TEXT_MAX ? `${text.slice(0, ERROR_TEXT_MAX)}…` : text;
}

function signature(...parts: unknown[]): string {
  return JSON.stringify(parts);
}
