/**
 * `oauth: mode: shared`: the gateway holds one login to the server, made by an admin
 * (`mcp-gateway login`, the status page's connect link), and every caller's calls go over the
 * server's one connection with it.
 */
import { serverCredential, type UpstreamAuthMode } from "./mode.ts";

/** The shared mode. */
export const sharedMode: UpstreamAuthMode = {
  name: "shared",
  adminLogin: true,
  identityLogin: false,
  serverCredential: (host, server) => serverCredential(host, server),
  identityCredential: () => undefined,
  connectionFor: () => undefined,
  statusRow: () => ({ mode: "shared" }),
};
