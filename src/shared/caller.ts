/**
 * @module Who a call is for: the token it came with, the globs that token may call, the profile
 * endpoint it came to. It lives in `shared/` because the call's context (`./call-context.ts`)
 * carries it from the door down; the gateway core reads it, the upstream layer never does.
 */

/** Who is calling: the session and the token it authenticated with. */
export interface Caller {
  readonly sessionId: string | null;
  /** Token name (never its value); `null` without auth. */
  readonly tokenName: string | null;
  /**
   * The token's tool globs; `null` = every tool. Callers the doors build (`callerOf` in
   * `src/session/door.ts`) read them from the running config at each access, so a reload applies
   * to sessions and scripts already running.
   */
  readonly toolGlobs: readonly string[] | null;
  /**
   * The profile whose endpoint the caller came in on (`/mcp/<profile>`, `--stdio --profile`);
   * `null` = the whole catalog. The gateway reads its definition from the running config at
   * each check (`gateway/profiles.ts`).
   */
  readonly profile: string | null;
  /**
   * The OAuth access token the caller presented, for `oauth: mode: exchange` upstreams only
   * (RFC 8693 subject token): exchanged at the issuer, never sent upstream or logged.
   */
  readonly subjectToken?: string;
}

/** A caller with no session and no restrictions (the command line, the gateway's own reads). */
export const LOCAL_CALLER: Caller = Object.freeze({
  sessionId: null,
  tokenName: null,
  toolGlobs: null,
  profile: null,
});
