/**
 * The gateway's side of upstream OAuth: one {@link UpstreamCredential} per server with an
 * `oauth:` block, the store they rest in (opened once, on first need), the logins in progress,
 * and where the browser comes back to (`<publicUrl or listen address>/oauth/callback`).
 */
import { byName } from "../../shared/by-name.ts";
import { sha256Hex } from "../../runtime/hash.ts";
import { join } from "node:path";
import type { GatewayConfig, HttpServerConfig, ServerConfig } from "../../config/mod.ts";
import { connectLinkUrl, LINK_PATH } from "../../shared/connect-link.ts";
import { messageOf } from "../../shared/errors.ts";
import type { Logger } from "../../shared/log.ts";
import type { UpstreamCredential } from "./credential.ts";
import { ConnectLinks } from "./links.ts";
import { LoginFlows } from "./logins.ts";
import { authModeOf, type ModeHost, type UpstreamAuthMode } from "./modes/mod.ts";
import { type CredentialStore, FileCredentialStore, type StoredCredential } from "./store.ts";
import { Vault } from "./vault.ts";

/** Path of the callback every login's redirect URI names. */
export const CALLBACK_PATH = "/oauth/callback";
/** Path prefix of the admin's "Connect" link (a GET that redirects to the authorization URL). */
export const CONNECT_PATH = "/oauth/connect/";
/** Path of a per-user connect link (`?t=<one-use token>`, bound to one identity). */
export { LINK_PATH };

/**
 * The opaque key of a client identity: it names the identity's credential slot of a per-user
 * server (`<server>/<key>`) and its pins, so neither a file name nor the status page shows who.
 */
export function identityKey(identity: string): string {
  return sha256Hex(identity).slice(0, 32);
}

/** One login the gateway holds to an OAuth upstream, as an admin sees it (never a token). */
export interface UpstreamAccount {
  server: string;
  /** The server's auth mode (`servers.<name>.oauth.mode`). */
  mode: string;
  /** The client identity whose account it is; `null` for the gateway's own login. */
  identity: string | null;
  /** Why a login is needed, or `null` while it works. */
  needsLogin: string | null;
  /** Epoch ms its access token expires, when the authorization server said. */
  expiresAt: number | null;
  /** True when it holds a refresh token: it renews itself before it expires. */
  refreshes: boolean;
}

/** The credentials of every OAuth upstream of one gateway. */
export class UpstreamAuth {
  readonly logins: LoginFlows;
  #config: () => GatewayConfig;
  #log: Logger;
  #base: string | null = null;
  #store: Promise<CredentialStore> | undefined;
  #credentials = new Map<string, UpstreamCredential>();
  #users = new Map<string, UpstreamCredential>();
  #links = new ConnectLinks();
  #close: (() => Promise<void>) | undefined;
  /** What the modes make credentials with. */
  #host: ModeHost;

  constructor(config: () => GatewayConfig, log: Logger) {
    this.#config = config;
    this.#log = log;
    this.logins = new LoginFlows(() => this.baseUrl() + CALLBACK_PATH, log);
    this.#host = {
      store: lazyStore(() => this.store()),
      log: (server) => this.#log.child(server),
      adminLink: (server) => this.baseUrl() + CONNECT_PATH + encodeURIComponent(server),
      identityLink: (server, identity) =>
        connectLinkUrl(this.baseUrl(), this.#links.mint(server, identity)),
      issuer: (server) => server.oauth?.issuer ?? this.#config().gateway.oauth?.issuer ?? "",
    };
  }

  /** Sets the address the gateway listens on (known once it does). */
  listening(hostPort: string): void {
    this.#base = `http://${hostPort}`;
  }

  /** `gateway.publicUrl`, else the listen address. */
  baseUrl(): string {
    const g = this.#config().gateway;
    if (g.publicUrl !== null) return g.publicUrl;
    const host = g.host.includes(":") ? `[${g.host}]` : g.host;
    return this.#base ?? `http://${host}:${g.port}`;
  }

  /**
   * Opens the store when some server uses OAuth: a key file with loose permissions, or a
   * credential that does not open, is an error now (at start) rather than at the first call.
   */
  async open(): Promise<void> {
    if (this.#config().servers.some((s) => s.kind === "http" && s.oauth !== null)) {
      await this.store();
    }
  }

  /**
   * The store, opened on first use: the cluster's Redis with `gateway.cluster` (every instance
   * serves every login), else the state folder.
   */
  store(): Promise<CredentialStore> {
    return this.#store ??= (async () => {
      const config = this.#config();
      const dir = config.gateway.state;
      const vault = await Vault.open(config.gateway.secretsKey, join(dir, "credentials.key"));
      const cluster = config.gateway.cluster;
      if (cluster) {
        const { connectRedis, RedisCredentialStore } = await import("./redis-store.ts");
        const redis = await connectRedis(cluster.redisUrl, cluster.timeoutMs);
        const store = new RedisCredentialStore(redis, vault);
        this.#close = async () => {
          await store.close();
          await redis.quit().catch(() => redis.disconnect());
        };
        // A login, refresh or disconnect on another instance is used here at once.
        await store.watch((slot) => this.#changedElsewhere(slot));
        return store;
      }
      return new FileCredentialStore(dir, vault);
    })();
  }

  /** Re-reads the credentials held in `slot` (another instance wrote or removed it). */
  #changedElsewhere(slot: string): void {
    for (const c of [...this.#credentials.values(), ...this.#users.values()]) {
      if (c.slot !== slot) continue;
      c.reload().catch((err) => {
        this.#log.child(c.server.name).warn("cannot re-read an upstream credential", {
          error: messageOf(err),
        });
      });
    }
  }

  /** Closes what the store holds open (the Redis connections). */
  async close(): Promise<void> {
    await this.#close?.();
  }

  /**
   * The credential of `server` (`undefined` for a server without `oauth:`), as its mode makes
   * it: a stand-in that never logs in where each identity has its own ({@link userCredential}).
   */
  credentialFor(server: ServerConfig): UpstreamCredential | undefined {
    const mode = authModeOf(server);
    if (!mode) return undefined;
    const known = this.#credentials.get(server.name);
    if (known?.server === server) return known;
    const credential = mode.serverCredential(this.#host, server as HttpServerConfig);
    this.#credentials.set(server.name, credential);
    return credential;
  }

  /**
   * The credential of client `identity` on `server`, when its mode serves each identity on its
   * own connection: its own slot (`<server>/<hash of the identity>`), and, for a mode whose
   * identities log in, a connect link bound to that identity that expires.
   */
  userCredential(server: HttpServerConfig, identity: string): UpstreamCredential | undefined {
    const key = `${server.name}\u0000${identity}`;
    const known = this.#users.get(key);
    if (known?.server === server) return known;
    const slot = `${server.name}/${identityKey(identity)}`;
    const credential = authModeOf(server)?.identityCredential(this.#host, server, identity, slot);
    if (credential) this.#users.set(key, credential);
    return credential;
  }

  /**
   * The credential whose login `identity` may be offered within a call that needs it (a connect
   * link of its own), or `undefined` when its server's mode logs no identity in.
   */
  connectHint(server: ServerConfig, identity: string): UpstreamCredential | undefined {
    return server.kind === "http" && authModeOf(server)?.identityLogin
      ? this.userCredential(server, identity)
      : undefined;
  }

  /** The auth mode of the running server named `name` (`undefined` without `oauth:`). */
  modeOf(name: string): UpstreamAuthMode | undefined {
    const server = this.#config().servers.find((s) => s.name === name);
    return server ? authModeOf(server) : undefined;
  }

  /** The credential a connect link was made for (and uses it up), or `undefined`. */
  redeemLink(token: string): UpstreamCredential | undefined {
    const link = this.#links.redeem(token);
    if (!link) return undefined;
    const server = this.#config().servers.find((s) => s.name === link.server);
    return server ? this.connectHint(server, link.identity) : undefined;
  }

  /** How many identities hold a credential object per per-user server (the admin's view). */
  userCounts(): Record<string, number> {
    // No prototype: a server may be named `constructor` or `toString`.
    const out = byName<number>();
    for (const c of this.#users.values()) {
      if (c.needsLogin === null) out[c.server.name] = (out[c.server.name] ?? 0) + 1;
    }
    return out;
  }

  /**
   * The logins held now: each server's own where an admin logs it in (logged in or not), and
   * each identity that connected its own account since this process started. A mode with
   * neither (exchange: each call trades the client's own token) holds no login.
   */
  async accounts(): Promise<UpstreamAccount[]> {
    const out: UpstreamAccount[] = [];
    for (const server of this.#config().servers) {
      if (!authModeOf(server)?.adminLogin) continue;
      const c = this.credentialFor(server)!;
      await c.ready().catch(() => {});
      out.push(accountOf(c, null));
    }
    for (const [key, c] of this.#users) {
      if (!authModeOf(c.server)?.identityLogin) continue;
      out.push(accountOf(c, key.slice(key.indexOf("\u0000") + 1)));
    }
    return out;
  }

  /**
   * Logs the gateway out of `server`: the login an admin made, or with `identity` that
   * identity's own account. The credential is removed from the store and the upstream
   * waits for a new login. False when there was no such login.
   */
  async logout(server: string, identity: string | null = null): Promise<boolean> {
    const config = this.#config().servers.find((s) => s.name === server);
    const mode = config ? authModeOf(config) : undefined;
    if (!config || !mode) return false;
    const credential = identity === null
      ? mode.adminLogin ? this.credentialFor(config) : undefined
      : this.#users.get(`${server}\u0000${identity}`);
    if (!credential) return false;
    await credential.forget();
    return true;
  }

  /** The credential of the running server named `name`, if it uses OAuth. */
  byName(name: string): UpstreamCredential | undefined {
    const server = this.#config().servers.find((s) => s.name === name);
    return server ? this.credentialFor(server) : undefined;
  }
}

function accountOf(c: UpstreamCredential, identity: string | null): UpstreamAccount {
  const stored = c.stored;
  return {
    server: c.server.name,
    mode: authModeOf(c.server)!.name,
    identity,
    needsLogin: c.needsLogin,
    expiresAt: c.needsLogin === null ? stored?.expiresAt ?? null : null,
    refreshes: c.needsLogin === null && Boolean(stored?.tokens?.refresh_token),
  };
}

function lazyStore(open: () => Promise<CredentialStore>): CredentialStore {
  return {
    read: async (slot) => await (await open()).read(slot),
    write: async (slot, c: StoredCredential) => await (await open()).write(slot, c),
    remove: async (slot) => await (await open()).remove(slot),
    lock: async (slot, ttlMs) => {
      const store = await open();
      return store.lock ? await store.lock(slot, ttlMs) : async () => {};
    },
  };
}
