/**
 * How a client finds its way (MCP authorization, RFC 9728): with OAuth, the protected resource
 * metadata document, open to anyone, and a `resource_metadata` hint on every 401 so a client
 * that meets the gateway without a token learns which authorization server to ask. Without OAuth,
 * every 401 still carries a `Bearer` challenge (RFC 9110 requires one), saying that a configured
 * token is the only way in, and the OAuth discovery paths answer 404 without a token: a 401 there
 * sent OAuth-capable clients (mcp-remote, mcporter, Inspector) into a login that cannot succeed.
 */
import type { OAuthConfig } from "../../../config/mod.ts";
import { GatewayError } from "../../../shared/errors.ts";
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

/** Where RFC 8615 puts well-known documents; the gateway serves none there but the metadata. */
const WELL_KNOWN = "/.well-known/";

/** What a client is told in a 401 and at the discovery paths when OAuth is not configured. */
export const NO_OAUTH =
  "this gateway takes a bearer token from its configuration (gateway.auth.tokens) and has no OAuth";

/**
 * The chain's first step (`../chain.ts`): the answer to a `GET` or `HEAD` under
 * `/.well-known/`, given without auth or origin checks — the metadata document where it is
 * served (it is public, and browser clients fetch it cross-origin), `404` everywhere else, so a
 * client probing for OAuth (protected resource or authorization server metadata, OpenID
 * configuration) learns there is none instead of being asked for a token it cannot get. `null`
 * for every other request.
 */
export function discoveryAnswer(
  config: OAuthConfig | null,
  method: string,
  path: string,
): Response | null {
  if ((method !== "GET" && method !== "HEAD") || !path.startsWith(WELL_KNOWN)) return null;
  if (config !== null && servesPath(path, config)) {
    return json(metadataDocument(config), 200, { "cache-control": "max-age=300" });
  }
  const message = config === null
    ? `no OAuth metadata at ${path}: ${NO_OAUTH}`
    : `no document at ${path}; the protected resource metadata is at ${
      metadataUrl(config.audience)
    }`;
  return json({ error: { code: "NOT_FOUND", message } }, 404, {});
}

/** A JSON answer open to every origin, as hono's `c.json` writes it. */
function json(body: unknown, status: number, headers: Record<string, string>): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: {
      "access-control-allow-origin": "*",
      ...headers,
      "content-type": "application/json",
    },
  });
}

/** A quoted-string for an auth-param: printable ASCII only, no quotes or backslashes. */
function quoted(value: string): string {
  return `"${value.replace(/[^\x20\x21\x23-\x5b\x5d-\x7e]/g, " ")}"`;
}

/**
 * The `WWW-Authenticate` value for a refusal (RFC 6750 §3): with OAuth, the error and
 * `resource_metadata`; without, an `error_description` saying a configured token is the only way
 * in (RFC 6750 asks for no error details when no token was sent, but a client that starts an
 * OAuth login on any 401 is better told plainly).
 */
export function challenge(
  config: OAuthConfig | null,
  err: unknown,
  tokenPresented: boolean,
): string {
  const parts = [`Bearer realm="mcp-gateway"`];
  if (config === null) {
    if (tokenPresented) parts.push(`error="invalid_token"`);
    parts.push(`error_description=${quoted(NO_OAUTH)}`);
    return parts.join(", ");
  }
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
 * Puts the challenge on `res` when it refuses the request (401, or with OAuth configured a 403
 * for an insufficient scope); `err` is what the request was refused with, if it was thrown, and
 * `authorization` reads the request's `Authorization` header. The chain runs it on every
 * answer, whichever route gave it (the status page's sign-in form too).
 */
export function addChallenge(
  config: OAuthConfig | null,
  res: Response,
  err: unknown,
  authorization: () => string | null,
): void {
  const scope = config !== null && err instanceof GatewayError &&
    err.data?.oauthError === "insufficient_scope";
  if (res.status !== 401 && !(res.status === 403 && scope)) return;
  // Read only here: most answers get no challenge and need no header read.
  const presented = bearerToken(authorization() ?? undefined) !== null;
  res.headers.set("WWW-Authenticate", challenge(config, err, presented));
}
