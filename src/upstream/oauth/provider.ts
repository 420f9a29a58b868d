/**
 * The SDK's `OAuthClientProvider` for one login attempt: the SDK's `auth()` runs discovery
 * (RFC 9728, RFC 8414 / OIDC), dynamic client registration (RFC 7591) when no `clientId` is
 * configured, PKCE S256 and the RFC 8707 `resource`; this object only holds what it hands over
 * (the client, the verifier, the tokens) until the login completes and is stored.
 */
import type {
  OAuthClientProvider,
  OAuthDiscoveryState,
} from "@modelcontextprotocol/sdk/client/auth.js";
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from "@modelcontextprotocol/sdk/shared/auth.js";
import type { HttpServerConfig } from "../../config/mod.ts";
import { NAME } from "../../version.ts";
import type { StoredCredential } from "./store.ts";

/** One login attempt's side of the OAuth client. */
export class LoginProvider implements OAuthClientProvider {
  readonly redirectUrl: string;
  #state: string;
  #server: HttpServerConfig;
  #scope: string | undefined;
  client: OAuthClientInformationMixed | undefined;
  obtained: OAuthTokens | undefined;
  authorizationUrl: URL | undefined;
  discovery: OAuthDiscoveryState | undefined;
  #verifier = "";

  constructor(
    server: HttpServerConfig,
    redirectUrl: string,
    state: string,
    scope: string | undefined,
    prior: StoredCredential | undefined,
  ) {
    this.#server = server;
    this.redirectUrl = redirectUrl;
    this.#state = state;
    this.#scope = scope;
    const oauth = server.oauth!;
    if (oauth.clientId !== null) {
      this.client = {
        client_id: oauth.clientId,
        ...(oauth.clientSecret !== null ? { client_secret: oauth.clientSecret } : {}),
      };
    } else if (prior?.client && reusable(prior, server.url, redirectUrl, scope)) {
      // The client registered by an earlier login is reused while its redirect URI and its
      // registered scope still hold (a step-up registers again: the old one may not ask more).
      this.client = prior.client;
    }
    if (oauth.issuer !== null) this.discovery = { authorizationServerUrl: oauth.issuer };
  }

  get clientMetadata(): OAuthClientMetadata {
    const secret = this.#server.oauth?.clientSecret ?? null;
    return {
      client_name: `${NAME} (${this.#server.name})`,
      redirect_uris: [this.redirectUrl],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: secret === null ? "none" : "client_secret_basic",
      ...(this.#scope ? { scope: this.#scope } : {}),
    };
  }

  state(): string {
    return this.#state;
  }
  clientInformation(): OAuthClientInformationMixed | undefined {
    return this.client;
  }
  saveClientInformation(client: OAuthClientInformationMixed): void {
    this.client = client;
  }
  /** A login starts from nothing: earlier tokens are never refreshed by it. */
  tokens(): OAuthTokens | undefined {
    return undefined;
  }
  saveTokens(tokens: OAuthTokens): void {
    this.obtained = tokens;
  }
  redirectToAuthorization(url: URL): void {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string): void {
    this.#verifier = verifier;
  }
  codeVerifier(): string {
    return this.#verifier;
  }
  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.discovery = state;
  }
  discoveryState(): OAuthDiscoveryState | undefined {
    return this.discovery;
  }
}

function reusable(
  prior: StoredCredential,
  serverUrl: string,
  redirectUrl: string,
  scope: string | undefined,
): boolean {
  const client = prior.client as { redirect_uris?: string[]; scope?: string };
  if (prior.serverUrl !== serverUrl || !client.redirect_uris?.includes(redirectUrl)) return false;
  if (!scope || client.scope === undefined) return true;
  const registered = new Set(client.scope.split(" "));
  return scope.split(" ").every((s) => registered.has(s));
}
