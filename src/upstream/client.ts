/**
 * What the gateway asks of a connected upstream client, whatever protocol era it speaks: the
 * SDK 1.x `Client` (2025 wire, a session) satisfies it as is, and `ModernClient` (the SDK v2
 * client pinned to 2026-07-28, stateless) adapts itself to it. Pass-through, lists and calls
 * are written once against this shape.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";

/** The protocol era an upstream connection negotiated. */
export type ProtocolEra = "legacy" | "modern";

/** The part of a connected client the gateway uses. */
export interface UpstreamClient {
  request: Client["request"];
  getServerCapabilities: Client["getServerCapabilities"];
  setRequestHandler: Client["setRequestHandler"];
  setNotificationHandler: Client["setNotificationHandler"];
  listTools: Client["listTools"];
  listPrompts: Client["listPrompts"];
  listResources: Client["listResources"];
  listResourceTemplates: Client["listResourceTemplates"];
  sendRootsListChanged(): Promise<void>;
  close(): Promise<void>;
}
