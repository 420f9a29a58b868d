/**
 * Finds an issuer's JWKS URL from its published metadata, so an operator configures only the
 * issuer. OpenID Connect discovery is tried first (most providers), then RFC 8414 authorization
 * server metadata. The document must name the configured issuer (RFC 8414 §3.3): a document
 * served for another issuer could point at keys that issuer controls.
 */
import { GatewayError } from "../../../shared/errors.ts";
import { isLoopback } from "../exposure.ts";
import { fetchIssuerDocument } from "../../../shared/document-fetch.ts";

/** The metadata URLs of `issuer`, in the order they are tried. */
export function metadataUrls(issuer: string): string[] {
  const url = new URL(issuer);
  const path = url.pathname === "/" ? "" : url.pathname.replace(/\/$/, "");
  return [
    `${url.origin}${path}/.well-known/openid-configuration`,
    `${url.origin}/.well-known/oauth-authorization-server${path}`,
  ];
}

/**
 * The `jwks_uri` the issuer publishes. Throws `UPSTREAM_UNAVAILABLE` naming every URL tried
 * when none answers with a usable document.
 */
export async function discoverJwksUri(issuer: string): Promise<string> {
  const reasons: string[] = [];
  for (const url of metadataUrls(issuer)) {
    try {
      const res = await fetchIssuerDocument(url, { headers: { accept: "application/json" } });
      if (res.status !== 200) {
        await res.body?.cancel();
        reasons.push(`${url}: HTTP ${res.status}`);
        continue;
      }
      const doc = await res.json() as { issuer?: unknown; jwks_uri?: unknown };
      if (doc.issuer !== issuer) {
        reasons.push(`${url}: names issuer ${JSON.stringify(doc.issuer)}, not ${issuer}`);
        continue;
      }
      if (typeof doc.jwks_uri !== "string" || !URL.canParse(doc.jwks_uri)) {
        reasons.push(`${url}: no jwks_uri`);
        continue;
      }
      const jwks = new URL(doc.jwks_uri);
      if (jwks.protocol !== "https:" && !(jwks.protocol === "http:" && isLoopback(jwks.hostname))) {
        reasons.push(`${url}: jwks_uri ${doc.jwks_uri} is not https`);
        continue;
      }
      return doc.jwks_uri;
    } catch (err) {
      reasons.push(`${url}: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  throw new GatewayError(
    "UPSTREAM_UNAVAILABLE",
    `the authorization server's metadata could not be read (${reasons.join("; ")}); ` +
      "set gateway.auth.oauth.jwksUri to skip discovery",
  );
}
