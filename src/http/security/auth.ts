/**
 * Bearer-token auth. Presented tokens are compared in constant time against every configured
 * token (SHA-256 digests of equal length through `sameBytes`), so neither the length nor
 * the position of a match leaks through timing. The token's name, tool globs and profiles become
 * the request's identity; the value is never logged.
 */
import { sameBytes, sha256 } from "../../runtime/hash.ts";
import type { TokenConfig } from "../../config/mod.ts";
import { GatewayError } from "../../shared/errors.ts";
import type { Logger } from "../../shared/log.ts";
import { ANONYMOUS, type RequestIdentity } from "../../session/mod.ts";

/** Options for {@link authenticator}. */
export interface BearerAuthOptions {
  /** The live token list (`null` = auth off); read per request so a reload takes effect. */
  tokens: () => readonly TokenConfig[] | null;
  /** Fail closed when the list is `null` (listening beyond loopback). */
  required: boolean;
  log: Logger;
  /**
   * Consulted when a presented token matches no configured one (OAuth access tokens): resolves
   * to its identity, to `null` to refuse it as unknown, or throws its own refusal.
   */
  verify?: (
    presented: string,
  ) => Promise<
    {
      name: string;
      globs: readonly string[] | null;
      admin?: boolean;
      profiles?: readonly string[] | null;
      expiresAt?: number;
    } | null
  >;
  /** True while OAuth access tokens are accepted: a refusal then says where to get one. */
  oauth?: () => boolean;
}

interface Known {
  readonly name: string;
  readonly digest: Uint8Array;
  readonly globs: readonly string[] | null;
  readonly admin: boolean;
  readonly profiles: readonly string[] | null;
}

const digests = new WeakMap<readonly TokenConfig[], readonly Known[]>();

function known(tokens: readonly TokenConfig[]): readonly Known[] {
  let out = digests.get(tokens);
  if (!out) {
    out = tokens.map((t) => ({
      name: t.name,
      digest: sha256(t.token),
      globs: t.tools,
      admin: t.admin,
      profiles: t.profiles,
    }));
    digests.set(tokens, out);
  }
  return out;
}

/** The token of an `Authorization: Bearer …` header, or `null`. */
export function bearerToken(header: string | undefined): string | null {
  const m = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header ?? "");
  return m ? m[1]! : null;
}

/** The configured token matching `presented`, compared in constant time; `null` when none. */
export function matchToken(
  tokens: readonly TokenConfig[],
  presented: string,
): {
  name: string;
  globs: readonly string[] | null;
  admin: boolean;
  profiles: readonly string[] | null;
} | null {
  const probe = sha256(presented);
  let hit: Known | null = null;
  // Every token is compared, so the time taken does not depend on which one matched.
  for (const k of known(tokens)) {
    if (sameBytes(k.digest, probe) && hit === null) hit = k;
  }
  return hit && { name: hit.name, globs: hit.globs, admin: hit.admin, profiles: hit.profiles };
}

/**
 * Who presented the request's `Authorization` header, or a thrown `UNAUTHORIZED`: the chain's
 * auth check (`chain.ts`), OAuth access tokens included through `verify`. Answered without a
 * promise unless `verify` is asked (auth off, a configured token, no token): the chain waits
 * only for what must be waited for.
 */
export function authenticator(
  options: BearerAuthOptions,
): (authorization: string | null, path: string) => RequestIdentity | Promise<RequestIdentity> {
  return function authenticate(authorization, path) {
    const tokens = options.tokens();
    if (tokens === null) {
      if (options.required) {
        throw new GatewayError(
          "UNAUTHORIZED",
          "authentication is required beyond loopback but no tokens are configured",
        );
      }
      return ANONYMOUS;
    }
    const presented = bearerToken(authorization ?? undefined);
    if (presented === null) throw refused(options, presented, path);
    const match = matchToken(tokens, presented);
    if (match) return identityOf(match, presented);
    if (!options.verify) throw refused(options, presented, path);
    return verified(options, options.verify, presented, path);
  };
}

/**
 * An OAuth access token's identity, once verified. A function of its own: its closure's scope
 * is then made only for the requests that wait on a verification, not for every request.
 */
function verified(
  options: BearerAuthOptions,
  verify: NonNullable<BearerAuthOptions["verify"]>,
  presented: string,
  path: string,
): Promise<RequestIdentity> {
  return verify(presented).then((match) => {
    if (!match) throw refused(options, presented, path);
    return identityOf(match, presented);
  });
}

type Matched = NonNullable<Awaited<ReturnType<NonNullable<BearerAuthOptions["verify"]>>>>;

/** The refusal of a request that presented no token (`null`) or an unknown one. */
function refused(options: BearerAuthOptions, presented: string | null, path: string): GatewayError {
  options.log.debug("unauthenticated request refused", {
    path,
    reason: presented === null ? "no bearer token" : "unknown token",
  });
  const what = presented === null ? "a bearer token is required" : "invalid bearer token";
  return new GatewayError("UNAUTHORIZED", `${what}: ${wayIn(options.oauth?.() === true)}`);
}

/** The identity of a token that matched (a configured one, or an OAuth access token). */
function identityOf(match: Matched, presented: string): RequestIdentity {
  // OAuth identities are never admin (the status routes stay with configured tokens); they are
  // limited to profiles only by `gateway.auth.oauth.profiles` (their scopes' globs apply too).
  const who: RequestIdentity = {
    tokenName: match.name,
    toolGlobs: match.globs,
    admin: match.admin === true,
    profiles: match.profiles ?? null,
  };
  if ("expiresAt" in match && typeof match.expiresAt === "number") {
    who.expiresAt = match.expiresAt;
    who.subjectToken = presented; // exchanged, never forwarded
  }
  return who;
}

/** How a refused client gets in, for the 401's message (the challenge header says it too). */
function wayIn(oauth: boolean): string {
  return oauth
    ? "send Authorization: Bearer with a configured token or an OAuth access token " +
      "(WWW-Authenticate names the resource metadata)"
    : "send Authorization: Bearer with a token from gateway.auth.tokens; " +
      "this gateway has no OAuth, so no login flow can get one";
}
