/**
 * Starting a gateway: the port (or the `--stdio` pipe) first, then the upstreams, the observers
 * (`./serve-observers.ts`) and the doors (`./serve-app.ts` builds the HTTP side); `reload`
 * re-reads the config, `stop` drains and stops them in order. Running it until a signal is
 * `./serve-command.ts`.
 */
import { type GatewayConfig, splitListen } from "../config/mod.ts";
import { type Gateway, type MetaTools, profileConfig } from "../gateway/mod.ts";
import { EarlyStdio, SessionRegistry } from "../session/legacy/mod.ts";
import { assertSafeExposure, frontDoor, TokenCallLimits } from "../http/mod.ts";
import type { SharedCallBuckets } from "../http/mod.ts";
import { createReloader, Lifecycle, ServerOverrides, watchConfigFile } from "../ops/mod.ts";
import {
  AddressInUseError,
  compactHeap,
  type HttpServer,
  serveHttp,
  setJitPolicy,
} from "../runtime/mod.ts";
import { describePortHolders } from "./port-holder.ts";
import { GatewayError } from "../shared/errors.ts";
import { createLogger } from "../shared/log.ts";
import type { Scripting } from "../tools/mod.ts";
import { bootGateway, readConfig } from "./boot.ts";
import { buildHttpApp, hostPort } from "./serve-app.ts";
import { observeGateway } from "./serve-observers.ts";

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
    log.info("listening", {
      url: `http://${hostPort(http)}/mcp`,
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
  const setCallLimits = (shared?: SharedCallBuckets) =>
    gateway.calls.setGate(
      new TokenCallLimits(() => gateway.config.gateway.rateLimit, log.child("security"), shared),
    );
  setCallLimits();
  const startedAt = Date.now();
  const observers = observeGateway(
    { gateway, scripting, meta },
    config,
    () => sessions.counts(),
    log,
  );
  const sessions = new SessionRegistry(gateway, {
    maxSessions: config.gateway.maxSessions,
    maxBodyBytes: config.gateway.requestBodyBytes,
    streams: observers.streams,
  });
  const reloader = createReloader({
    gateway,
    read: async () => overrides.overlay(await readConfig(config.file)),
    log,
    listenOverridden: Boolean(options.listen) || Boolean(options.stdio),
    onResult: (applied) => observers.metrics.reload(applied),
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
  const { fetch, modern, cluster } = await buildHttpApp({
    gateway,
    config,
    hostname,
    http: http!,
    lifecycle,
    sessions,
    observers,
    overrides,
    reload: reloader,
    startedAt,
    setCallLimits,
  });
  lifecycle.ready(fetch);
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
