/**
 * The gateway core: owns the upstream pool and the aggregated catalog, merges in local tools
 * (meta-tools, macros, execute), routes calls, and tells every session when lists change.
 */
import type {
  CallToolRequest,
  CallToolResult,
  CreateTaskResult,
  Tool,
} from "@modelcontextprotocol/sdk/types.js";
import type { GatewayConfig, HttpServerConfig } from "../config/mod.ts";
import { GatewayError, messageOf } from "../shared/errors.ts";
import type { Logger } from "../shared/log.ts";
import { type Upstream, UpstreamPool } from "../upstream/mod.ts";
import { callerAllows } from "./access.ts";
import { buildCatalog, type Catalog, type PromptEntry, type ToolEntry } from "./catalog.ts";
import { downServerEntry } from "./down-servers.ts";
import { type CallOutcome, outageOf, outageResult } from "./outcome.ts";
import {
  buildResourceIndex,
  exposeResultUris,
  exposeUri,
  PassthroughHub,
  relayTaskStatus,
  type ResourceIndex,
  TaskRouter,
  upstreamRequestMeta,
  viewServerOf,
} from "./passthrough/mod.ts";
import { unprefixedTarget } from "./unprefixed.ts";
import type { CallTracer } from "./tracing.ts";
import { traced } from "./traced.ts";
import { ServerScopes } from "./server-scopes.ts";
import {
  callableNames,
  listedTools,
  reachesUpstream,
  type Scope,
  type VisibleTool,
  visibleTools,
} from "./tool-views.ts";
import { profileView } from "./profiles.ts";
import type { CallGate } from "./call-gate.ts";
import { type ChangeListener, ListChanges } from "./list-changes.ts";
import {
  type CallAnswer,
  type CallNotes,
  CallObservers,
  type CallRecord,
  type OperationKind,
} from "./call-records.ts";
import { filterContext, ResultScreen } from "./filters/mod.ts";
import type { CallContext, Caller, LocalTool, LocalToolProvider } from "./types.ts";
import { withConnectRound } from "./passthrough/connect-round.ts";
import { UpstreamAuth } from "../upstream/oauth/mod.ts";
import { Pins } from "./pinning/mod.ts";

/** Gateway lifecycle and routing. */
export class Gateway {
  #config: GatewayConfig;
  readonly pool: UpstreamPool;
  readonly log: Logger;
  /** Upstream OAuth: credentials of servers with `oauth:`, and logins in progress. */
  readonly upstreamAuth: UpstreamAuth;
  /** Pass-through state shared by all sessions (server requests, logging, subscriptions). */
  readonly passthrough: PassthroughHub;
  /** Tasks created through the gateway, routed to the upstreams that own them. */
  readonly tasks: TaskRouter = new TaskRouter(this);
  /** The result filters every upstream tool result and resource read passes. */
  readonly filters: ResultScreen = new ResultScreen();
  #catalog: Catalog;
  #resources: ResourceIndex;
  #providers: LocalToolProvider[] = [];
  #local = new Map<string, LocalTool>();
  #changes: ListChanges;
  #observers = new CallObservers();
  #version = 0;
  #closers: (() => Promise<void>)[] = [];
  #tracer: CallTracer | null = null;
  #configObservers = new Set<(prev: GatewayConfig, next: GatewayConfig) => void>();
  /** Servers per glob list, valid for one catalog version. */
  #scopes = new ServerScopes();
  #gate: CallGate | null = null;
  #settled: Promise<void> = Promise.resolve();
  /** What servers declare, compared with what was approved (`pin:`). */
  readonly pins: Pins;

  constructor(config: GatewayConfig, log: Logger) {
    this.#config = config;
    this.log = log;
    this.#changes = new ListChanges(log);
    this.upstreamAuth = new UpstreamAuth(() => this.#config, log.child("upstream-oauth"));
    this.pins = new Pins(() => this.#config, log.child("pins"));
    this.pool = new UpstreamPool(config.servers, log.child("upstream"), {
      credential: (server) => this.upstreamAuth.credentialFor(server),
      userCredential: (server, identity) =>
        this.upstreamAuth.userCredential(server as HttpServerConfig, identity),
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

  /**
   * Connects every upstream concurrently. With `waitMs`, resolves after that long at most: the
   * servers up by then are in the catalog, and each one that comes up later joins it (every
   * session hears `list_changed`). {@link settled} tells when every first start is done.
   */
  async start(onEach?: (u: Upstream) => void, waitMs?: number): Promise<void> {
    const all = this.pool.startAll(onEach);
    this.#settled = all;
    if (waitMs === undefined) await all;
    else {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const waited = new Promise<void>((r) => (timer = setTimeout(r, waitMs)));
      await Promise.race([all, waited]);
      clearTimeout(timer);
    }
    this.#rebuild();
  }

  /** Resolves once every upstream's first start (of {@link start}) is done: up or down. */
  get settled(): Promise<void> {
    return this.#settled;
  }

  /** Stops every upstream, then whatever was registered with {@link onStop} (script workers). */
  async stop(): Promise<void> {
    this.pins.close();
    await this.pool.stopAll();
    await this.upstreamAuth.close();
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
   * The upstream servers this caller reaches: those owning at least one tool its token's globs
   * allow (hidden tools do not count), within its profile's servers on a profile's endpoint;
   * `null` = every server (no globs, no profile). `config` (default: the running one) gives the
   * profile's definition: a re-scope compares the one a reload replaced with the new one.
   */
  serversOf(caller: Caller, config: GatewayConfig = this.#config): ReadonlySet<string> | null {
    const view = profileView(config, caller.profile);
    // Cached for the running config only; another one's profile of the same name differs.
    const scopes = config === this.#config ? this.#scopes : new ServerScopes();
    return scopes.serversOf(caller, view, this.#catalog, this.#version);
  }

  /** True when this caller's prompt list holds `entry` (token globs, then profile servers). */
  reachesPrompt(caller: Caller, entry: PromptEntry, config: GatewayConfig = this.#config): boolean {
    if (!callerAllows(caller, entry.name)) return false;
    if (caller.profile === null) return true;
    const servers = this.serversOf(caller, config);
    return servers === null || servers.has(entry.server);
  }

  /** What narrows this caller's view under `config`: its token, its profile, the exposure. */
  #scope(caller: Caller, config: GatewayConfig = this.#config): Scope {
    const view = profileView(config, caller.profile);
    return { caller, view, exposure: view?.exposure ?? config.gateway.exposure };
  }

  /** True when this caller reaches `server` (see {@link serversOf}). */
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
    return this.#changes.subscribe(listener);
  }

  /** Traces every tool call, script run and upstream request from now on (telemetry on). */
  setTracer(tracer: CallTracer): void {
    this.#tracer = tracer;
    this.onStop(() => tracer.shutdown());
  }

  /** Registers an observer told about every finished tool call (metrics, status page). */
  observeCalls(observer: (call: CallRecord) => void): void {
    this.#observers.add(observer);
  }

  /** Registers an observer told about every tool call, prompt get and resource read (audit). */
  observeOperations(observer: (call: CallRecord) => void): void {
    this.#observers.addAll(observer);
  }

  /** Runs a prompt get or resource read under the observers (see `operations.ts`). */
  observed<R>(
    kind: Exclude<OperationKind, "tool">,
    name: string,
    caller: Caller,
    options: CallContext,
    args: unknown,
    run: (notes: CallNotes) => Promise<R>,
  ): Promise<R> {
    return this.#observers.observe(kind, name, caller, options, args, run);
  }

  /** Tools listed to this caller by `tools/list` (under `config`: default the running one). */
  listTools(caller: Caller, config: GatewayConfig = this.#config): Tool[] {
    return listedTools(this.#local, this.#catalog, this.#scope(caller, config));
  }

  /** Every tool this caller may find and call (listed or discoverable), for search/describe. */
  visibleTools(caller: Caller): VisibleTool[] {
    return visibleTools(this.#local, this.#catalog, this.#scope(caller));
  }

  /** Names a script run for this caller may call (hidden tools included: macros may call them). */
  callableNames(caller: Caller, internal: boolean): string[] {
    return callableNames(this.#local, this.#catalog, this.#scope(caller), internal);
  }

  /**
   * Finds a tool by exposed name for this caller, or throws TOOL_NOT_FOUND / FORBIDDEN. A name
   * the gateway does not expose may still reach one upstream tool by its upstream name
   * (./unprefixed.ts; `view`: the server of the MCP Apps view the call came from).
   */
  resolveTool(
    name: string,
    caller: Caller,
    internal = false,
    view?: string,
  ): LocalTool | ToolEntry {
    const local = this.#local.get(name);
    let entry = local ? undefined : this.#catalog.toolsByName.get(name);
    // A server that never came up has no catalog: its names answer "down", not "unknown".
    // Outside the caller's profile a tool does not exist, as for an unknown name.
    const scope = this.#scope(caller);
    if (!local && !entry) {
      this.pins.refuseHeld("tool", name, (h) => {
        const held = h.entry as ToolEntry;
        return !(held.hidden && !internal) && reachesUpstream(scope, held);
      });
      entry = downServerEntry(name, this.pool.all(), this.#config.gateway.separator);
    }
    if (!local && !entry && !internal && this.#config.gateway.unprefixedCalls) {
      const allowed = (e: ToolEntry) => !e.hidden && reachesUpstream(scope, e);
      const found = unprefixedTarget(this.#catalog, name, allowed, view);
      if (found) return found;
    }
    const outside = local
      ? local.shownWith?.(scope.exposure) === false || (scope.view && !scope.view.local(local))
      : entry && scope.view && !scope.view.upstream(entry.name, entry.server);
    if ((!local && (!entry || (entry.hidden && !internal))) || outside) {
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
  callTool(
    name: string,
    args: Record<string, unknown> | undefined,
    caller: Caller,
    options: CallContext = {},
  ): Promise<CallToolResult> {
    return this.#gated(
      name,
      caller,
      options,
      args,
      (inner, notes) => this.#route(name, args, caller, inner, notes),
    );
  }

  /**
   * Creates a task upstream for a task-augmented `tools/call` (either era). It is a call like
   * any other: the same gate (rate, concurrency), call record and span, and the same process
   * routing; the concurrency slot is held while the task is being created.
   */
  createTask(
    params: CallToolRequest["params"],
    caller: Caller,
    options: CallContext = {},
  ): Promise<CreateTaskResult> {
    return this.#gated(
      params.name,
      caller,
      options,
      params.arguments,
      (inner, notes) => this.tasks.create(params, caller, inner, notes),
    );
  }

  /**
   * The one road of every call, plain or task-augmented: the {@link CallGate} admits it, a span
   * wraps it when tracing is on, and observers are told how it ended.
   */
  async #gated<T extends CallAnswer>(
    name: string,
    caller: Caller,
    options: CallContext,
    args: unknown,
    run: (inner: CallContext, notes: CallNotes) => Promise<T>,
  ): Promise<T> {
    // Every call passes here once, scripts' calls included: this is where limits count calls.
    const admitted = this.#gate?.acquire(caller, { tool: name, local: this.#local.has(name) });
    // A shared (cluster) gate answers a promise; an in-process one decides without a tick.
    const release = typeof admitted === "object" ? await admitted : admitted;
    const observed = (inner: CallContext) =>
      this.#observers.observe("tool", name, caller, inner, args, (notes) => run(inner, notes));
    try {
      if (this.#tracer) {
        const attributes = {
          "mcp.tool": name,
          "mcp.token": caller.tokenName ?? "",
          "mcp.profile": caller.profile ?? "",
        };
        return await traced(
          this.#tracer,
          "tool",
          `tools/call ${name}`,
          attributes,
          options,
          observed,
        );
      }
      return await observed(options);
    } finally {
      release?.();
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
    options: CallContext = {},
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

  async #route(
    name: string,
    args: Record<string, unknown> | undefined,
    caller: Caller,
    options: CallContext,
    notes: CallNotes,
  ): Promise<CallToolResult> {
    const view = viewServerOf(options.meta);
    const target = this.resolveTool(name, caller, options.internal, view);
    if ("call" in target) {
      if (!this.#tracer || !target.script) return await target.call(args ?? {}, caller, options);
      return await traced(
        this.#tracer,
        "script",
        `script ${name}`,
        { "mcp.script": target.script },
        options,
        (inner) => target.call(args ?? {}, caller, inner),
      );
    }
    notes.server = target.server;
    if (this.#tracer) {
      const attributes = { "mcp.server": target.server, "mcp.upstream_tool": target.upstreamName };
      return await traced(
        this.#tracer,
        "upstream",
        `${target.server} tools/call`,
        attributes,
        options,
        (inner) => this.#callUpstream(target, args, caller, inner, notes),
      );
    }
    return await this.#callUpstream(target, args, caller, options, notes);
  }

  async #callUpstream(
    target: ToolEntry,
    args: Record<string, unknown> | undefined,
    caller: Caller,
    options: CallContext,
    notes: CallNotes,
  ): Promise<CallToolResult> {
    const upstream = this.pool.get(target.server);
    try {
      if (!upstream) {
        throw new GatewayError("UPSTREAM_UNAVAILABLE", `server "${target.server}" is gone`, {
          data: { server: target.server },
        });
      }
      // Tracked in flight, on the caller's own process of an `isolation: session` server, or
      // on the caller's own connection of a per-user server (whose connect link the client may
      // be asked to open within the call).
      const config = upstream.config;
      const result = await withConnectRound(
        this.passthrough,
        upstream,
        options,
        caller.tokenName,
        (identity) =>
          config.kind === "http" && config.oauth?.mode === "per-user"
            ? this.upstreamAuth.userCredential(config, identity)
            : undefined,
        () =>
          this.passthrough.serve(
            upstream,
            caller,
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
                ...(options.meta ? { meta: upstreamRequestMeta(options.meta, target.server) } : {}),
                ...(input ? { input } : {}),
              });
            },
          ),
      );
      const screened = await this.filters.run(
        this.#config,
        filterContext("tool", target.server, target.name, caller, options),
        result,
      );
      notes.filters.push(...screened.acted);
      // Resource links name URIs as the client knows them (`ui://` views especially).
      return exposeResultUris(
        screened.value,
        (uri) => exposeUri(this.#resources, target.server, uri),
      );
    } catch (err) {
      const outage = options.outagesThrow ? undefined : outageOf(err);
      if (outage) return outageResult(outage);
      throw err;
    }
  }

  /**
   * Records pins from now on (first sight, what servers declare) and applies approvals other
   * processes write to the state folder: for a serving gateway, before {@link start}.
   */
  recordPins(): void {
    this.pins.record(() => this.#rebuild());
  }

  /** Bumped whenever the catalog or local tools are rebuilt; caches key on it. */
  get version(): number {
    return this.#version;
  }

  #rebuild(): void {
    this.#version++;
    const up = this.pool.all().filter((u) => u.state === "up");
    // Tools and prompts of a server that went down stay listed from its last-known catalog;
    // calls to them answer with the reason (or how to log in). Resources follow live servers only.
    const known = this.pool.all().filter((u) =>
      u.state === "up" || u.state === "down" || u.state === "starting" ||
      u.state === "needs-login"
    );
    this.pins.review(known);
    // The gateway's own tools keep their names; an upstream tool taking one is renamed.
    this.#catalog = this.pins.apply(
      buildCatalog(this.#config, known, this.log, new Set(this.#local.keys())),
    );
    this.#resources = buildResourceIndex(up);
    this.passthrough.onRebuild(up);
    this.#changes.publish({
      tools: [[...this.#local.values()].map((t) => t.tool), this.#catalog.tools.map((e) => e.tool)],
      prompts: [this.#catalog.prompts.map((p) => p.prompt)],
      resources: [this.#resources.resources, this.#resources.templates],
    });
  }
}
