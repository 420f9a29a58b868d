/**
 * @module The core's pass-through state, shared by every front door: the resource index, upstream
 * subscriptions and log levels, tasks, and the server-to-client requests sampling, elicitation
 * and roots, routed to the one caller they belong to or refused (see server-requests.ts). The
 * handlers a 2025 session installs on top of it live in `src/session/legacy/`.
 */
export { PassthroughHub } from "./hub.ts";
export {
  appOnly,
  exposeAppUri,
  exposeResultUris,
  exposeToolMeta,
  rendersApps,
  UI_EXTENSION_KEY,
  upstreamAppUri,
  upstreamRequestMeta,
  viewServerOf,
} from "./app-uris.ts";
export { DEFAULT_TTL_MS as TASK_TTL_MS, relayTaskStatus, TaskRouter } from "./tasks.ts";
export { SessionLink } from "./link.ts";
export type { ClientConnection, LeanSession, ResourceSubscriber } from "./link.ts";
export { mostVerbose, relayLog, severity } from "./logging.ts";
export {
  buildResourceIndex,
  exposeUri,
  resolveResource,
  resolveTemplate,
  REWRITE_SCHEME,
  rewriteTemplate,
  rewriteUri,
  unrewriteUri,
} from "./resource-index.ts";
export type { ResourceIndex, ResourceTarget } from "./resource-index.ts";
export { missingCapability } from "./server-requests.ts";
