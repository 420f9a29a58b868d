/**
 * The gateway core: owns the upstream pool and the aggregated catalog, merges in local tools
 * (meta-tools, macros, execute), routes calls, and tells every session when lists change.
 */
import type { CallToolParams, CallToolResult, CreateTaskResult, Tool } from "../shared/protocol.ts";
import type { GatewayConfig, HttpServerConfig } from "../config/mod.ts";
import { noteCall, noteReleased } from "../runtime/mod.ts";
import type { CallContext } from "../shared/call-context.ts";
import { messageOf } from "../shared/errors.ts";
import type { Logger } from "../shared/log.ts";
import { type Upstream, UpstreamPool } from "../upstream/mod.ts";
import { UpstreamAuth } from "../upstream/oauth/mod.ts";
import { CallPath } from "./call-path.ts";
import { CallerViews, type VisibleInputs } from "./caller-views.ts";
import { buildCatalog, type Catalog, type PromptEntry, type ToolEntry } from "./catalog.ts";
import { ResultScreen, screenLog } from "./filters/mod.ts";
import { type ChangeListener, ListChanges } from "./list-changes.ts";
import {
  buildResourceIndex,
  PassthroughHub,
  relayTaskStatus,
  type ResourceIndex,
  TaskRouter,
} from "./passthrough/mod.ts";
import { Pins } from "./pinning/mod.ts";
import type { PreparedList } from "./prepared-lists.ts";
import type { VisibleTool } from "./tool-views.ts";
import type { Caller, LocalTool, LocalToolProvider } from "./types.ts";
import { type CatalogView, listable, UserViews } from "./user-views.ts";

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
  /** The shared catalog with the upstreams it was built from. */
  #shared: CatalogView;
  /** Each identity's own catalog, with what its per-user connections declare. */
  readonly #users: UserViews = new UserViews(this);
  #resources: ResourceIndex;
  #providers: LocalToolProvider[] = [];
  #local = new Map<string, LocalTool>();
  #changes: ListChanges;
  #version = 0;
  #closers: (() => Promise<void>)[] = [];
  #configObservers = new Set<(prev: GatewayConfig, next: GatewayConfig) => void>();
  /** What each caller sees and reaches (`./caller-views.ts`). */
  readonly #views: CallerViews = new CallerViews(this);
  /** Where every tool call passes (`./call-path.ts`): install its gate, tracer, observers there. */
  readonly calls: CallPath = new CallPath(this);
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
      (server, params) => screenLog(this.filters, this.#config, server, params),
    );
    this.#catalog = buildCatalog(config, [], log);
    this.#shared = { catalog: this.#catalog, upstreams: [], user: "" };
    this.#resources = buildResourceIndex([]);
  }

  /** The running config. */
  get config(): GatewayConfig {
    return this.#config;
  }

  /**
   * The current catalog of upstream tools and prompts every caller shares: it holds nothing of
   * a server that serves each client on its own credential (see {@link catalogOf}).
   */
  get catalog(): Catalog {
    return this.#catalog;
  }

  /**
   * The catalog `caller` sees: the shared one, plus what the caller's own connections to
   * per-user servers declare (`./user-views.ts`). Never another identity's.
   */
  catalogOf(caller: Caller): Catalog {
    return this.viewOf(caller).catalog;
  }

  /** {@link catalogOf} with the upstreams it was built from and the key it was held under. */
  viewOf(caller: Caller): CatalogView {
    return this.#users.viewOf(caller.tokenName, this.#shared);
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
    this.#views.stopPreparing();
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
   * The upstream servers this caller reaches (`null` = every server), under `config` (default:
   * the running one): see `./caller-views.ts`, as for the next few methods.
   */
  serversOf(caller: Caller, config?: GatewayConfig): ReadonlySet<string> | null {
    return this.#views.serversOf(caller, config);
  }

  /** True when this caller's prompt list holds `entry` (token globs, then profile servers). */
  reachesPrompt(caller: Caller, entry: PromptEntry, config?: GatewayConfig): boolean {
    return this.#views.reachesPrompt(caller, entry, config);
  }

  /** True when this caller reaches `server` (see {@link serversOf}). */
  sees(caller: Caller, server: string): boolean {
    return this.#views.sees(caller, server);
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

  /**
   * Tools listed to this caller by `tools/list` (under `config`: default the running one);
   * `apps`: its client declared the MCP Apps extension (view-only tools listed too).
   */
  listTools(caller: Caller, config?: GatewayConfig, apps = false): readonly Tool[] {
    return this.#views.listTools(caller, config, apps);
  }

  /**
   * This caller's `tools/list` prepared for its view: the tools, each page's result text and
   * the whole list's text, shared by every session and request of the view until the catalog
   * or the config changes.
   */
  preparedList(caller: Caller, apps = false): PreparedList {
    return this.#views.preparedList(caller, apps);
  }

  /** Every tool this caller may find and call (listed or discoverable), for search/describe. */
  visibleTools(caller: Caller): VisibleTool[] {
    return this.#views.visibleTools(caller);
  }

  /** What this caller's {@link visibleTools} are made of, cheap to compare (`./caller-views.ts`). */
  visibleInputs(caller: Caller): VisibleInputs {
    return this.#views.visibleInputs(caller);
  }

  /** Names a script run for this caller may call (hidden tools included: macros may call them). */
  callableNames(caller: Caller, internal: boolean): string[] {
    return this.#views.callableNames(caller, internal);
  }

  /** Finds a tool by exposed name for this caller, or throws TOOL_NOT_FOUND / FORBIDDEN. */
  resolveTool(
    name: string,
    caller: Caller,
    internal?: boolean,
    view?: string,
  ): LocalTool | ToolEntry {
    return this.#views.resolveTool(name, caller, internal, view);
  }

  /** The gateway's own tools (meta-tools, macros, `execute`) by exposed name. */
  get localByName(): ReadonlyMap<string, LocalTool> {
    return this.#local;
  }

  /**
   * Calls a tool for `context.caller`, its context handed down unchanged (`./call-path.ts`).
   * Upstream outages become `isError` results; unknown or forbidden tools throw, and so does a
   * call the gate refuses.
   */
  callTool(
    name: string,
    args: Record<string, unknown> | undefined,
    context: CallContext,
  ): Promise<CallToolResult> {
    // The heap's compaction, which drops compiled code, waits for a pause in these.
    noteCall();
    return this.calls.callTool(name, args, context);
  }

  /** Creates a task upstream for a task-augmented `tools/call` (either era): a gated call. */
  createTask(params: CallToolParams, context: CallContext): Promise<CreateTaskResult> {
    return this.calls.createTask(params, context);
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
    // What the last catalog's lists, views and reviews held becomes garbage: with thousands of
    // tools, servers joining one by one leave enough behind to be worth giving back.
    noteReleased(this.#catalog.tools.length * REBUILD_BYTES_PER_TOOL);
    const up = this.pool.all().filter((u) => u.state === "up");
    // Tools and prompts of a server that went down stay listed from its last-known catalog;
    // calls to them answer with the reason (or how to log in). Resources follow live servers only.
    const known = this.pool.all().filter(listable);
    const users = this.#users.connectionsByKey();
    this.pins.review(known, users);
    // The gateway's own tools keep their names; an upstream tool taking one is renamed.
    this.#catalog = this.pins.apply(
      buildCatalog(this.#config, known, this.log, new Set(this.#local.keys())),
    );
    this.#shared = { catalog: this.#catalog, upstreams: known, user: "" };
    this.#resources = buildResourceIndex(
      up,
      (s, kind, uri) => this.pins.keepsResource(s, kind, uri),
    );
    this.passthrough.onRebuild(up);
    // What users' own connections declare counts as a change too; each session then hears of
    // it only when its own view differs (`./visible-changes.ts`).
    const own = [...users.values()].flat();
    this.#changes.publish({
      tools: [
        [...this.#local.values()].map((t) => t.tool),
        this.#catalog.tools.map((e) => e.tool),
        own.map((u) => u.catalog.tools),
      ],
      prompts: [this.#catalog.prompts.map((p) => p.prompt), own.map((u) => u.catalog.prompts)],
      resources: [this.#resources.resources, this.#resources.templates],
    });
    // The new catalog has no list prepared: those listed lately are, before clients ask again.
    this.#views.prepareAgain();
  }
}

/** About what a rebuild leaves as garbage per tool of the catalog it replaces. */
const REBUILD_BYTES_PER_TOOL = 256;
