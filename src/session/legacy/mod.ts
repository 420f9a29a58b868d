/**
 * @module The 2025-11-25 front door: one SDK server per session (streamable HTTP, legacy SSE or
 * `--stdio`), with the pass-through handlers and the token's live scope, over the gateway core.
 */
export { createSessionServer } from "./server.ts";
export type { SessionOptions, SessionServer } from "./server.ts";
export { authInfoOf, callerOfRequest } from "./request-caller.ts";
