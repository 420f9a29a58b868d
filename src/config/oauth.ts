/**
 * Normalises `gateway.auth.oauth`. The keys are where access tokens are checked, so plain-HTTP
 * issuer or key URLs are refused beyond loopback: whoever could rewrite them could mint tokens.
 */
import type { NormaliseProblem } from "./normalise.ts";
import type { RawOAuth } from "./schema.ts";
import type { OAuthConfig } from "./types.ts";
import { isLoopback } from "../shared/loopback.ts";
import { parseDuration } from "./units.ts";

const DEFAULT_ALGORITHMS = ["RS256", "ES256"];
const PATH = ["gateway", "auth", "oauth"];

/** The normalised OAuth section, or `null` when absent; problems are pushed, not thrown. */
export function normaliseOAuth(
  raw: RawOAuth | undefined,
  problems: NormaliseProblem[],
): OAuthConfig | null {
  if (raw === undefined) return null;
  for (const key of ["issuer", "audience", "jwksUri"] as const) {
    const url = raw[key];
    if (url === undefined) continue;
    const problem = urlProblem(url, key !== "audience");
    if (problem) problems.push({ path: [...PATH, key], message: problem });
  }
  const metadata = raw.resourceMetadata ?? {};
  return {
    issuer: raw.issuer,
    audience: raw.audience,
    jwksUri: raw.jwksUri ?? null,
    algorithms: [...new Set(raw.algorithms ?? DEFAULT_ALGORITHMS)],
    scopes: raw.scopes ?? null,
    claims: raw.claims ?? {},
    profiles: raw.profiles
      ? {
        claim: raw.profiles.claim ?? "scope",
        // No prototype: a claim value may be `constructor`.
        map: Object.assign(Object.create(null), raw.profiles.map),
        default: raw.profiles.default ?? null,
      }
      : null,
    clockToleranceMs: ms(raw.clockTolerance, 30_000),
    jwksCooldownMs: ms(raw.jwksCooldown, 30_000),
    resourceMetadata: {
      ...metadata,
      scopes_supported: metadata.scopes_supported ?? Object.keys(raw.scopes ?? {}),
    },
  };
}

/** Why `url` cannot be used, or `null`. `fetched`: the gateway fetches keys from it. */
function urlProblem(url: string, fetched: boolean): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return "expected an http(s) URL";
  }
  if (parsed.protocol !== "https:" && parsed.protocol !== "http:") {
    return "expected an http(s) URL";
  }
  if (parsed.hash !== "") return "expected a URL without a #fragment";
  if (fetched && parsed.protocol === "http:" && !isLoopback(parsed.hostname)) {
    return "expected an https URL (plain http only on loopback: keys fetched in clear text " +
      "could be replaced on the way)";
  }
  return null;
}

function ms(v: string | undefined, fallback: number): number {
  return v === undefined ? fallback : parseDuration(v) ?? fallback;
}
