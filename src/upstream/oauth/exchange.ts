/**
 * `oauth: mode: exchange`: the upstream is called with a token the issuer minted for it in
 * exchange for the client's own access token (RFC 8693: `subject_token` = the client's token,
 * `audience` and `resource` = the upstream), cached per subject until it expires. The client's
 * token goes to the issuer's token endpoint only; the upstream never sees it.
 */
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { HttpServerConfig } from "../../config/mod.ts";
import { GatewayError, messageOf } from "../../shared/errors.ts";
import type { Logger } from "../../shared/log.ts";
import { LoginFreeCredential } from "./credential.ts";
import { fetchDocument } from "../../shared/document-fetch.ts";
import { sdkAuth } from "./sdk-auth.ts";
import type { CredentialStore } from "./store.ts";

const GRANT = "urn:ietf:params:oauth:grant-type:token-exchange";
const ACCESS_TOKEN = "urn:ietf:params:oauth:token-type:access_token";
/** An exchanged token is renewed this long before it expires. */
const EARLY_MS = 10_000;

/** A request body that can be sent twice (a stream is read by the first send). */
function replayable(body: BodyInit | null | undefined): boolean {
  return body === undefined || body === null || typeof body === "string" ||
    body instanceof URLSearchParams || body instanceof ArrayBuffer || ArrayBuffer.isView(body);
}

/** One subject's exchanged upstream token. */
/** Nothing is stored: the subject's own token is exchanged on demand. */
export class ExchangeCredential extends LoginFreeCredential {
  #issuer: string;
  #log: Logger;
  #subjectToken: string | undefined;
  #cached: { token: string; expiresAt: number } | undefined;
  #pending: Promise<string> | undefined;
  #endpoint: Promise<string> | undefined;

  constructor(
    server: HttpServerConfig,
    issuer: string,
    store: CredentialStore,
    log: Logger,
    slot: string,
  ) {
    super(server, store, log, () => "", { slot });
    this.#issuer = issuer;
    this.#log = log;
  }

  /** The subject's current access token (the latest its requests presented). */
  override present(subjectToken: string | undefined): void {
    if (subjectToken !== undefined) this.#subjectToken = subjectToken;
  }

  /**
   * The transports' fetch. A 401 on the cached token means the upstream stopped accepting it
   * (revoked, its keys rotated): the token is dropped, exchanged anew once and the request sent
   * once more; a second 401 is the caller's error. Never "needs login": no login helps here.
   */
  override readonly fetch: FetchLike = async (url, init) => {
    const first = await this.accessToken();
    const res = await this.#send(url, init, first);
    if (res.status !== 401 || !replayable(init?.body)) return res;
    await res.body?.cancel();
    // Concurrent requests may have replaced it already: only the refused token is dropped.
    if (this.#cached?.token === first) this.#cached = undefined;
    const retried = await this.#send(url, init, await this.accessToken());
    if (retried.status !== 401) return retried;
    const { error } = (await sdkAuth()).extractWWWAuthenticateParams(retried);
    await retried.body?.cancel();
    throw this.#failed(
      `the server refused a freshly exchanged token too (401${error ? ` ${error}` : ""})`,
    );
  };

  #send(url: string | URL, init: RequestInit | undefined, token: string): Promise<Response> {
    const headers = new Headers(init?.headers);
    headers.set("authorization", `Bearer ${token}`);
    return fetch(url, { ...init, headers });
  }

  override async accessToken(): Promise<string> {
    const cached = this.#cached;
    if (cached && Date.now() < cached.expiresAt - EARLY_MS) return cached.token;
    this.#pending ??= this.#exchange().finally(() => (this.#pending = undefined));
    return await this.#pending;
  }

  async #exchange(): Promise<string> {
    const server = this.server;
    const oauth = server.oauth!;
    const subject = this.#subjectToken;
    if (subject === undefined) {
      throw new GatewayError(
        "UPSTREAM_UNAVAILABLE",
        `server ${server.name} exchanges the client's OAuth access token (oauth mode exchange), ` +
          "and this request carries none",
        { data: { server: server.name, reason: "unavailable" } },
      );
    }
    const audience = oauth.audience ?? server.url;
    const basic = btoa(`${oauth.clientId}:${oauth.clientSecret}`);
    let res: Response;
    try {
      res = await fetchDocument(await this.#tokenEndpoint(), {
        method: "POST",
        headers: {
          authorization: `Basic ${basic}`,
          "content-type": "application/x-www-form-urlencoded",
          accept: "application/json",
        },
        body: new URLSearchParams({
          grant_type: GRANT,
          subject_token: subject,
          subject_token_type: ACCESS_TOKEN,
          requested_token_type: ACCESS_TOKEN,
          audience,
          resource: server.url,
          ...(oauth.scopes ? { scope: oauth.scopes.join(" ") } : {}),
        }),
      });
    } catch (err) {
      throw this.#failed(`the token endpoint is unreachable: ${messageOf(err)}`);
    }
    const body = await res.json().catch(() => ({})) as {
      access_token?: unknown;
      expires_in?: unknown;
      error?: unknown;
      error_description?: unknown;
    };
    if (!res.ok || typeof body.access_token !== "string") {
      const why = typeof body.error === "string"
        ? `${body.error}${
          typeof body.error_description === "string" ? `: ${body.error_description}` : ""
        }`
        : `HTTP ${res.status}`;
      throw this.#failed(`the token exchange was refused: ${why}`);
    }
    const ttl = typeof body.expires_in === "number" ? body.expires_in * 1000 : 60_000;
    this.#cached = { token: body.access_token, expiresAt: Date.now() + ttl };
    return body.access_token;
  }

  #tokenEndpoint(): Promise<string> {
    return this.#endpoint ??= (async () => {
      const { discoverAuthorizationServerMetadata } = await sdkAuth();
      const metadata = await discoverAuthorizationServerMetadata(this.#issuer, {
        fetchFn: fetchDocument,
      });
      if (!metadata?.token_endpoint) {
        this.#endpoint = undefined;
        throw this.#failed(`${this.#issuer} publishes no token endpoint`);
      }
      return metadata.token_endpoint;
    })();
  }

  #failed(why: string): GatewayError {
    return new GatewayError("UPSTREAM_UNAVAILABLE", `server ${this.server.name}: ${why}`, {
      data: { server: this.server.name, reason: "unavailable" },
    });
  }
}
