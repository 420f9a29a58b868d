/**
 * The shape of an upstream auth mode (`servers.<name>.oauth.mode`): how a server's calls are
 * authorised is decided here, once per mode, and nowhere else. Each mode answers which
 * connection serves a caller, what credential that connection presents, whether an admin or
 * each identity logs in (and so what the status page and the connect routes offer), and its
 * status row. The gateway asks the mode object; it never compares the mode's name.
 */
import type { HttpServerConfig } from "../../../config/mod.ts";
import { GatewayError } from "../../../shared/errors.ts";
import type { Logger } from "../../../shared/log.ts";
import { UpstreamCredential } from "../credential.ts";
import type { CredentialStore } from "../store.ts";

/** What a mode is given to make credentials (the gateway's store, log and links). */
export interface ModeHost {
  /** The credential store, opened on first use. */
  readonly store: CredentialStore;
  /** The log of `server`'s credentials. */
  log(server: string): Logger;
  /** The admin's connect link of `server` (`<base>/oauth/connect/<server>`). */
  adminLink(server: string): string;
  /** A one-use connect link of `identity` on `server`, bound to that identity. */
  identityLink(server: string, identity: string): string;
  /** The issuer whose access tokens clients present: the server's own, else `gateway.auth.oauth`'s. */
  issuer(server: HttpServerConfig): string;
}

/** A caller as a mode sees it: who (a token or OAuth subject name) and the token it presented. */
export interface ModeCaller {
  readonly identity: string | null;
  /** The client's own OAuth access token, as presented (for a mode that exchanges it). */
  readonly subjectToken?: string;
}

/** How one identity's own connection to a server is obtained (the pool's per-identity table). */
export type IdentityConnection<C> = (identity: string, subjectToken?: string) => Promise<C>;

/** One upstream auth mode. */
export interface UpstreamAuthMode {
  /** Its name in `servers.<name>.oauth.mode`. */
  readonly name: string;
  /** True when the gateway holds the server's one login, which an admin makes (`login`, connect link). */
  readonly adminLogin: boolean;
  /** True when each identity logs in its own account through a connect link of its own. */
  readonly identityLogin: boolean;
  /**
   * The server's own credential: the one the shared connection presents. A mode that serves
   * each identity on its own connection makes a stand-in that never logs in.
   */
  serverCredential(host: ModeHost, server: HttpServerConfig): UpstreamCredential;
  /**
   * The credential `identity` presents on its own connection (stored in `slot`), or `undefined`
   * for a mode that serves every caller on the server's one connection.
   */
  identityCredential(
    host: ModeHost,
    server: HttpServerConfig,
    identity: string,
    slot: string,
  ): UpstreamCredential | undefined;
  /**
   * The connection serving `caller`: `undefined` for the server's shared connection (which
   * `isolation` may still split), else the caller's own, obtained through `own`.
   */
  connectionFor<C>(
    server: HttpServerConfig,
    caller: ModeCaller,
    own: IdentityConnection<C>,
  ): Promise<C> | undefined;
  /** The `oauth` field of the server's status row; `connected` counts identities logged in. */
  statusRow(connected: number): { mode: string; connected?: number };
}

/**
 * {@link UpstreamAuthMode.connectionFor} of a mode that serves each identity on its own
 * connection: a caller without an identity has none, and is told so.
 */
export function ownConnection<C>(
  mode: string,
  server: HttpServerConfig,
  caller: ModeCaller,
  own: IdentityConnection<C>,
): Promise<C> {
  if (caller.identity === null) {
    return Promise.reject(
      new GatewayError(
        "UPSTREAM_UNAVAILABLE",
        `server "${server.name}" serves each client on its own credential (oauth mode ` +
          `${mode}), and this request has no client identity`,
        { data: { server: server.name } },
      ),
    );
  }
  return own(caller.identity, caller.subjectToken);
}

/**
 * The server's own credential as a mode makes it: logged in by an admin through the server's
 * connect link, or with `standIn` a credential that never logs in, for that reason.
 */
export function serverCredential(
  host: ModeHost,
  server: HttpServerConfig,
  standIn?: string,
): UpstreamCredential {
  return new UpstreamCredential(
    server,
    host.store,
    host.log(server.name),
    () => host.adminLink(server.name),
    standIn === undefined ? {} : { fixed: standIn },
  );
}
