/**
 * @module Upstream MCP servers: one client per transport kind (stdio, streamable HTTP, SSE),
 * lifecycle with restart and backoff, and the pool that holds them.
 */
export { capabilitiesFor, UPSTREAM_CAPABILITIES } from "./connect.ts";
export { BASE_ENV, childEnv } from "./child-env.ts";
export type { InputRelay } from "./caller.ts";
export type { ProtocolEra, UpstreamClient } from "./client.ts";
export { listenTo } from "./notifications.ts";
export { answerClientRequests } from "./client-requests.ts";
export type { ClientRequestExtra, ClientRequestHandler } from "./client-requests.ts";
export { type CheckedMethod, resultSchemaOf, TASK_CREATED_SCHEMA } from "./result-schemas.ts";
export type { LogParams, TaskStatusParams, UpstreamNotices } from "./notifications.ts";
export { SessionUpstreams } from "./isolated.ts";
export { UpstreamPool, UserKey } from "./pool.ts";
export type { PoolEvents } from "./pool.ts";
export { killTree, StdioTransport } from "./stdio.ts";
export { BWRAP_HINT, FETCHING_RUNNERS, findBwrap, spawnSpec } from "./sandbox/mod.ts";
export type {
  CallLeg,
  LegOptions,
  Progress,
  RequestTerms,
  ResultCheck,
  UpstreamCaller,
} from "./caller.ts";
export { reasonOf, UPSTREAM_REASONS, UpstreamRpcError } from "./call-errors.ts";
export type { UpstreamReason } from "./call-errors.ts";
export { framed } from "./frame.ts";

export { Upstream } from "./upstream.ts";
export type { UpstreamCatalog, UpstreamHooks, UpstreamState } from "./types.ts";
