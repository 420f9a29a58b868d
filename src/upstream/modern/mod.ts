/**
 * @module Upstreams that speak protocol revision 2026-07-28, on the SDK v2 client: era
 * negotiation (`server/discover`, pinned) and the client adapted to the gateway's upstream shape.
 */
export { ModernClient } from "./client.ts";
export { connectModern, MODERN_REVISION, modernHttpTransport, notModern } from "./negotiate.ts";
export type { ModernOutcome } from "./negotiate.ts";
export { ProbeTransport } from "./probe-transport.ts";
export { forget, knownEra, remember } from "./verdicts.ts";
