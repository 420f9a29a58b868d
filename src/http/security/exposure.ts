/**
 * Where the gateway may listen. Without auth, anyone who can reach the port can call every tool,
 * so an unauthenticated gateway is only allowed on loopback.
 */
import type { GatewayConfig } from "../../config/mod.ts";
import { GatewayError } from "../../shared/errors.ts";
import { isLoopback } from "../../shared/loopback.ts";

export { isLoopback };

/**
 * Refuses, before anything starts, to serve without auth beyond loopback. Throws
 * `CONFIG_INVALID` (exit code 2) with a message naming both fixes.
 */
export function assertSafeExposure(gateway: GatewayConfig["gateway"], hostname: string): void {
  if (gateway.tokens !== null || isLoopback(hostname)) return;
  throw new GatewayError(
    "CONFIG_INVALID",
    `refusing to listen on ${hostname} without authentication: anyone who can reach it could ` +
      "call every tool. Add gateway.auth.tokens (see SECURITY.md), or listen on 127.0.0.1",
    { data: { path: ["gateway", "listen"] } },
  );
}
