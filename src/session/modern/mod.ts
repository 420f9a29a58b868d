/**
 * @module The 2026-07-28 (stateless) front door: SDK v2 per-request servers over the gateway
 * core, with multi round-trip requests for upstreams that ask the client for input. Loaded at
 * the first request that could be modern (./classify.ts, ./lazy.ts).
 */
export { classify } from "./classify.ts";
export { createModernFront } from "./lazy.ts";
export { modernDoor } from "./door.ts";
export type { ModernTicket } from "./door.ts";
export type { Classification } from "./classify.ts";
export type { ModernFront, ModernFrontOptions, ModernRelay } from "./front.ts";
