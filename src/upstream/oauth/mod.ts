/**
 * @module Upstream OAuth (`servers.<name>.oauth`): the client side of OAuth 2.1 towards HTTP
 * upstreams on the SDK's auth helpers — logins (discovery, registration, PKCE, `resource`),
 * credentials sealed at rest, tokens refreshed before they expire, and "needs login" instead
 * of "down" when only a login can help.
 */
export { LoginFreeCredential, UpstreamCredential } from "./credential.ts";
export { LOGIN_TTL_MS, LoginFlows, type LoginState } from "./logins.ts";
export {
  CALLBACK_PATH,
  CONNECT_PATH,
  identityKey,
  LINK_PATH,
  type UpstreamAccount,
  UpstreamAuth,
} from "./service.ts";
export type { CredentialStore, StoredCredential } from "./store.ts";
export {
  AUTH_MODES,
  authModeNamed,
  authModeOf,
  type IdentityConnection,
  type ModeCaller,
  type ModeHost,
  ownConnection,
  registerAuthMode,
  serverCredential,
  type UpstreamAuthMode,
} from "./modes/mod.ts";
