/**
 * What the gateway asks of a connected upstream client beside its requests (which go through
 * the connection's caller, caller.ts), whatever protocol era it speaks: the SDK 1.x `Client`
 * (2025 wire, a session) satisfies it as is, and `ModernClient` (the SDK v2 client pinned to
 * 2026-07-28, stateless) adapts itself to it. Pass-through registers its handlers once against
 * this shape.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";

/** The protocol era an upstream connection negotiated. */
export type ProtocolEra = "legacy" | "modern";

/** The part of a connected client the gateway uses. */
export interface UpstreamClient {
  getServerCapabilities: Client["getServerCapabilities"];
  setRequestHandler: Client["setRequestHandler"];
  setNotificationHandler: Client["setNotificationHandler"];
  sendRootsListChanged(): Promise<void>;
  close(): Promise<void>;
}
