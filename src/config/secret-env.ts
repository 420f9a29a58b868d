/**
 * The gateway's own secret variables, which no stdio server may inherit (`inheritEnv` included):
 * a tool that prints its environment would otherwise hand them to whoever may call it. A
 * variable is the gateway's when `${VAR}` names it anywhere under `gateway:` (auth tokens, the
 * secrets key, the cluster's Redis URL and state key, telemetry headers…) or in an upstream's
 * `url`, `headers` or `oauth` (its API key, its OAuth client secret), and when its value equals
 * such a secret written literally; and the token the gateway's own commands use to call it
 * (`MCP_GATEWAY_TOKEN`). The variables every server gets anyway (`PATH`, `HOME`…) are not
 * secrets for being named in a path.
 */
import { referencedNames } from "./env.ts";
import type { RawConfig } from "./schema.ts";

/** Inherited by every stdio server when set: enough to find programs, a home and a locale. */
export const BASE_ENV: readonly string[] = ["PATH", "HOME", "LANG", "TMPDIR"];

/** Variables the gateway's own commands read a secret from (`mcp-gateway login`'s token). */
const OWN_SECRET_VARIABLES = ["MCP_GATEWAY_TOKEN"];

/** Shorter values are not compared (a copy of `1` or `true` says nothing). */
const MIN_SECRET_LENGTH = 8;

/** Keys of a server whose values are credentials of the gateway's, not the server's own. */
const UPSTREAM_SECRET_KEYS = ["url", "headers", "oauth"] as const;

/**
 * The sorted names of `env` that hold or name a secret of the gateway's, from the config as
 * written (`raw`, before `${VAR}` expansion) and as parsed.
 */
export function secretVariables(
  raw: unknown,
  parsed: RawConfig,
  env: Readonly<Record<string, string | undefined>>,
): string[] {
  const tree = (raw ?? {}) as { gateway?: unknown; servers?: Record<string, unknown> };
  const names = referencedNames(tree.gateway);
  for (const server of Object.values(tree.servers ?? {})) {
    if (!server || typeof server !== "object") continue;
    for (const key of UPSTREAM_SECRET_KEYS) {
      referencedNames((server as Record<string, unknown>)[key], names);
    }
  }
  for (const base of BASE_ENV) names.delete(base);
  for (const own of OWN_SECRET_VARIABLES) if (env[own] !== undefined) names.add(own);
  const values = new Set(secretValues(parsed).filter((v) => v.length >= MIN_SECRET_LENGTH));
  for (const [k, v] of Object.entries(env)) if (v !== undefined && values.has(v)) names.add(k);
  return [...names].sort();
}

/** The secret values the parsed config holds. */
function secretValues(c: RawConfig): string[] {
  const g = c.gateway ?? {};
  const out = [
    ...(g.auth?.tokens ?? []).map((t) => t.token),
    g.secrets?.key,
    g.cluster?.redis,
    g.cluster?.stateKey,
    ...Object.values(g.telemetry?.headers ?? {}),
  ];
  for (const s of Object.values(c.servers ?? {})) {
    out.push(...Object.values(s.headers ?? {}), s.oauth?.clientSecret);
  }
  return out.filter((v): v is string => v !== undefined);
}
