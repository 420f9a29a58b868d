/**
 * Connect links of `mode: per-user` servers: a link names one server and one client identity,
 * carries 256 random bits, is used once and expires after {@link LINK_TTL_MS}. Whoever opens it
 * logs in for that identity only; it is handed to that identity alone (in its own call's error,
 * URL elicitation or input round).
 */
import { randomBase64Url } from "../../runtime/hash.ts";

/** How long a connect link stays valid. */
export const LINK_TTL_MS = 10 * 60_000;

interface Link {
  server: string;
  identity: string;
  expiresAt: number;
}

/** The links handed out and not yet used. */
export class ConnectLinks {
  #byToken = new Map<string, Link>();

  /** A link for `identity` on `server`: a live one is reused while it has a minute left. */
  mint(server: string, identity: string): string {
    const now = Date.now();
    for (const [token, link] of this.#byToken) {
      if (link.expiresAt <= now) this.#byToken.delete(token);
      else if (
        link.server === server && link.identity === identity && link.expiresAt - now > 60_000
      ) return token;
    }
    const token = randomBase64Url(32);
    this.#byToken.set(token, { server, identity, expiresAt: now + LINK_TTL_MS });
    return token;
  }

  /** The link of `token`, used up; `undefined` when unknown, used or expired. */
  redeem(token: string): { server: string; identity: string } | undefined {
    const link = this.#byToken.get(token);
    this.#byToken.delete(token);
    if (!link || link.expiresAt <= Date.now()) return undefined;
    return { server: link.server, identity: link.identity };
  }
}
