/**
 * What an HTTP gateway serves once its upstreams are booted: the cluster (when configured), the
 * 2026-07-28 front, the doors in their order, the security chain and the OAuth and operator
 * routes, as one app. Starting, reloading and stopping it is `./serve.ts`.
 */
import type { GatewayConfig } from "../config/mod.ts";
import type { Gateway } from "../gateway/mod.ts";
import { type SessionRegistry, sseDoor } from "../session/legacy/mod.ts";
import { createModernFront, modernDoor, type ModernFront } from "../session/modern/mod.ts";
import { createApp, oauthRoutes, securityChain, StatusSessions } from "../http/mod.ts";
import type { SharedCallBuckets } from "../http/mod.ts";
import type { Lifecycle, ServerOverrides } from "../ops/mod.ts";
import type { HttpServer } from "../runtime/mod.ts";
import type { Cluster } from "../cluster/mod.ts";
import { createLogger } from "../shared/log.ts";
import type { Observers } from "./serve-observers.ts";
import { operatorRoutes } from "./serve-operator.ts";

/** What {@link buildHttpApp} is built from: the parts `startGateway` owns. */
export interface HttpAppParts {
  readonly gateway: Gateway;
  readonly config: GatewayConfig;
  /** The address the port was bound on (the security chain checks the Host against it). */
  readonly hostname: string;
  readonly http: HttpServer;
  readonly lifecycle: Lifecycle;
  readonly sessions: SessionRegistry;
  readonly observers: Observers;
  readonly overrides: ServerOverrides;
  readonly reload: (trigger: string, read?: () => GatewayConfig) => Promise<boolean>;
  readonly startedAt: number;
  /** Installs the per-token call limits, counted in `shared` buckets when given. */
  readonly setCallLimits: (shared?: SharedCallBuckets) => void;
}

/** The served app, and what must be stopped with it. */
export interface HttpApp {
  readonly fetch: (request: Request) => Response | Promise<Response>;
  readonly modern: ModernFront;
  readonly cluster: Cluster | null;
}

/** Builds the HTTP side of a gateway; see the module comment. */
export async function buildHttpApp(p: HttpAppParts): Promise<HttpApp> {
  const { gateway, config, http, lifecycle, sessions, observers } = p;
  // Status-page sign-ins: one signing key per process, shared by the middleware and the routes.
  const statusSessions = new StatusSessions();
  // --- cluster: shared limits, MRTR relay and membership through Redis.
  // The Redis client is loaded only when a cluster is configured.
  const cluster: Cluster | null = config.gateway.cluster
    ? new (await import("../cluster/mod.ts")).Cluster(config.gateway.cluster, {
      url: config.gateway.cluster.advertise ?? `http://${hostPort(http)}`,
      phase: () => lifecycle.phase,
      upstreams: () => gateway.pool.all().map((u) => ({ name: u.name, state: u.state })),
      startedAt: p.startedAt,
    }, createLogger("cluster"))
    : null;
  cluster?.start();
  // In a cluster the call rate is counted in Redis, across instances.
  if (cluster) p.setCallLimits(cluster.callLimiter);
  // --- end cluster
  const modern = createModernFront(gateway, {
    maxBodyBytes: config.gateway.requestBodyBytes,
    streams: observers.streams,
    admitStream: (identity) => sessions.admitStream(identity),
    ...(cluster ? { stateKey: cluster.stateKey, relay: cluster.relay } : {}),
  });
  gateway.upstreamAuth.listening(hostPort(http));
  const operator = operatorRoutes({
    gateway,
    sessions,
    statusSessions,
    journal: observers.journal,
    scriptJournal: observers.scriptJournal,
    toolStats: observers.toolStats,
    metrics: observers.metrics,
    cluster,
    phase: () => lifecycle.phase,
    startedAt: p.startedAt,
    overrides: p.overrides,
    reload: p.reload,
    audit: observers.audit,
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
    chain: securityChain(gateway, p.hostname, statusSessions, cluster?.limiter),
    routes: (app) => {
      oauthRoutes(gateway)(app);
      operator(app);
    },
  });
  return { fetch: (req) => app.fetch(req), modern, cluster };
}

/** `host:port` of a bound server, an IPv6 host in brackets. */
export function hostPort(http: HttpServer): string {
  return `${http.hostname.includes(":") ? `[${http.hostname}]` : http.hostname}:${http.port}`;
}
