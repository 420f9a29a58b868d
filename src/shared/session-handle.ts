/**
 * The name a session goes by outside its own connection: a short hash of its id. A session id
 * lets whoever holds it post on the session, so the audit log, the status page and the admin
 * API never show one; they show this handle instead, the same in each, so an operator can find
 * a session's audit lines and end it by the one name.
 */
import { sha256Hex } from "../runtime/hash.ts";

/** The handle of session `id`: the first 16 hex digits of its SHA-256. */
export function sessionHandle(id: string): string {
  return sha256Hex(id).slice(0, 16);
}
