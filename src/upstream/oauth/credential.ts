/**
 * One upstream's credential as the connection uses it: the `fetch` every HTTP transport of the
 * server is given adds `Authorization: Bearer <access token>`, refreshes the token before it
 * expires (one refresh at a time), and turns what the server or its authorization server says
 * into the state "needs login" with their reason: a refused refresh, a 401 on a token that was
 * sent, a 403 `insufficient_scope` (whose scope is asked for at the next login). A server that
 * needs a login is never "down": nothing restarts it until a login stores a new credential.
 */
import type { OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { HttpServerConfig } from "../../config/mod.ts";
import { GatewayError, messageOf } from "../../shared/errors.ts";
import type { Logger } from "../../shared/log.ts";
import { fetchDocument } from "../../shared/document-fetch.ts";
import { sdkAuth } from "./sdk-auth.ts";
import type { CredentialStore, StoredCredential } from "./store.ts";

/** Refresh when less than this share of the token's life is left (and at most 60 s before). */
const REFRESH_SHARE = 0.2;
const REFRESH_MAX_EARLY_MS = 60_000;
/** How long a refresh holds the cross-instance lock at most, and how long others wait for it. */
const LOCK_TTL_MS = 15_000;
const LOCK_WAIT_MS = 20_000;

/** A shared-mode upstream's credential. */
export class UpstreamCredential {
  readonly server: HttpServerConfig;
  readonly slot: string;
  #store: CredentialStore;
  #log: Logger;
  #cred: StoredCredential | undefined;
  #needsLogin: string | null = "no login yet";
  #refreshing: Promise<string> | undefined;
  #connectUrl: () => string;
  /** Told when a login stored a new credential (the upstream starts again). */
  onLogin: (() => void) | undefined;
  /** Told when the credential stopped working (the upstream shows "needs login"). */
  onNeedsLogin: (() => void) | undefined;

  /** Set on a per-user server's shared entry: it never logs in itself, for this reason. */
  #fixed: string | null;

  constructor(
    server: HttpServerConfig,
    store: CredentialStore,
    log: Logger,
    connectUrl: () => string,
    { slot = server.name, fixed = null }: { slot?: string; fixed?: string | null } = {},
  ) {
    this.server = server;
    this.slot = slot;
    this.#fixed = fixed;
    this.#store = store;
    this.#log = log;
    this.#connectUrl = connectUrl;
  }

  #loaded: Promise<void> | undefined;
  #loginWaiters = new Set<() => void>();

  /** Reads the stored credential once (see {@link load}). */
  ready(): Promise<void> {
    return this.#loaded ??= this.load();
  }

  /** Reads the stored credential; one made for another URL is not used. */
  async load(): Promise<void> {
    if (this.#fixed !== null) {
      this.#needsLogin = this.#fixed;
      return;
    }
    const cred = await this.#store.read(this.slot);
    this.#cred = cred;
    if (!cred?.tokens) this.#needsLogin = "no login yet";
    else if (cred.serverUrl !== this.server.url) {
      this.#needsLogin = `the stored login was made for ${cred.serverUrl}, not ${this.server.url}`;
    } else this.#needsLogin = null;
  }

  /** Why a login is needed, or `null` while the credential works. */
  get needsLogin(): string | null {
    return this.#needsLogin;
  }

  /** What is kept from earlier logins (the registered client, a step-up scope). */
  get stored(): StoredCredential | undefined {
    return this.#cred;
  }

  /**
   * The error a call gets while a login is needed. A per-user credential's carries its connect
   * link as `data.connectUrl` too (the gateway may offer it as a URL elicitation).
   */
  loginError(): GatewayError {
    const name = this.server.name;
    const url = this.#connectUrl();
    const perUser = this.slot !== name;
    const how = perUser
      ? `open ${url} to connect your account`
      : `run \`mcp-gateway login ${name}\` or open ${url}`;
    return new GatewayError(
      "UPSTREAM_UNAVAILABLE",
      `server ${name} needs a login: ${how} (${this.#needsLogin ?? "the login is being replaced"})`,
      {
        data: {
          server: name,
          reason: "unavailable",
          needsLogin: true,
          ...(perUser ? { connectUrl: url } : {}),
        },
      },
    );
  }

  /** The caller's own access token, for a credential that exchanges it (exchange.ts). */
  present(_subjectToken: string | undefined): void {}

  /** Resolves at the next stored login (its callback arrived). */
  nextLogin(): Promise<void> {
    return new Promise((resolve) => this.#loginWaiters.add(resolve));
  }

  /** Stores what a completed login obtained and lets the upstream start. */
  async saveLogin(cred: StoredCredential): Promise<void> {
    await this.#store.write(this.slot, cred);
    this.#cred = cred;
    this.#needsLogin = null;
    this.#log.info("upstream login stored", { expiresAt: cred.expiresAt ?? null });
    this.#loggedIn();
  }

  /** A login arrived: the upstream starts and the calls waiting for it go on. */
  #loggedIn(): void {
    this.onLogin?.();
    for (const resolve of this.#loginWaiters) resolve();
    this.#loginWaiters.clear();
  }

  /**
   * Re-reads the stored credential after another instance wrote or removed it: a login there
   * lets the upstream start here, a refresh's tokens are used, a removal (a disconnect) makes it
   * need a login.
   */
  async reload(): Promise<void> {
    if (this.#fixed !== null) return;
    const cred = await this.#store.read(this.slot);
    this.#loaded = Promise.resolve();
    if (!cred?.tokens || cred.serverUrl !== this.server.url) {
      const had = this.#cred?.tokens !== undefined;
      this.#cred = cred;
      if (had) this.#markNeedsLogin("the login was removed on another instance");
      return;
    }
    const same = cred.tokens.access_token === this.#cred?.tokens?.access_token;
    this.#cred = cred;
    // The same tokens rewritten (a step-up scope noted) are no new login: a reason to need
    // one stands.
    if (this.#needsLogin === null || same) return;
    this.#needsLogin = null;
    this.#log.info("upstream login stored by another instance", {});
    this.#loggedIn();
  }

  /** Forgets the credential (a user disconnected): removed from the store, the upstream told. */
  async forget(): Promise<void> {
    await this.#store.remove(this.slot);
    this.#cred = undefined;
    this.#loaded = Promise.resolve();
    this.#markNeedsLogin("disconnected");
    this.#log.info("upstream credential removed");
  }

  /** The transports' fetch: the access token on every request, challenges read on the way back. */
  readonly fetch: FetchLike = async (url, init) => {
    const token = await this.accessToken();
    const headers = new Headers(init?.headers);
    headers.set("authorization", `Bearer ${token}`);
    const res = await fetch(url, { ...init, headers });
    if (res.status === 401 || res.status === 403) await this.#challenged(res);
    return res;
  };

  /** A valid access token, refreshed first when it is about to expire. */
  async accessToken(): Promise<string> {
    const cred = this.#cred;
    if (this.#needsLogin !== null || !cred?.tokens) throw this.loginError();
    if (!this.#dueForRefresh(cred)) return cred.tokens.access_token;
    this.#refreshing ??= this.#refresh(cred).finally(() => (this.#refreshing = undefined));
    return await this.#refreshing;
  }

  #dueForRefresh(cred: StoredCredential): boolean {
    if (cred.expiresAt === undefined || !cred.tokens?.refresh_token) return false;
    const life = (cred.tokens.expires_in ?? 0) * 1000;
    const early = Math.min(REFRESH_MAX_EARLY_MS, life * REFRESH_SHARE);
    return Date.now() >= cred.expiresAt - early;
  }

  /**
   * One refresh across instances: under the store's lock, after re-reading what another
   * instance may have stored meanwhile (a rotated refresh token must not be used twice); an
   * instance that does not get the lock waits for the one that did and takes its result.
   */
  async #refresh(cred: StoredCredential): Promise<string> {
    const deadline = Date.now() + LOCK_WAIT_MS;
    for (;;) {
      // No lock on this store: one process, whose single flight is the lock.
      const release = this.#store.lock
        ? await this.#store.lock(this.slot, LOCK_TTL_MS)
        : async () => {};
      if (release === null) {
        if (Date.now() > deadline) throw this.loginError();
        await new Promise((r) => setTimeout(r, 100));
      }
      const stored = await this.#store.read(this.slot).catch(() => undefined);
      if (stored?.tokens && stored.tokens.access_token !== cred.tokens?.access_token) {
        // Another instance refreshed (or a new login arrived): its tokens count.
        this.#cred = cred = stored;
        if (!this.#dueForRefresh(stored)) {
          await release?.();
          return stored.tokens.access_token;
        }
      }
      if (release === null) continue;
      try {
        return await this.#refreshNow(cred);
      } finally {
        await release();
      }
    }
  }

  async #refreshNow(cred: StoredCredential): Promise<string> {
    const discovery = cred.discovery;
    if (!discovery || !cred.client || !cred.tokens?.refresh_token) throw this.loginError();
    const { refreshAuthorization } = await sdkAuth();
    let tokens: OAuthTokens;
    try {
      tokens = await refreshAuthorization(discovery.authorizationServerUrl, {
        ...(discovery.authorizationServerMetadata
          ? { metadata: discovery.authorizationServerMetadata }
          : {}),
        clientInformation: cred.client,
        refreshToken: cred.tokens.refresh_token,
        fetchFn: fetchDocument,
        ...(cred.resource ? { resource: cred.resource } : {}),
      });
    } catch (err) {
      // The authorization server refused (an OAuth error answer): only a login helps now.
      // Anything else (it was unreachable) fails this call and the next one tries again.
      const code = (err as { errorCode?: unknown }).errorCode;
      if (typeof code !== "string") throw err;
      this.#markNeedsLogin(`the token refresh was refused: ${code}: ${messageOf(err)}`);
      throw this.loginError();
    }
    const next: StoredCredential = {
      ...cred,
      tokens,
      ...expiry(tokens),
    };
    await this.#store.write(this.slot, next);
    this.#cred = next;
    this.#log.debug("upstream access token refreshed");
    return tokens.access_token;
  }

  async #challenged(res: Response): Promise<void> {
    const { scope, error } = (await sdkAuth()).extractWWWAuthenticateParams(res);
    if (res.status === 403 && error === "insufficient_scope") {
      const had = this.#cred?.tokens?.scope ?? this.server.oauth?.scopes?.join(" ") ?? "";
      const wanted = [...new Set(`${had} ${scope ?? ""}`.split(" ").filter(Boolean))].join(" ");
      if (this.#cred) {
        this.#cred = { ...this.#cred, stepUpScope: wanted };
        await this.#store.write(this.slot, this.#cred).catch(() => {});
      }
      this.#markNeedsLogin(`the server needs scope "${wanted}" (insufficient_scope)`);
    } else if (res.status === 401) {
      this.#markNeedsLogin(`the server refused the access token (401${error ? ` ${error}` : ""})`);
    }
  }

  #markNeedsLogin(reason: string): void {
    if (this.#needsLogin !== null) return;
    this.#needsLogin = reason;
    this.#log.warn("upstream needs a login", { reason });
    this.onNeedsLogin?.();
  }
}

/**
 * A credential nobody logs in: its access token comes from elsewhere on each request (a token
 * exchange, a secret store), so nothing is read from the store and it never "needs login".
 */
export abstract class LoginFreeCredential extends UpstreamCredential {
  override load(): Promise<void> {
    return Promise.resolve();
  }

  override reload(): Promise<void> {
    return Promise.resolve();
  }

  override get needsLogin(): string | null {
    return null;
  }

  abstract override accessToken(): Promise<string>;
}

/** `expiresAt` from a token answer's `expires_in`. */
export function expiry(tokens: OAuthTokens): { expiresAt?: number } {
  return tokens.expires_in === undefined
    ? {}
    : { expiresAt: Date.now() + tokens.expires_in * 1000 };
}
