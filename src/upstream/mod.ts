/**
 * @module Upstream MCP servers: one client per transport kind (stdio, streamable HTTP, SSE),
 * lifecycle with restart and backoff, and the pool that holds them.
 */
export { capabilitiesFor, UPSTREAM_CAPABILITIES } from "./connect.ts";
export { BASE_ENV, childEnv } from "./child-env.ts";
export type { ProtocolEra, UpstreamClient } from "./client.ts";
export { SessionUpstreams } from "./isolated.ts";
export { UpstreamPool } from "./pool.ts";
export type { PoolEvents } from "./pool.ts";
export { killTree, StdioTransport } from "./stdio.ts";
export { Upstream } from "./upstream.ts";
export type { UpstreamCatalog, UpstreamHooks, UpstreamState } from "./upstream.ts";
