/**
 * One token's share of the session table. Without it, one token could open
 * `gateway.limits.sessions` sessions and every other client would get `503`; with it, a token
 * holds at most `gateway.limits.sessionsPerToken` (default a quarter of the table), and other
 * tokens still get in. A 2026-07-28 `subscriptions/listen` stream is the stateless revision's
 * long-lived hold on the gateway, so it counts as a session here: in the table and in its
 * token's share. Anonymous sessions (no auth) only meet the table's own limit.
 */
import { jsonError } from "./sse.ts";

/** What the share needs to know about the open sessions. */
export interface OpenSessions {
  readonly size: number;
  values(): Iterable<{ readonly tokenName: string | null }>;
}

/** The listen streams open beside the sessions, and the admission of both. */
export class SessionShares {
  #streams = new Map<string | null, number>();
  #total = 0;

  /** Listen streams open now. */
  get streams(): number {
    return this.#total;
  }

  /**
   * The answer refusing one more session or listen stream to `tokenName` — `503` when the table
   * is full, `429` past the token's share — or `null` when it fits.
   */
  refusal(
    open: OpenSessions,
    tokenName: string | null,
    limits: { readonly maxSessions: number; readonly perToken: number },
  ): Response | null {
    if (open.size + this.#total >= limits.maxSessions) {
      return jsonError(503, -32000, `too many sessions (limit ${limits.maxSessions})`);
    }
    if (tokenName === null) return null;
    let held = this.#streams.get(tokenName) ?? 0;
    for (const s of open.values()) if (s.tokenName === tokenName) held++;
    if (held < limits.perToken) return null;
    const message = `token "${tokenName}" holds ${held} sessions and listen streams, its share ` +
      `of the session table (gateway.limits.sessionsPerToken = ${limits.perToken}); close one ` +
      `before opening another`;
    return jsonError(429, -32000, message);
  }

  /** Counts one listen stream of `tokenName`; returns what ends it (idempotent). */
  hold(tokenName: string | null): () => void {
    this.#streams.set(tokenName, (this.#streams.get(tokenName) ?? 0) + 1);
    this.#total++;
    let done = false;
    return () => {
      if (done) return;
      done = true;
      this.#total--;
      const left = (this.#streams.get(tokenName) ?? 1) - 1;
      if (left > 0) this.#streams.set(tokenName, left);
      else this.#streams.delete(tokenName);
    };
  }
}
