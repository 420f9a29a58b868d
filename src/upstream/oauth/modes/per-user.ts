/**
 * `oauth: mode: per-user`: each client identity connects its own account, through a connect
 * link bound to that identity (offered in its own call), and is served on its own connection
 * with that account's credential. The server's shared entry never logs in.
 */
import { UpstreamCredential } from "../credential.ts";
import { ownConnection, serverCredential, type UpstreamAuthMode } from "./mode.ts";

const NAME = "per-user";

/** The per-user mode. */
export const perUserMode: UpstreamAuthMode = {
  name: NAME,
  adminLogin: false,
  identityLogin: true,
  serverCredential: (host, server) =>
    serverCredential(host, server, `each client connects its own account (oauth mode ${NAME})`),
  identityCredential: (host, server, identity, slot) =>
    new UpstreamCredential(
      server,
      host.store,
      host.log(server.name),
      () => host.identityLink(server.name, identity),
      { slot },
    ),
  connectionFor: (server, caller, own) => ownConnection(NAME, server, caller, own),
  statusRow: (connected) => ({ mode: NAME, connected }),
};
