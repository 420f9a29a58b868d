/**
 * One token's share of the session table. Without it, one token could open
 * `gateway.limits.sessions` sessions and every other client would get `503`; with it, a token
 * holds at most `gateway.limits.sessionsPerToken` (default a quarter of the table), and other
 * tokens still get in. A 2026-07-28 `subscriptions/listen` stream is the stateless revision's
 * long-lived hold on the gateway, so it counts as a session here: in the table and in its
 * token's share. Anonymous sessions (no auth) only meet the table's own limit.
 */

/** Why a session is refused: the status, the limit met, and whose sessions fill it. */
export interface ShareRefusal {
  readonly status: 429 | 503;
  readonly message: string;
  /** The token whose share is full; `null`: the whole table is. */
  readonly of: string | null;
}

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
   * Why one more session or listen stream for `tokenName` is refused — the table is full
   * (`503`, every session counts) or the token holds its share (`429`, its own sessions count)
   * — or `null` when it fits. The caller words the answer (`./session-table.ts`).
   */
  refusal(
    open: OpenSessions,
    tokenName: string | null,
    limits: { readonly maxSessions: number; readonly perToken: number },
  ): ShareRefusal | null {
    if (open.size + this.#total >= limits.maxSessions) {
      return { status: 503, message: `too many sessions (limit ${limits.maxSessions})`, of: null };
    }
    if (tokenName === null) return null;
    let held = this.#streams.get(tokenName) ?? 0;
    for (const s of open.values()) if (s.tokenName === tokenName) held++;
    if (held < limits.perToken) return null;
    const message = `token "${tokenName}" holds ${held} sessions and listen streams, its share ` +
      `of the session table (gateway.limits.sessionsPerToken = ${limits.perToken})`;
    return { status: 429, message, of: tokenName };
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
