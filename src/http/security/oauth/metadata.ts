/**
 * How an OAuth client finds its way (MCP authorization, RFC 9728): the protected resource
 * metadata document, open to anyone, and a `resource_metadata` hint on every 401 so a client
 * that meets the gateway without a token learns which authorization server to ask.
 */
import type { MiddlewareHandler } from "hono";
import type { OAuthConfig } from "../../../config/mod.ts";
import { GatewayError } from "../../../shared/errors.ts";
import type { AppEnv } from "../../app.ts";
import { bearerToken } from "../auth.ts";

/** Where RFC 9728 puts the metadata of a resource with no path. */
export const METADATA_PATH = "/.well-known/oauth-protected-resource";

/** The public URL of the metadata document of `resource` (path-suffixed, RFC 9728 §3.1). */
export function metadataUrl(resource: string): string {
  const url = new URL(resource);
  const path = url.pathname === "/" ? "" : url.pathname.replace(/\/$/, "");
  return `${url.origin}${METADATA_PATH}${path}`;
}

/** The protected resource metadata document. */
export function metadataDocument(config: OAuthConfig): Record<string, unknown> {
  return {
    ...config.resourceMetadata,
    resource: config.audience,
    authorization_servers: [config.issuer],
    bearer_methods_supported: ["header"],
  };
}

/** The paths the document is served on: the bare form, `/mcp`, and the resource's own path. */
function servesPath(path: string, config: OAuthConfig): boolean {
  if (!path.startsWith(METADATA_PATH)) return false;
  const rest = path.slice(METADATA_PATH.length).replace(/\/$/, "");
  return rest === "" || rest === "/mcp" || rest === new URL(config.audience).pathname;
}

/**
 * Middleware (first in the chain): answers `GET` on the metadata paths without auth or origin
 * checks (the document is public, and browser clients fetch it cross-origin). Without OAuth
 * configured the paths are ordinary unknown routes.
 */
export function protectedResourceMetadata(
  oauth: () => OAuthConfig | null,
): MiddlewareHandler<AppEnv> {
  return async function protectedResourceMetadata(c, next) {
    const config = oauth();
    if (config === null || c.req.method !== "GET" || !servesPath(c.req.path, config)) {
      return await next();
    }
    return c.json(metadataDocument(config), 200, {
      "access-control-allow-origin": "*",
      "cache-control": "max-age=300",
    });
  };
}

/** A quoted-string for an auth-param: printable ASCII only, no quotes or backslashes. */
function quoted(value: string): string {
  return `"${value.replace(/[^\x20\x21\x23-\x5b\x5d-\x7e]/g, " ")}"`;
}

/** The `WWW-Authenticate` value for a refusal (RFC 6750 §3, plus `resource_metadata`). */
export function challenge(config: OAuthConfig, err: unknown, tokenPresented: boolean): string {
  const parts = [`Bearer realm="mcp-gateway"`];
  const data = err instanceof GatewayError ? err.data : undefined;
  const oauthError = typeof data?.oauthError === "string" ? data.oauthError : null;
  if (oauthError !== null) {
    parts.push(`error=${quoted(oauthError)}`);
    if (typeof data?.description === "string") {
      parts.push(`error_description=${quoted(data.description)}`);
    }
  } else if (tokenPresented) {
    // RFC 6750: no error code when no token was sent; an unknown token is an invalid one.
    parts.push(`error="invalid_token"`, `error_description="unknown bearer token"`);
  }
  const scopes = config.resourceMetadata.scopes_supported;
  if (oauthError === "insufficient_scope" && Array.isArray(scopes) && scopes.length > 0) {
    parts.push(`scope=${quoted(scopes.join(" "))}`);
  }
  parts.push(`resource_metadata=${quoted(metadataUrl(config.audience))}`);
  return parts.join(", ");
}

/**
 * Middleware (before bearer auth): with OAuth configured, rewrites the challenge of every 401,
 * and of a 403 for insufficient scope, to carry the error and the `resource_metadata` hint.
 */
export function oauthChallenge(oauth: () => OAuthConfig | null): MiddlewareHandler<AppEnv> {
  return async function oauthChallenge(c, next) {
    await next();
    addChallenge(oauth(), c.res, c.error, c.req.raw.headers.get("authorization"));
  };
}

/**
 * With OAuth configured, puts the challenge on `res` when it refuses the request (401, or 403
 * for an insufficient scope); `err` is what the request was refused with, if it was thrown.
 */
export function addChallenge(
  config: OAuthConfig | null,
  res: Response,
  err: unknown,
  authorization: string | null,
): void {
  if (config === null) return;
  const scope = err instanceof GatewayError && err.data?.oauthError === "insufficient_scope";
  if (res.status !== 401 && !(res.status === 403 && scope)) return;
  const presented = bearerToken(authorization ?? undefined) !== null;
  res.headers.set("WWW-Authenticate", challenge(config, err, presented));
}
