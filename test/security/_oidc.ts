/**
 * Starts the real authorization server of the OAuth tests (`_oidc/provider.mjs`, oidc-provider
 * under node in a child process, on 127.0.0.1:0) and talks to it over HTTP only; with it, the
 * audience the gateway of these tests is configured for and the bits of hand-made tokens.
 */
import { join } from "node:path";
import { nodeServer, ROOT } from "../_helpers/gateway.ts";
import { clientCredentialsToken, type OAuthClient, spawnNode } from "../_helpers/oauth.ts";

/** The audience (resource) of the gateway in the OAuth tests. */
export const AUDIENCE = "https://mcp.example.test/mcp";

/** Base64url of a value's JSON: a part of a hand-made JWT. */
export const b64url = (v: unknown): string => Buffer.from(JSON.stringify(v)).toString("base64url");

/** The time now in whole seconds, as JWT claims count it. */
export const now = (): number => Math.floor(Date.now() / 1000);

/**
 * A gateway config whose `gateway.auth.oauth` trusts `issuer` for {@link AUDIENCE}, maps scope
 * `tools:echo` to `echo__echo` and `tools:all` to every tool, and fetches keys without a
 * cooldown (`jwksCooldown: 0s`); before the echo fixture server. `auth` adds lines under
 * `gateway.auth` (indented 4), `oauth` under its `oauth` (indented 6), each ending in a newline.
 */
export const oauthYaml = (issuer: string, { auth = "", oauth = "" } = {}): string => `
gateway:
  auth:
${auth}    oauth:
      issuer: ${issuer}
      audience: ${AUDIENCE}
      scopes:
        "tools:echo": ["echo__echo"]
        "tools:all": ["*"]
      jwksCooldown: 0s
${oauth}servers:
  echo: ${nodeServer("echo.mjs")}
`;

/** A client of the provider: client_credentials with these scopes; `ttl` in seconds. */
export interface ProviderClient extends OAuthClient {
  scope: string;
  ttl?: number;
}

/** A running provider. */
export interface TestProvider {
  issuer: string;
  /** An access token for `resource` from the token endpoint (client_credentials grant). */
  token(client: ProviderClient, resource: string, scope?: string): Promise<string>;
  /** Publishes a new signing key first in the JWKS; returns its `kid`. */
  rotate(): Promise<string>;
  /** Signs arbitrary claims with the current signing key (a token the provider never issued). */
  sign(claims: Record<string, unknown>, header?: Record<string, unknown>): Promise<string>;
  stop(): Promise<void>;
}

/** Starts a provider; rejects if it does not say where it listens within 15 s. */
export async function startProvider(
  clients: ProviderClient[],
  scopes: string,
): Promise<TestProvider> {
  const script = join(ROOT, "test/security/_oidc/provider.mjs");
  const child = await spawnNode([script, JSON.stringify({ clients, scopes })]);
  const { issuer } = JSON.parse(child.line) as { issuer: string };
  const post = async (path: string, body: unknown) => {
    const res = await fetch(issuer + path, { method: "POST", body: JSON.stringify(body) });
    if (res.status !== 200) throw new Error(`${path} answered ${res.status}: ${await res.text()}`);
    return await res.json() as Record<string, string>;
  };
  return {
    issuer,
    token: (client, resource, scope = client.scope) =>
      clientCredentialsToken(issuer, client, resource, scope),
    rotate: async () => (await post("/__rotate", {})).kid!,
    sign: async (claims, header) => (await post("/__sign", { claims, header })).token!,
    stop: child.stop,
  };
}
