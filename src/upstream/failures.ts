/** Small judgments about upstream failures, kept apart from the lifecycle that uses them. */
import type { ServerConfig } from "../config/mod.ts";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { GatewayError, messageOf } from "../shared/errors.ts";

/** Calls `first`, then `second`. */
export function chain(first: (() => void) | undefined, second: () => void): () => void {
  return () => {
    first?.();
    second();
  };
}

/** Anything but an answer from the server (JSON-RPC error, timeout) or a result-schema miss. */
export function isTransportFailure(err: unknown): boolean {
  return !(err instanceof McpError) && !(err instanceof GatewayError) &&
    !Array.isArray((err as { issues?: unknown }).issues);
}

/** True when a failed HTTP request surely never reached a live session (safe to resend). */
export function notDelivered(err: unknown): boolean {
  if ((err as { code?: unknown }).code === 404) return true;
  const text = `${messageOf(err)} ${messageOf((err as { cause?: unknown }).cause ?? "")} ${
    String((err as { code?: unknown }).code ?? "")
  } ${String((err as { cause?: { code?: unknown } }).cause?.code ?? "")}`;
  return /ECONNREFUSED|ConnectionRefused|Connection refused/i.test(text);
}

/** A start failure in an operator's words (`command not found: …`). */
export function describeStartError(config: ServerConfig, err: unknown): string {
  const code = (err as { code?: unknown }).code;
  if (config.kind === "stdio" && code === "ENOENT") {
    return `command not found: ${config.command}`;
  }
  if (config.kind === "stdio" && code === "EACCES") {
    return `command is not executable: ${config.command}`;
  }
  return messageOf(err);
}
