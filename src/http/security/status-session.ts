/**
 * Status-page sign-in without a token in a URL: after the token is posted once, the browser keeps
 * a cookie holding `<token name>.<expiry>.<HMAC>` — never the token. The HMAC key is random per
 * process (a restart signs everyone out) and covers a digest of the token's value, so rotating or
 * removing the token, or taking away its `admin` flag, ends the session at the next request.
 */
import { hmacSha256, randomBytes, sameBytes, sha256 } from "../../runtime/hash.ts";
import type { TokenConfig } from "../../config/mod.ts";

/** The cookie's name. */
export const STATUS_COOKIE = "mcpgw_status";
/** How long a sign-in lasts: 12 hours. */
export const STATUS_SESSION_TTL_MS = 12 * 60 * 60 * 1000;

const VALUE = /^([A-Za-z0-9][A-Za-z0-9_-]{0,47})\.(\d{1,12})\.([A-Za-z0-9_-]{43})$/;

/** Options for {@link StatusSessions} (tests move the clock). */
export interface StatusSessionOptions {
  ttlMs?: number;
  now?: () => number;
}

/** Issues and checks signed status-page session values. */
export class StatusSessions {
  readonly #key = randomBytes(32);
  readonly #ttlMs: number;
  readonly #now: () => number;

  constructor(options: StatusSessionOptions = {}) {
    this.#ttlMs = options.ttlMs ?? STATUS_SESSION_TTL_MS;
    this.#now = options.now ?? Date.now;
  }

  /** Lifetime of a session in milliseconds. */
  get ttlMs(): number {
    return this.#ttlMs;
  }

  /** A signed session value for an admin token. */
  issue(token: TokenConfig): string {
    const expires = Math.floor((this.#now() + this.#ttlMs) / 1000);
    return `${token.name}.${expires}.${this.#mac(token, expires)}`;
  }

  /**
   * The admin token a session value belongs to, or `null` when the value is malformed, tampered
   * with, expired, or its token is gone, rotated or no longer admin.
   */
  verify(value: string, tokens: readonly TokenConfig[]): TokenConfig | null {
    const m = VALUE.exec(value);
    if (!m) return null;
    const expires = Number(m[2]);
    if (expires * 1000 <= this.#now()) return null;
    const token = tokens.find((t) => t.name === m[1]);
    if (!token?.admin) return null;
    const expected = new TextEncoder().encode(this.#mac(token, expires));
    const given = new TextEncoder().encode(m[3]!);
    return sameBytes(expected, given) ? token : null;
  }

  #mac(token: TokenConfig, expires: number): string {
    const mac = hmacSha256(this.#key, `${token.name}\n${expires}\n`, sha256(token.token));
    return Buffer.from(mac).toString("base64url");
  }
}
