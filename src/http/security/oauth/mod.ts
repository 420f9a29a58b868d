/**
 * @module OAuth 2.1 resource-server mode: access tokens (JWT) from one authorization server are
 * accepted beside the configured bearer tokens; the protected resource metadata and the 401
 * challenge tell clients where to get one.
 */
import type { OAuthConfig } from "../../../config/mod.ts";
import type { Logger } from "../../../shared/log.ts";
import { looksLikeJwt, type OAuthIdentity, OAuthVerifier } from "./verifier.ts";

export { discoverJwksUri, metadataUrls } from "./discovery.ts";
export {
  addChallenge,
  challenge,
  discoveryAnswer,
  METADATA_PATH,
  metadataDocument,
  metadataUrl,
} from "./metadata.ts";
export { globsOf, grantedScopes, profilesOf } from "./scopes.ts";
export { identityOf, looksLikeJwt, OAuthVerifier } from "./verifier.ts";
export type { OAuthIdentity } from "./verifier.ts";

/**
 * The fallback verifier for bearer auth, following the live config: `null` for a token that is
 * not a JWT or when OAuth is off (so it is refused as unknown), else the token's identity or a
 * thrown refusal. The verifier (and its key cache) survives reloads that leave the section as is.
 */
export function oauthFallback(
  oauth: () => OAuthConfig | null,
  log: Logger,
): (presented: string) => Promise<OAuthIdentity | null> {
  let current: { config: OAuthConfig; key: string; verifier: OAuthVerifier } | null = null;
  return async (presented) => {
    const config = oauth();
    if (config === null || !looksLikeJwt(presented)) return null;
    if (current?.config !== config) {
      const key = JSON.stringify(config);
      const verifier = current?.key === key ? current.verifier : new OAuthVerifier(config, log);
      current = { config, key, verifier };
    }
    return await current.verifier.verify(presented);
  };
}
