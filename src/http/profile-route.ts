/**
 * Which endpoint a request came to — `/mcp` and `/sse` serve the whole catalog, `/mcp/<profile>`
 * and `/sse/<profile>` one profile — and whether its token may use it. A token limited to
 * profiles (`gateway.auth.tokens[].profiles`) reaches only their endpoints: anywhere else,
 * plain `/mcp` included, it gets `403`, also for a profile that does not exist (so a limited
 * token learns nothing of the others). For other tokens an unknown profile is `404`.
 */
import { type Gateway, profileConfig } from "../gateway/mod.ts";
import { GatewayError } from "../shared/errors.ts";
import type { RequestIdentity } from "../session/mod.ts";

/** True when `path` is `/mcp` or `/mcp/<one segment>` (the pre-dispatch takes both). */
export function isMcpPath(path: string): boolean {
  return path === "/mcp" || (path.startsWith("/mcp/") && path.indexOf("/", 5) === -1);
}

/** The profile named by a `/mcp/<profile>` or `/sse/<profile>` path; `null` for `/mcp`, `/sse`. */
export function profileOfPath(path: string): string | null {
  const i = path.indexOf("/", 1);
  // Not decoded: profile names are URL-safe, so an escaped segment names no profile.
  return i === -1 ? null : path.slice(i + 1);
}

/**
 * `who` on the endpoint of `profile` (`null`: the whole catalog): the identity the doors see,
 * with the profile set; throws `FORBIDDEN` for a token not allowed there, or answers `404` for a
 * profile the config does not have.
 */
export function admitProfile(
  gateway: Gateway,
  who: RequestIdentity,
  profile: string | null,
): RequestIdentity | Response {
  const allowed = who.profiles ?? null;
  if (allowed !== null && (profile === null || !allowed.includes(profile))) {
    const where = profile === null ? "the whole catalog" : `profile "${profile}"`;
    throw new GatewayError(
      "FORBIDDEN",
      `token "${who.tokenName}" may not use ${where}; its profiles: ${allowed.join(", ")}`,
    );
  }
  if (profile === null) return who;
  if (!profileConfig(gateway.config, profile)) {
    return Response.json(
      { error: { code: "NOT_FOUND", message: `no profile "${profile}"` } },
      { status: 404 },
    );
  }
  return { ...who, profile };
}
