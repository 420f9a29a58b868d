/**
 * Checks OAuth 2.1 access tokens (JWT, RFC 9068) with `jose`: the signature against the issuer's
 * JWKS (fetched once, cached, re-fetched when a token names an unknown key, at most once per
 * cooldown; after a failed fetch, not again before the cooldown either), the algorithm against a pinned list (checked before any key is fetched, so `none`
 * and HS* never get that far), `iss`, `aud`, `exp` (required) and `nbf` with a small clock
 * tolerance. Failures carry a stable `oauthError` for the `WWW-Authenticate` challenge; the
 * token itself never appears in an error or a log line.
 *
 * A client sends the same token with every request of a session, and a signature check costs
 * 0.2 ms on Bun and several ms on Deno, so accepted tokens are remembered (by SHA-256 digest,
 * at most {@link REMEMBERED} of them) for up to a minute, never past their expiry.
 */
import type { JWTPayload, JWTVerifyGetKey } from "jose";
import type { OAuthConfig } from "../../../config/mod.ts";
import { GatewayError } from "../../../shared/errors.ts";
import type { Logger } from "../../../shared/log.ts";
import { sha256 } from "../../../runtime/hash.ts";
import { discoverJwksUri } from "./discovery.ts";
import { globsOf, profilesOf } from "./scopes.ts";
import { fetchIssuerDocument } from "../../../shared/document-fetch.ts";

/** The identity an access token grants. */
export interface OAuthIdentity {
  /** `oauth:user:<sub>`, or `oauth:client:<client_id>` for a client acting as itself. */
  readonly name: string;
  readonly globs: readonly string[] | null;
  /** The profiles it may use (`gateway.auth.oauth.profiles`); `null` = every endpoint. */
  readonly profiles: readonly string[] | null;
  /** Epoch ms after which the token is refused: its `exp` plus the clock tolerance. */
  readonly expiresAt: number;
}

/** How many accepted tokens are remembered, and for how long at most. */
const REMEMBERED = 1000;
const REMEMBER_MS = 60_000;

type Jose = typeof import("jose");
let jose: Jose | undefined;
/**
 * `jose`, imported at the first token that needs a signature check: a gateway without
 * `gateway.auth.oauth` (most of them) never loads it, which keeps it out of the idle RSS.
 */
async function loadJose(): Promise<Jose> {
  return (jose ??= await import("jose"));
}

/** Three base64url segments (the last empty for `alg: none`): worth checking as a JWT. */
const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

/** True when `token` has the shape of a compact JWS. */
export function looksLikeJwt(token: string): boolean {
  return JWT_SHAPE.test(token);
}

/** Verifies access tokens for one `gateway.auth.oauth` config; keeps its key cache. */
export class OAuthVerifier {
  readonly config: OAuthConfig;
  #log: Logger;
  #keys: Promise<JWTVerifyGetKey> | null = null;
  #accepted = new Map<string, { identity: OAuthIdentity; until: number }>();

  constructor(config: OAuthConfig, log: Logger) {
    this.config = config;
    this.#log = log;
  }

  /**
   * The identity of a valid token. Throws `UNAUTHORIZED` (`invalid_token`) for a bad token,
   * `FORBIDDEN` (`insufficient_scope`) for a valid one that maps to no tool, and
   * `UPSTREAM_UNAVAILABLE` when the keys cannot be fetched.
   */
  async verify(token: string): Promise<OAuthIdentity> {
    const digest = Buffer.from(sha256(token)).toString("base64");
    const known = this.#accepted.get(digest);
    if (known && known.until > Date.now()) return known.identity;
    this.#accepted.delete(digest);
    const checked = await this.#check(token);
    this.#remember(digest, checked.exp, checked.identity);
    return checked.identity;
  }

  #remember(digest: string, exp: number, identity: OAuthIdentity): void {
    const until = Math.min(exp * 1000 + this.config.clockToleranceMs, Date.now() + REMEMBER_MS);
    if (this.#accepted.size >= REMEMBERED) {
      // Maps iterate in insertion order: drop the oldest.
      this.#accepted.delete(this.#accepted.keys().next().value!);
    }
    this.#accepted.set(digest, { identity, until });
  }

  async #check(token: string): Promise<{ identity: OAuthIdentity; exp: number }> {
    const keys = await this.#keySet();
    const { jwtVerify } = await loadJose();
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, keys, {
        issuer: this.config.issuer,
        audience: this.config.audience,
        algorithms: [...this.config.algorithms],
        clockTolerance: Math.round(this.config.clockToleranceMs / 1000),
        requiredClaims: ["exp"],
      }));
    } catch (err) {
      throw this.#refusal(err);
    }
    const name = identityOf(payload);
    if (name === null) throw invalid("the token names no subject (sub or client_id)");
    const globs = globsOf(payload, this.config);
    if (globs !== null && globs.length === 0) {
      this.#log.debug("access token grants no mapped scope", { tokenName: name });
      throw new GatewayError(
        "FORBIDDEN",
        "the access token grants none of the scopes this gateway maps to tools",
        { data: { oauthError: "insufficient_scope" } },
      );
    }
    const expiresAt = payload.exp! * 1000 + this.config.clockToleranceMs;
    const profiles = profilesOf(payload, this.config);
    return { identity: { name, globs, profiles, expiresAt }, exp: payload.exp! };
  }

  /** The key resolver: the configured JWKS, or the one the issuer's metadata names. */
  #keySet(): Promise<JWTVerifyGetKey> {
    if (this.#keys === null) {
      const uri = this.config.jwksUri;
      const keys = (uri !== null ? Promise.resolve(uri) : discoverJwksUri(this.config.issuer)).then(
        async (u) =>
          failureCooldown(
            (await loadJose()).createRemoteJWKSet(new URL(u), {
              cooldownDuration: this.config.jwksCooldownMs,
              timeoutDuration: 5_000,
              // Keys are a document like any other: bounded in scheme, time and size.
              [(await loadJose()).customFetch]: fetchIssuerDocument,
            }),
            this.config.jwksCooldownMs,
          ),
      );
      this.#keys = keys;
      // A failed discovery is retried, but not sooner than the cooldown: a down authorization
      // server must not turn every request into another fetch.
      keys.catch(() => {
        setTimeout(() => {
          if (this.#keys === keys) this.#keys = null;
        }, this.config.jwksCooldownMs).unref?.();
      });
    }
    return this.#keys;
  }

  /** Maps a `jose` failure (by its stable `code`) to the gateway error sent to the client. */
  #refusal(err: unknown): GatewayError {
    const code = (err as { code?: unknown } | null)?.code;
    const claim = (err as { claim?: unknown } | null)?.claim;
    const why = typeof code === "string" ? describe(code, claim) : null;
    if (why === null) {
      this.#log.warn("access token keys unavailable", {
        error: err instanceof Error ? err.message : String(err),
      });
      return new GatewayError(
        "UPSTREAM_UNAVAILABLE",
        "the authorization server's keys could not be fetched",
        { cause: err },
      );
    }
    this.#log.debug("access token refused", { reason: why });
    return invalid(why);
  }
}

/**
 * `getKey` that, once a key fetch failed (the JWKS endpoint down, answering an error or junk),
 * fails again with the same error without fetching until `cooldownMs` has passed. jose's own
 * cooldown only spaces refetches for unknown key ids after a successful fetch: a failing endpoint
 * was fetched again for every token presented, so forged tokens could drive the fetches. Token
 * faults (an unknown key id) are not failures of the endpoint and are passed on as they are.
 */
function failureCooldown(getKey: JWTVerifyGetKey, cooldownMs: number): JWTVerifyGetKey {
  let failed: { error: unknown; until: number } | null = null;
  return async (header, token) => {
    if (failed !== null && failed.until > Date.now()) throw failed.error;
    try {
      const key = await getKey(header, token);
      failed = null;
      return key;
    } catch (err) {
      const code = (err as { code?: unknown } | null)?.code;
      if (typeof code !== "string" || describe(code, undefined) === null) {
        failed = { error: err, until: Date.now() + cooldownMs };
      }
      throw err;
    }
  };
}

/**
 * The identity a token's claims name. A client acting on its own behalf (client credentials) is
 * `oauth:client:<client_id>`: its token has no `sub`, or — as RFC 9068 §2.2 has it — a `sub` that
 * is its own `client_id`. Any other `sub` is a user (resource owner), `oauth:user:<sub>`. The two
 * name spaces never meet, so client `alice` and user `alice` own separate sessions, tasks and
 * shares; the kind ends at the second colon, so no `sub` can pose as a client.
 */
export function identityOf(claims: JWTPayload): string | null {
  const text = (v: unknown) => typeof v === "string" && v !== "" ? v : null;
  const sub = text(claims.sub);
  const client = text(claims.client_id);
  if (sub !== null && sub !== client) return `oauth:user:${sub}`;
  return client === null ? null : `oauth:client:${client}`;
}

function invalid(description: string): GatewayError {
  return new GatewayError("UNAUTHORIZED", `invalid access token: ${description}`, {
    data: { oauthError: "invalid_token", description },
  });
}

const CLAIMS: Record<string, string> = {
  iss: "it was issued by another issuer",
  aud: "it is not meant for this resource (aud)",
  nbf: "it is not valid yet (nbf)",
  exp: "it has no expiry (exp)",
  iat: "its issue time (iat) is invalid",
};

/** Why a token was refused, from a `jose` error code; `null` when the fault is not the token's. */
function describe(code: string, claim: unknown): string | null {
  switch (code) {
    case "ERR_JWT_EXPIRED":
      return "it has expired";
    case "ERR_JWT_CLAIM_VALIDATION_FAILED":
      return CLAIMS[String(claim)] ?? `its ${String(claim)} claim is invalid`;
    case "ERR_JOSE_ALG_NOT_ALLOWED":
    case "ERR_JOSE_NOT_SUPPORTED":
      return "its signing algorithm is not accepted";
    case "ERR_JWKS_NO_MATCHING_KEY":
    case "ERR_JWKS_MULTIPLE_MATCHING_KEYS":
      return "it was signed by a key the issuer does not publish";
    case "ERR_JWS_SIGNATURE_VERIFICATION_FAILED":
      return "its signature does not verify";
    case "ERR_JWS_INVALID":
    case "ERR_JWT_INVALID":
      return "it is not a well-formed JWT";
    default:
      return null;
  }
}
