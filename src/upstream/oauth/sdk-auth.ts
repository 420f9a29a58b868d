/**
 * @module The SDK 1.x OAuth client (`@modelcontextprotocol/sdk/client/auth.js`: discovery,
 * PKCE logins, token refresh, and its zod schemas of OAuth metadata), imported at its first use.
 * Only servers with `oauth:` use it; a gateway whose upstreams have none never evaluates it
 * (test/packaging/lazy-sdk.test.ts, docs/PERFORMANCE.md).
 */

/** The SDK's OAuth client module. */
export type SdkAuth = typeof import("@modelcontextprotocol/sdk/client/auth.js");

let loaded: Promise<SdkAuth> | undefined;

/** The SDK's OAuth client, imported once, when a credential, login or exchange first needs it. */
export function sdkAuth(): Promise<SdkAuth> {
  return loaded ??= import("@modelcontextprotocol/sdk/client/auth.js");
}
