/**
 * Copies of a server's config that run the same server with another offer to it: under
 * `apps: auto`, a process for a client that renders no views is not offered the MCP Apps
 * extension; the 2025-11-25 connection of a server that speaks both eras (./legacy-side.ts)
 * runs it pinned to `protocol: legacy`. One copy per config, and one record of which config
 * each copy came from, so what belongs to the server — its spares, its era verdict — follows
 * the source, not the copy.
 */
import type { ServerConfig } from "../config/mod.ts";

const appsOff = new WeakMap<ServerConfig, ServerConfig>();
const legacy = new WeakMap<ServerConfig, ServerConfig>();
const sources = new WeakMap<ServerConfig, ServerConfig>();

/** `config` with the MCP Apps extension not offered (the same copy every time). */
export function withoutApps(config: ServerConfig): ServerConfig {
  let copy = appsOff.get(config);
  if (!copy) {
    copy = Object.freeze({ ...config, apps: "off" as const });
    appsOff.set(config, copy);
    sources.set(copy, config);
  }
  return copy;
}

/**
 * `config` pinned to the 2025 handshake, and an HTTP one to streamable HTTP, the transport its
 * 2026-07-28 connection found (the same copy every time).
 */
export function pinnedLegacy(config: ServerConfig): ServerConfig {
  let copy = legacy.get(config);
  if (!copy) {
    copy = Object.freeze(
      config.kind === "http"
        ? { ...config, protocol: "legacy" as const, transport: "streamable-http" as const }
        : { ...config, protocol: "legacy" as const },
    );
    legacy.set(config, copy);
    sources.set(copy, sourceOf(config));
  }
  return copy;
}

/** The server's config `config` is (a copy of). */
export function sourceOf(config: ServerConfig): ServerConfig {
  return sources.get(config) ?? config;
}
