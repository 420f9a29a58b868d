/**
 * Hearing a transport end: the lifecycle learns that its connection closed, and why when the
 * transport said so just before.
 */
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
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
