/**
 * From a verified access token's claims to the tools it may reach. A token's globs are the union
 * of the globs of its granted scopes (`scope`, or `scp` as some providers write it) and of its
 * mapped claim values; its profiles come the same way. Lookups use own keys only, so a scope named `constructor` or `__proto__`
 * maps to nothing.
 */
import type { OAuthConfig } from "../../../config/mod.ts";

/** The scopes a token grants: `scope` (space-separated) or `scp` (list or string). */
export function grantedScopes(claims: Record<string, unknown>): string[] {
  const raw = claims.scope ?? claims.scp;
  return valuesOf(raw).flatMap((v) => v.split(" ")).filter((s) => s !== "");
}

/**
 * The tool globs of a token: `null` when the config maps neither scopes nor claims (every valid
 * token reaches every tool), else the union (possibly empty) of what its scopes and claims map to.
 */
export function globsOf(
  claims: Record<string, unknown>,
  config: Pick<OAuthConfig, "scopes" | "claims">,
): string[] | null {
  if (config.scopes === null && Object.keys(config.claims).length === 0) return null;
  const globs = new Set<string>();
  for (const scope of grantedScopes(claims)) {
    for (const g of own(config.scopes ?? {}, scope) ?? []) globs.add(g);
  }
  for (const [claim, byValue] of Object.entries(config.claims)) {
    const present = Object.hasOwn(claims, claim) ? claims[claim] : undefined;
    for (const value of valuesOf(present)) {
      for (const g of own(byValue, value) ?? []) globs.add(g);
    }
  }
  return [...globs];
}

/**
 * The profiles a token may use (`gateway.auth.oauth.profiles`): the union of what its claim's
 * values (or granted scopes) map to; `default` when none is mapped; `null` = not limited.
 */
export function profilesOf(
  claims: Record<string, unknown>,
  config: Pick<OAuthConfig, "profiles">,
): string[] | null {
  const mapping = config.profiles;
  if (mapping === null) return null;
  const values = mapping.claim === "scope"
    ? grantedScopes(claims)
    : valuesOf(Object.hasOwn(claims, mapping.claim) ? claims[mapping.claim] : undefined);
  const profiles = new Set<string>();
  for (const value of values) {
    for (const p of own(mapping.map, value) ?? []) profiles.add(p);
  }
  if (profiles.size === 0) return mapping.default === null ? null : [...mapping.default];
  return [...profiles];
}

function own<T>(map: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(map, key) ? map[key] : undefined;
}

/** String values of a claim: a string, or the strings (and numbers, booleans) of a list. */
function valuesOf(raw: unknown): string[] {
  if (typeof raw === "string") return [raw];
  if (typeof raw === "number" || typeof raw === "boolean") return [String(raw)];
  if (Array.isArray(raw)) return raw.flatMap((v) => typeof v === "object" ? [] : [String(v)]);
  return [];
}
