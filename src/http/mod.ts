/**
 * @module The HTTP surface: hono app, streamable HTTP and legacy SSE sessions, event store.
 */
export { createApp } from "./app.ts";
export type { AppDeps, AppEnv } from "./app.ts";
export { MemoryEventStore } from "./event-store.ts";
export { SessionRegistry } from "./sessions.ts";
export type { RequestIdentity, SessionRegistryOptions } from "./sessions.ts";
export { jsonError, SseSessionTransport } from "./sse.ts";
