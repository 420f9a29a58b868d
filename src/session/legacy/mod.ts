/**
 * @module The 2025-11-25 front door, whole: one SDK server per session (streamable HTTP, legacy
 * SSE or `--stdio`), with the pass-through handlers and the token's live scope, over the gateway
 * core; the HTTP half (session table, fast path, transports, replay store) included.
 */
export { createSessionServer } from "./server.ts";
export type { SessionOptions, SessionServer } from "./server.ts";
export { callerOfRequest } from "./request-caller.ts";
export { type SessionInfo, SessionRegistry } from "./sessions.ts";
export { sseDoor } from "./sse-door.ts";
export { EarlyStdio } from "./early-stdio.ts";
export type { SessionRegistryOptions } from "./session-table.ts";
export { MemoryEventStore } from "./event-store.ts";
export { jsonError, SseSessionTransport } from "./sse.ts";
