/**
 * Starting a gateway: the port (or the `--stdio` pipe) first, then the upstreams, the doors,
 * observers and operator routes; `stop` drains and stops them in order. Running it until a
 * signal is `./serve-command.ts`.
 */
import { type GatewayConfig, splitListen } from "../config/mod.ts";
import { type Gateway, type MetaTools, profileConfig } from "../gateway/mod.ts";
import { EarlyStdio, SessionRegistry, sseDoor } from "../session/legacy/mod.ts";
import {
  assertSafeExposure,
  createApp,
  frontDoor,
  oauthRoutes,
  securityChain,
  StatusSessions,
  TokenCallLimits,
} from "../http/mod.ts";
import type { SharedCallBuckets } from "../http/mod.ts";
import {
  AuditLog,
  CallJournal,
  createReloader,
  Lifecycle,
  Metrics,
  ScriptJournal,
  ServerOverrides,
  ToolStats,
  watchConfigFile,
} from "../ops/mod.ts";
import {
  AddressInUseError,
  compactHeap,
  type HttpServer,
  serveHttp,
  setJitPolicy,
} from "../runtime/mod.ts";
import { describePortHolders } from "./port-holder.ts";
import { createModernFront, modernDoor } from "../session/modern/mod.ts";
import type { Cluster } from "../cluster/mod.ts";
import { GatewayError } from "../shared/errors.ts";
import { createLogger } from "../shared/log.ts";
import type { StreamReport } from "../shared/stream-guard.ts";
import type { Scripting } from "../tools/mod.ts";
import { bootGateway, readConfig } from "./boot.ts";
import { operatorRoutes } from "./serve-operator.ts";

const log = createLogger("serve");

/** A running gateway, as tests and `main` hold it. */
export interface RunningGateway {
  gateway: Gateway;
  http: HttpServer | null;
  /** Resolves once every upstream's first start is done (serving began `startWait` sooner). */
  settled: Promise<void>;
  /** Re-reads the config file and applies it; keeps the old one when invalid. */
  reload(trigger?: string): Promise<boolean>;
  /**
   * Graceful stop: refuse new requests, let in-flight calls finish (up to
   * `gateway.drainTimeout`), then close sessions and stop upstreams with their process trees.
   */
  stop(): Promise<void>;
  /** Cuts a running drain short (a second signal). */
  forceStop(): void;
  /**
   * Serves one request in this process exactly as the HTTP server does (front door, lifecycle,
   * app) — for measuring the request path without a socket (`bench/door.ts`); absent with
   * `--stdio`.
   */
  fetch?: (request: Request) => Promise<Response>;
}

/** Options for {@link startGateway}. */
export interface StartOptions {
  listen?: string | null;
  stdio?: boolean;
  /** With `stdio`: serve only this profile (`--profile`); it must exist in the config. */
  profile?: string | null;
  /** Reload when the config file changes (default true). */
  watch?: boolean;
}

/**
 * Starts serving a config; resolves once HTTP or stdio serves, which is when every upstream
 * started or `gateway.startWait` passed (the rest join as they come up).
 */
export async function startGateway(
  config: GatewayConfig,
  options: StartOptions = {},
): Promise<RunningGateway> {
  // --- security: no unauthenticated listener beyond loopback; checked before boot.
  const [hostname, port] = splitListen(
    options.listen ?? `${config.gateway.host}:${config.gateway.port}`,
  );
  if (!options.stdio) assertSafeExposure(config.gateway, hostname);
  // --- end security
  const profile = options.profile ?? null;
  if (profile !== null && !profileConfig(config, profile)) {
    const known = config.profiles.map((p) => p.name).join(", ") || "none configured";
    throw new GatewayError("USAGE", `--profile: no profile "${profile}" (profiles: ${known})`);
  }
  const lifecycle = new Lifecycle();
  const handle = frontDoor((req) => lifecycle.handle(req), log);
  // Listen before connecting upstreams: probes get /healthz at once and /readyz 503 until the
  // first start is done, and MCP requests wait for it instead of being refused.
  const http = options.stdio ? null : await listen({ hostname, port, fetch: handle });
  // The pipe is read from the start too: an era probe is answered before any upstream starts.
  const pipe = options.stdio ? await openStdio() : null;
  if (http) {
    const shown = http.hostname.includes(":") ? `[${http.hostname}]` : http.hostname;
    log.info("listening", {
      url: `http://${shown}:${http.port}/mcp`,
      upstreams: config.servers.length,
    });
  }
  let gateway: Gateway;
  let scripting: Scripting | null;
  let meta: MetaTools;
  // An operator's `servers disable|enable`, kept in the state folder, lies over every config read.
  const overrides = new ServerOverrides(config.gateway.state);
  try {
    // Clients are served after `startWait` at most: a silent server holds no one at the door.
    ({ gateway, scripting, meta } = await bootGateway(overrides.overlay(config), false, {
      watchMacros: options.watch !== false,
      startWaitMs: config.gateway.startWaitMs,
      recordPins: true,
    }));
  } catch (err) {
    await http?.close();
    await pipe?.close();
    throw err;
  }
  // Per-token call rates and concurrency count tool calls (scripts' calls included), live.
  const callLimits = (shared?: SharedCallBuckets) =>
    new TokenCallLimits(() => gateway.config.gateway.rateLimit, log.child("security"), shared);
  gateway.calls.setGate(callLimits());
  const startedAt = Date.now();
  const journal = new CallJournal(createLogger("calls"));
  // Built in stdio mode too (then it stays empty): cheap, and metrics read one source.
  // Event streams report what their guards do and hold; metrics count it, closures are logged.
  const streams: StreamReport = {
    ledger: { queued: 0 },
    observe: (event) => {
      metrics.observeStream(event);
      if (event.kind === "closed") {
        log.info("event stream closed: its client reads too slowly", {
          stream: event.stream,
          bytes: event.bytes,
        });
      }
    },
  };
  const sessions = new SessionRegistry(gateway, {
    maxSessions: config.gateway.maxSessions,
    maxBodyBytes: config.gateway.requestBodyBytes,
    streams,
  });
  const metrics = new Metrics({
    gateway,
    sessions: () => sessions.counts(),
    streamQueued: () => streams.ledger.queued,
    semantic: () => meta.semanticStats(),
  });
  const toolStats = new ToolStats();
  gateway.calls.observeCalls((call) => {
    metrics.observe(call);
    toolStats.record(call);
  });
  // Recent calls list prompt gets and resource reads too.
  gateway.calls.observeOperations((call) => journal.record(call));
  gateway.filters.observe((event) => metrics.observeFilter(event));
  // The audit settings are read at start: a change to gateway.audit applies on restart.
  const audit = config.gateway.audit
    ? new AuditLog(config.gateway.audit, gateway, createLogger("audit"))
    : null;
  audit?.observe(gateway);
  const scriptJournal = new ScriptJournal();
  scripting?.runs.observe((run) => {
    scriptJournal.record(run);
    metrics.observeScript(run);
  });
  const reloader = createReloader({
    gateway,
    read: () => overrides.overlay(readConfig(config.file)),
    log,
    listenOverridden: Boolean(options.listen) || Boolean(options.stdio),
    onResult: (applied) => metrics.reload(applied),
  });
  const reload = (trigger = "api") => reloader(trigger);
  const watch = options.watch === false
    ? null
    : watchConfigFile(config.file, () => void reload("file change"), log);
  const drain = async () => {
    // From the first signal on, no backoff timer or reload starts a new child.
    gateway.pool.halt();
    const inFlight = () => gateway.pool.inFlight();
    const waiting = inFlight();
    const timeoutMs = gateway.config.gateway.drainTimeoutMs;
    if (waiting > 0) log.info("draining", { inFlight: waiting, timeoutMs });
    if (!await lifecycle.drain(inFlight, timeoutMs)) {
      log.warn("drain cut short; failing the calls still in flight", { inFlight: inFlight() });
    }
    watch?.close();
  };

  if (pipe) {
    // The 2025 door serves the pipe. A reload that removes the profile leaves this caller
    // reaching nothing (it cannot be closed like an HTTP session: the client owns the pipe).
    await sessions.serveStdio(pipe, profile);
    lifecycle.ready(() => new Response(null, { status: 404 }));
    setJitPolicy(1);
    let stopping: Promise<void> | undefined;
    return {
      gateway,
      http: null,
      settled: gateway.settled,
      reload,
      forceStop: () => lifecycle.force(),
      stop: () =>
        stopping ??= (async () => {
          await drain();
          await sessions.closeAll();
          await gateway.stop();
          lifecycle.stopped();
        })(),
    };
  }
  // Status-page sign-ins: one signing key per process, shared by the middleware and the routes.
  const statusSessions = new StatusSessions();
  // --- cluster: shared limits, MRTR relay and membership through Redis.
  // The Redis client is loaded only when a cluster is configured.
  const cluster: Cluster | null = config.gateway.cluster
    ? new (await import("../cluster/mod.ts")).Cluster(config.gateway.cluster, {
      url: config.gateway.cluster.advertise ?? `http://${hostPort(http!)}`,
      phase: () => lifecycle.phase,
      upstreams: () => gateway.pool.all().map((u) => ({ name: u.name, state: u.state })),
      startedAt,
    }, createLogger("cluster"))
    : null;
  cluster?.start();
  // In a cluster the call rate is counted in Redis, across instances.
  if (cluster) gateway.calls.setGate(callLimits(cluster.callLimiter));
  // --- end cluster
  const modern = createModernFront(gateway, {
    maxBodyBytes: config.gateway.requestBodyBytes,
    streams,
    admitStream: (identity) => sessions.admitStream(identity),
    ...(cluster ? { stateKey: cluster.stateKey, relay: cluster.relay } : {}),
  });
  gateway.upstreamAuth.listening(hostPort(http!));
  const operator = operatorRoutes({
    gateway,
    sessions,
    statusSessions,
    journal,
    scriptJournal,
    toolStats,
    metrics,
    cluster,
    phase: () => lifecycle.phase,
    startedAt,
    overrides,
    reload: reloader,
    audit,
    log: createLogger("admin"),
  });
  const app = createApp({
    gateway,
    // The doors, asked in this order: legacy SSE takes its own paths (`/sse`, `/message`), the
    // 2026-07-28 door what the SDK classifies as its revision (never a request on a session),
    // the 2025 door the rest.
    doors: [
      sseDoor(sessions),
      modernDoor(modern, () => gateway.config.gateway.requestBodyBytes),
      sessions,
    ],
    // The one security chain: hono's middleware and the POST /mcp pre-dispatch.
    chain: securityChain(gateway, hostname, statusSessions, cluster?.limiter),
    routes: (app) => {
      oauthRoutes(gateway)(app);
      operator(app);
    },
  });
  lifecycle.ready((req) => app.fetch(req));
  // Start-up code ran under the binary's lazier JIT policy; request paths get the normal one.
  setJitPolicy(1);
  // Once every upstream's first start is done, what start-up left behind is given back.
  void gateway.settled.then(() => setTimeout(compactHeap, 0));
  const up = gateway.pool.all().filter((u) => u.state === "up").length;
  // Those still starting after `startWait` join later (each logs "upstream up" then).
  const starting = gateway.pool.all().filter((u) => u.state === "starting").length;
  log.info("ready", {
    upstreams: gateway.pool.all().length,
    up,
    ...(starting ? { starting } : {}),
  });
  let stopping: Promise<void> | undefined;
  return {
    gateway,
    http,
    fetch: handle,
    settled: gateway.settled,
    reload,
    forceStop: () => lifecycle.force(),
    stop: () =>
      stopping ??= (async () => {
        await drain();
        // Upstreams go first: a call cut by the drain timeout then fails with an error its
        // client receives, instead of a stream that just ends. The short pause lets the last
        // answers and errors be written before the sessions close.
        const upstreamsStopped = gateway.stop();
        await new Promise((r) => setTimeout(r, 100));
        await sessions.closeAll();
        await modern.close();
        await cluster?.stop();
        await http!.close();
        await upstreamsStopped;
        lifecycle.stopped();
      })(),
  };
}

/** The `--stdio` pipe, reading from now on (`EarlyStdio`). */
async function openStdio(): Promise<EarlyStdio> {
  // Imported here: an HTTP gateway never loads the SDK's stdio server (nor `node:process`).
  const { StdioServerTransport } = await import("@modelcontextprotocol/sdk/server/stdio.js");
  const pipe = new EarlyStdio(new StdioServerTransport());
  await pipe.open();
  return pipe;
}

function hostPort(http: HttpServer): string {
  return `${http.hostname.includes(":") ? `[${http.hostname}]` : http.hostname}:${http.port}`;
}

/** Binds the port, or fails naming the address and, when it can be seen, the process holding it. */
async function listen(options: Parameters<typeof serveHttp>[0]): Promise<HttpServer> {
  try {
    return await serveHttp(options);
  } catch (err) {
    if (!(err instanceof AddressInUseError)) throw err;
    const holder = describePortHolders(err.port);
    throw new Error(`cannot listen: ${err.message}${holder ? ` (${holder})` : ""}`, { cause: err });
  }
}
