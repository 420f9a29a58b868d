/**
 * Logins in progress: each began by an admin (the `login` command or the status page's Connect
 * link) and waits for the browser to come back to `/oauth/callback` with its `state`. A state
 * is 256 random bits, used once, and expires after {@link LOGIN_TTL_MS}; only the login that
 * made it can complete with it, and only for the server it was made for.
 */
import { GatewayError, messageOf } from "../../shared/errors.ts";
import type { Logger } from "../../shared/log.ts";
import { expiry, type UpstreamCredential } from "./credential.ts";
import { LoginProvider } from "./provider.ts";
import { sdkAuth } from "./sdk-auth.ts";
import { randomBase64Url } from "../../runtime/hash.ts";
import { fetchDocument as fetchFn } from "../../shared/document-fetch.ts";

/** How long a begun login waits for its callback. */
export const LOGIN_TTL_MS = 10 * 60_000;

/** Where a login is: waiting for the browser, done, or failed with a reason. */
export type LoginState =
  | { status: "pending"; server: string }
  | { status: "done"; server: string }
  | { status: "failed"; server: string; error: string };

interface Pending {
  credential: UpstreamCredential;
  provider: LoginProvider;
  resourceMetadataUrl: URL | undefined;
  expiresAt: number;
  /** The handle a waiting CLI polls with (not the state: that one only travels to the browser). */
  id: string;
}

/** Every login in progress of one gateway. */
export class LoginFlows {
  #byState = new Map<string, Pending>();
  #results = new Map<string, LoginState & { at: number }>();
  #callbackUrl: () => string;
  #log: Logger;

  constructor(callbackUrl: () => string, log: Logger) {
    this.#callbackUrl = callbackUrl;
    this.#log = log;
  }

  /**
   * Starts a login for `credential`'s server: reads its 401 challenge (RFC 9728
   * `resource_metadata`, `scope`), lets the SDK discover, register and build the authorization
   * URL. Resolves with that URL and the id {@link state} answers for.
   */
  async begin(credential: UpstreamCredential): Promise<{ authorizationUrl: string; id: string }> {
    this.#sweep();
    const server = credential.server;
    const challenge = await probe(server.url, server.headers);
    const oauth = server.oauth!;
    const scope = joinScopes(
      oauth.scopes?.join(" "),
      credential.stored?.stepUpScope,
      oauth.scopes === null ? challenge.scope : undefined,
    );
    const state = randomBase64Url(32);
    const id = randomBase64Url(32);
    const provider = new LoginProvider(
      server,
      this.#callbackUrl(),
      state,
      scope,
      credential.stored,
    );
    const { auth } = await sdkAuth();
    let result;
    try {
      result = await auth(provider, {
        serverUrl: server.url,
        fetchFn,
        ...(scope ? { scope } : {}),
        ...(challenge.resourceMetadataUrl
          ? { resourceMetadataUrl: challenge.resourceMetadataUrl }
          : {}),
      });
    } catch (err) {
      throw new GatewayError(
        "UPSTREAM_UNAVAILABLE",
        `login to server ${server.name} could not start: ${messageOf(err)}`,
        { data: { server: server.name } },
      );
    }
    if (result !== "REDIRECT" || !provider.authorizationUrl) {
      throw new GatewayError(
        "UPSTREAM_UNAVAILABLE",
        `login to server ${server.name}: no authorization URL`,
      );
    }
    this.#byState.set(state, {
      credential,
      provider,
      resourceMetadataUrl: challenge.resourceMetadataUrl,
      expiresAt: Date.now() + LOGIN_TTL_MS,
      id,
    });
    this.#results.set(id, { status: "pending", server: server.name, at: Date.now() });
    this.#log.info("upstream login started", { server: server.name });
    return { authorizationUrl: provider.authorizationUrl.href, id };
  }

  /**
   * The browser came back: exchanges `code` for tokens (PKCE verifier, `resource`) and stores
   * them. Throws `FORBIDDEN` for a state this gateway did not hand out, or one used or expired.
   */
  async complete(state: string, code: string | null, error: string | null): Promise<string> {
    this.#sweep();
    const pending = this.#byState.get(state);
    if (!pending) {
      throw new GatewayError(
        "FORBIDDEN",
        "this login link is unknown, used or expired: start the login again",
      );
    }
    this.#byState.delete(state); // one use, whatever happens next
    const { credential, provider } = pending;
    const name = credential.server.name;
    const fail = (why: string) => {
      this.#results.set(pending.id, { status: "failed", server: name, error: why, at: Date.now() });
      return new GatewayError("UPSTREAM_UNAVAILABLE", `login to server ${name} failed: ${why}`);
    };
    if (code === null) throw fail(error ?? "the authorization server sent no code");
    const { auth, UnauthorizedError } = await sdkAuth();
    try {
      await auth(provider, {
        serverUrl: credential.server.url,
        fetchFn,
        authorizationCode: code,
        ...(pending.resourceMetadataUrl
          ? { resourceMetadataUrl: pending.resourceMetadataUrl }
          : {}),
      });
    } catch (err) {
      throw fail(err instanceof UnauthorizedError ? "the code was refused" : messageOf(err));
    }
    const tokens = provider.obtained;
    if (!tokens) throw fail("no tokens were issued");
    const resource = provider.discovery?.resourceMetadata?.resource;
    await credential.saveLogin({
      serverUrl: credential.server.url,
      tokens,
      ...expiry(tokens),
      ...(provider.client ? { client: provider.client } : {}),
      ...(provider.discovery ? { discovery: provider.discovery } : {}),
      ...(resource ? { resource } : {}),
    });
    this.#results.set(pending.id, { status: "done", server: name, at: Date.now() });
    return name;
  }

  /** Where the login with handle `id` is; `undefined` when unknown (or long finished). */
  state(id: string): LoginState | undefined {
    const r = this.#results.get(id);
    if (!r) return undefined;
    const { at: _at, ...state } = r;
    return state;
  }

  /** Drops expired logins and results older than a login's lifetime. */
  #sweep(): void {
    const now = Date.now();
    for (const [state, p] of this.#byState) {
      if (p.expiresAt <= now) {
        this.#byState.delete(state);
        this.#results.set(p.id, {
          status: "failed",
          server: p.credential.server.name,
          error: "the login expired before the browser came back",
          at: now,
        });
      }
    }
    for (const [id, r] of this.#results) {
      if (r.at + 2 * LOGIN_TTL_MS <= now) this.#results.delete(id);
    }
  }
}

/** The server's challenge to a request with no token: where its metadata is, what scope. */
async function probe(
  url: string,
  headers: Readonly<Record<string, string>>,
): Promise<{ resourceMetadataUrl: URL | undefined; scope: string | undefined }> {
  let res: Response;
  try {
    res = await fetch(url, {
      method: "POST",
      headers: {
        ...headers,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 0, method: "ping" }),
      signal: AbortSignal.timeout(15_000),
    });
  } catch (err) {
    throw new GatewayError("UPSTREAM_UNAVAILABLE", `cannot reach ${url}: ${messageOf(err)}`);
  }
  await res.body?.cancel().catch(() => {});
  if (res.status !== 401) return { resourceMetadataUrl: undefined, scope: undefined };
  const { resourceMetadataUrl, scope } = (await sdkAuth()).extractWWWAuthenticateParams(res);
  return { resourceMetadataUrl, scope };
}

function joinScopes(...parts: (string | undefined)[]): string | undefined {
  const all = [...new Set(parts.flatMap((p) => (p ?? "").split(" ")).filter(Boolean))];
  return all.length > 0 ? all.join(" ") : undefined;
}
