/**
 * `oauth: mode: exchange`: each client identity is served on its own connection, whose
 * credential trades the client's own access token for one minted for the server
 * ({@link ExchangeCredential}). Nobody logs in: no admin login, no connect link.
 */
import { ExchangeCredential } from "../exchange.ts";
import { ownConnection, serverCredential, type UpstreamAuthMode } from "./mode.ts";

const NAME = "exchange";

/** The exchange mode. */
export const exchangeMode: UpstreamAuthMode = {
  name: NAME,
  adminLogin: false,
  identityLogin: false,
  serverCredential: (host, server) =>
    serverCredential(
      host,
      server,
      `each client's own access token is exchanged (oauth mode ${NAME})`,
    ),
  identityCredential: (host, server, _identity, slot) =>
    new ExchangeCredential(server, host.issuer(server), host.store, host.log(server.name), slot),
  connectionFor: (server, caller, own) => ownConnection(NAME, server, caller, own),
  statusRow: () => ({ mode: NAME }),
};
