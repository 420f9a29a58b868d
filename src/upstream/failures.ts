/** Small judgments about upstream failures, kept apart from the lifecycle that uses them. */
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { ServerConfig } from "../config/mod.ts";
import { messageOf } from "../shared/errors.ts";

/** Calls `first`, then `second`. */
export function chain(first: (() => void) | undefined, second: () => void): () => void {
  return () => {
    first?.();
    second();
  };
}

/**
 * Calls `onEnd` once the transport closes, with the error it reported just before (e.g.
 * `server process exited with code 1`), if any.
 */
export function watchEnd(transport: Transport, onEnd: (why: string | undefined) => void): void {
  let why: string | undefined;
  const prevError = transport.onerror;
  transport.onerror = (err) => {
    why = messageOf(err);
    prevError?.(err);
  };
  transport.onclose = chain(transport.onclose, () => onEnd(why));
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
