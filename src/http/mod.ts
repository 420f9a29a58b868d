/**
 * @module The HTTP surface: hono app, streamable HTTP and legacy SSE sessions, event store,
 * security middleware (auth, origin/host checks, rate limits) and the exposure check.
 */
export { createApp, GatewayApp } from "./app.ts";
export type { AppDeps, AppEnv } from "./app.ts";
export { frontDoor, malformed } from "./front-door.ts";
export { MemoryEventStore } from "./event-store.ts";
export { SessionRegistry } from "./sessions.ts";
export type { RequestIdentity, SessionRegistryOptions } from "./sessions.ts";
export { jsonError, SseSessionTransport } from "./sse.ts";
export {
  assertSafeExposure,
  securityChain,
  securityMiddleware,
  StatusSessions,
  TokenCallLimits,
} from "./security/mod.ts";
export type { RequestChain, SharedCallBuckets } from "./security/mod.ts";
export { statusRoutes } from "./status-routes.ts";
export { oauthRoutes } from "./oauth-routes.ts";
export type { StatusRoutesDeps } from "./status-routes.ts";
