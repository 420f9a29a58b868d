/** The words every part of the upstream room shares: states, catalogs, the pool's hooks. */
import type { UpstreamClient } from "./client.ts";
import type { Prompt, Resource, ResourceTemplate, Tool } from "@modelcontextprotocol/sdk/types.js";
import type { Upstream } from "./upstream.ts";
import type { ServerConfig } from "../config/mod.ts";
import type { UpstreamCredential } from "./oauth/mod.ts";

/** Where an upstream is in its life. */
export type UpstreamState = "starting" | "up" | "down" | "needs-login" | "stopped" | "disabled";

/** Everything an upstream offers, read in full at connect and on `list_changed`. */
export interface UpstreamCatalog {
  tools: Tool[];
  prompts: Prompt[];
  resources: Resource[];
  resourceTemplates: ResourceTemplate[];
}

/** Callbacks the pool wires up; `setup` lets pass-through register handlers on each client. */
export interface UpstreamHooks {
  onCatalog(upstream: Upstream): void;
  onState(upstream: Upstream): void;
  setup?(upstream: Upstream, client: UpstreamClient): void;
  /** The OAuth credential of a server with `oauth:` (its transports' `fetch`). */
  credential?(config: ServerConfig): UpstreamCredential | undefined;
}

/** The catalog of an upstream never read. */
export const EMPTY_CATALOG: UpstreamCatalog = {
  tools: [],
  prompts: [],
  resources: [],
  resourceTemplates: [],
};
