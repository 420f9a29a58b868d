/**
 * The one request an upstream may send twice: over HTTP, a request the remote surely never
 * received (it refused the connection, or forgot the session: 404) is resent once over a fresh
 * connection, since a remote server restarts on its own schedule. Any other loss of the
 * connection fails the call and marks the upstream down.
 */
import type { GatewayError } from "../shared/errors.ts";
import { messageOf } from "../shared/errors.ts";
import type { CallContext } from "../shared/call-context.ts";
import type { RequestTerms } from "./caller.ts";
import type { Connection } from "./connect.ts";
import { reasonOf } from "./call-errors.ts";

/** What the rule needs from the upstream that owns the connection. */
export interface Line {
  /** The live connection, or none while the upstream is not up. */
  current(): Connection | undefined;
  /** True for an HTTP upstream (the only kind that is resent to). */
  http(): boolean;
  /** Replaces a lost connection now; the new one, or none when it did not come up. */
  reconnect(lost: Connection, why: string): Promise<Connection | undefined>;
  /** Drops a connection that failed under a call. */
  lose(lost: Connection, why: string): void;
  /** The error a call gets while the upstream is not up. */
  down(): GatewayError;
}

/** Sends one request over `line`, resending it once when the rule above allows. */
export function send(
  line: Line,
  method: string,
  params: Record<string, unknown> | undefined,
  call: CallContext,
  terms: RequestTerms,
): Promise<unknown> {
  const conn = line.current();
  if (!conn) return Promise.reject(line.down());
  // Only HTTP is resent: any other request is its connection's call alone, with no wait here.
  if (!line.http()) return conn.caller.call(method, params, call, terms);
  return sendResending(line, conn, method, params, call, terms);
}

async function sendResending(
  line: Line,
  conn: Connection,
  method: string,
  params: Record<string, unknown> | undefined,
  call: CallContext,
  terms: RequestTerms,
): Promise<unknown> {
  try {
    return await conn.caller.call(method, params, call, terms);
  } catch (err) {
    if (reasonOf(err) !== "unavailable") throw err;
    if ((err as GatewayError).data?.delivered !== false) {
      line.lose(conn, `connection lost: ${messageOf(err)}`);
      throw line.down();
    }
    const again = await line.reconnect(conn, messageOf(err));
    if (!again) throw line.down();
    return await again.caller.call(method, params, call, terms);
  }
}
