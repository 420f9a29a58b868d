/**
 * @module The HTTP surface: hono app and its router to the front doors, security middleware
 * (auth, origin/host checks, rate limits), the exposure check, status and OAuth routes.
 */
export { createApp, GatewayApp } from "./app.ts";
export type { AppDeps, AppEnv } from "./app.ts";
export { frontDoor, malformed } from "./front-door.ts";
export type { RequestIdentity } from "../session/mod.ts";
export {
  assertSafeExposure,
  securityChain,
  securityMiddleware,
  StatusSessions,
  TokenCallLimits,
} from "./security/mod.ts";
export type { RequestChain, SharedCallBuckets } from "./security/mod.ts";
export { statusRoutes } from "./status-routes.ts";
export { type AdminActions, type AdminActor, adminRoutes } from "./admin-routes.ts";
export type { AdminRoutesDeps } from "./admin-routes.ts";
export { oauthRoutes } from "./oauth-routes.ts";
export type { StatusRoutesDeps } from "./status-routes.ts";
