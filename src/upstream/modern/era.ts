/**
 * @module The revision a modern upstream is pinned to, and the error of a server that does not
 * offer it; apart from the SDK v2 client so that naming them does not load it.
 */
import type { ServerConfig } from "../../config/mod.ts";
import { GatewayError, messageOf } from "../../shared/errors.ts";

/** The revision a modern upstream is pinned to. */
export const MODERN_REVISION = "2026-07-28";

/** The error of `protocol: modern` against a server that does not offer 2026-07-28. */
export function notModern(server: ServerConfig, why?: unknown): GatewayError {
  const detail = why === undefined ? "" : `: ${messageOf(why)}`;
  return new GatewayError(
    "UPSTREAM_UNAVAILABLE",
    `server "${server.name}" does not offer protocol revision ${MODERN_REVISION} via ` +
      `server/discover, but servers.${server.name}.protocol is modern (use auto or legacy ` +
      `for a 2025-era server)${detail}`,
    { data: { server: server.name, protocol: server.protocol } },
  );
}
