/**
 * The seam between the HTTP layer and the front doors: who presents a request, resolved by the
 * HTTP layer's auth (`src/http/security/`) and handed to the door that serves the request, and
 * the one way that identity becomes the gateway core's `Caller` ({@link callerOf}) — for every
 * door, `--stdio` included.
 */
import type { GatewayConfig } from "../config/mod.ts";
import { type Caller, configuredToken } from "../gateway/mod.ts";

/**
 * Identity of the request's caller, resolved by auth middleware (or none). The one identity type
 * from the HTTP layer down: each door takes it as it is, and {@link callerOf} turns it into the
 * gateway's `Caller`.
 */
export interface RequestIdentity {
  tokenName: string | null;
  toolGlobs: readonly string[] | null;
  /**
   * The profiles the token may use (`gateway.auth.tokens[].profiles`); absent or `null` = every
   * endpoint. Checked by the app's router before the request reaches a door.
   */
  profiles?: readonly string[] | null;
  /** The profile whose endpoint (`/mcp/<profile>`, `/sse/<profile>`) the request came to. */
  profile?: string | null;
  /** An admin token (`gateway.auth.tokens[].admin`): may read metrics and the status page. */
  admin?: boolean;
  /** Signed in through the status page's cookie: serves the status routes only, never `/mcp`. */
  browser?: boolean;
  /**
   * When the presented token expires (epoch ms: an OAuth access token's `exp` plus the clock
   * tolerance); absent for configured tokens. Streams it opens are closed then.
   */
  expiresAt?: number;
  /**
   * The presented OAuth access token itself, for `oauth: mode: exchange` upstreams (RFC 8693
   * subject token). Never logged, never forwarded: only exchanged at the issuer.
   */
  subjectToken?: string;
}

/**
 * The identity of a request nobody authenticated (no tokens configured): one shared object,
 * frozen, since every such request is handed it.
 */
export const ANONYMOUS: RequestIdentity = Object.freeze({ tokenName: null, toolGlobs: null });

/**
 * A front door: one protocol revision's (or transport's) way into the gateway core. The app
 * routes `/mcp` and `/sse` (each also as `/<endpoint>/<profile>`) and `/message` by asking its
 * doors in order (`src/cli/serve.ts` lists them); the first that accepts a request serves it. A
 * new door is a folder of its own under `src/session/` whose object has this shape, and one
 * more entry in that list.
 */
export interface Door<Ticket = unknown> {
  /**
   * Whether `request`, sent to `path` (its URL's path, read once by the app), is this door's:
   * `false` when it is not, else a ticket — what the door learnt deciding (a body it read, a
   * classification), handed to {@link Door.fetch} so that nothing is read twice. A door that
   * read the body to decide (without a clone: the hot path) and declines returns a readable copy
   * of the request instead, which the doors after it get. Answered without a promise when the
   * headers or the path decide, so a request another door takes costs no wait here. A ticket is
   * never a `Request`.
   */
  accepts(
    request: Request,
    path: string,
  ): Ticket | Request | false | Promise<Ticket | Request | false>;
  /** Serves `request`, accepted with `ticket`, for `identity`. */
  fetch(request: Request, identity: RequestIdentity, ticket: Ticket): Promise<Response>;
}

const NO_SESSION = () => null;

/**
 * The gateway caller of `who`, on the session `sessionId()` names (read per use: a 2025 session's
 * id arrives late; none by default, as on the 2026-07-28 door and `--stdio`). Its globs are read
 * from the running config (`gateway.config`) at every check, so a reload that narrows a
 * configured token applies to every open session, every transport and every script already
 * running on its behalf; an identity the config does not list (anonymous, an OAuth token) keeps
 * the globs it came with. The profile and the OAuth subject token travel as they came; the HTTP
 * layer's own fields (admin, profiles, browser, expiry) stay there.
 */
export function callerOf(
  gateway: { readonly config: GatewayConfig },
  who: RequestIdentity,
  sessionId: () => string | null = NO_SESSION,
): Caller {
  return new IdentityCaller(gateway, who, sessionId);
}

/**
 * True when `caller` (one {@link callerOf} made) is what `callerOf` would make of `who` for the
 * same gateway and session: a door may keep it for the next request instead of making another.
 */
export function callerServes(caller: Caller, who: RequestIdentity): boolean {
  return caller instanceof IdentityCaller && caller.serves(who);
}

/**
 * The caller {@link callerOf} makes: a class, so its two live fields are getters on the
 * prototype and a request's caller is one small object, not a literal with getters and a spread.
 */
class IdentityCaller implements Caller {
  readonly tokenName: string | null;
  readonly profile: string | null;
  declare readonly subjectToken?: string;
  readonly #gateway: { readonly config: GatewayConfig };
  readonly #who: RequestIdentity;
  readonly #sessionId: () => string | null;

  constructor(
    gateway: { readonly config: GatewayConfig },
    who: RequestIdentity,
    sessionId: () => string | null,
  ) {
    this.tokenName = who.tokenName;
    this.profile = who.profile ?? null;
    if (who.subjectToken !== undefined) {
      (this as { subjectToken?: string }).subjectToken = who.subjectToken;
    }
    this.#gateway = gateway;
    this.#who = who;
    this.#sessionId = sessionId;
  }

  get sessionId(): string | null {
    return this.#sessionId();
  }

  get toolGlobs(): readonly string[] | null {
    const token = configuredToken(this.#gateway.config, this.#who.tokenName);
    return token ? token.tools : this.#who.toolGlobs;
  }

  /**
   * True when a caller of `who` would be this one: same token, profile, subject token and
   * globs it falls back on (a 2025 session keeps its caller while its requests present these).
   */
  serves(who: RequestIdentity): boolean {
    const own = this.#who;
    return who === own || (
      who.tokenName === own.tokenName && (who.profile ?? null) === this.profile &&
      who.subjectToken === own.subjectToken && who.toolGlobs === own.toolGlobs
    );
  }
}
