/**
 * Normalises `servers.<name>.oauth`: the client side of OAuth 2.1 towards one HTTP upstream.
 * Which modes this build serves is decided here, so a config naming one it does not is refused
 * with its YAML path instead of starting a server that could never log in.
 */
import type { NormaliseProblem } from "./normalise.ts";
import type { RawUpstreamOAuth } from "./schema.ts";
import type { GatewayConfig, UpstreamOAuthConfig } from "./types.ts";

/** The modes this build implements. */
const SERVED_MODES: ReadonlySet<string> = new Set(["shared", "per-user", "exchange"]);

/** The normalised section, or `null` when absent; problems are pushed, not thrown. */
export function normaliseUpstreamOAuth(
  raw: RawUpstreamOAuth | undefined,
  path: readonly (string | number)[],
  problems: NormaliseProblem[],
): UpstreamOAuthConfig | null {
  if (raw === undefined) return null;
  if (!SERVED_MODES.has(raw.mode)) {
    problems.push({
      path: [...path, "mode"],
      message: `mode ${raw.mode} is not available in this version (use shared or per-user)`,
    });
  }
  if (raw.clientSecret !== undefined && raw.clientId === undefined) {
    problems.push({
      path: [...path, "clientSecret"],
      message: "clientSecret needs clientId (a registered client)",
    });
  }
  if (raw.mode === "exchange" && (raw.clientId === undefined || raw.clientSecret === undefined)) {
    problems.push({
      path: [...path, "clientId"],
      message: "mode exchange needs clientId and clientSecret: the gateway's own client at the " +
        "issuer's token endpoint",
    });
  }
  if (raw.audience !== undefined && raw.mode !== "exchange") {
    problems.push({ path: [...path, "audience"], message: "audience applies to mode exchange" });
  }
  return {
    mode: raw.mode,
    issuer: raw.issuer ?? null,
    clientId: raw.clientId ?? null,
    clientSecret: raw.clientSecret ?? null,
    scopes: raw.scopes ?? null,
    audience: raw.audience ?? null,
  };
}

/** `mode: per-user` needs client identities: configured tokens or `gateway.auth.oauth`. */
export function perUserProblems(config: GatewayConfig, problems: NormaliseProblem[]): void {
  for (const s of config.servers) {
    if (s.kind === "http" && s.oauth?.mode === "exchange" && config.gateway.oauth === null) {
      problems.push({
        path: ["servers", s.name, "oauth", "mode"],
        message: "mode exchange exchanges clients' OAuth access tokens: set gateway.auth.oauth",
      });
    }
  }
  const oauthServer = config.servers.find((s) => s.kind === "http" && s.oauth !== null);
  if (oauthServer && config.gateway.cluster !== null && config.gateway.secretsKey === null) {
    problems.push({
      path: ["gateway", "secrets", "key"],
      message: `with gateway.cluster, server ${oauthServer.name}'s credentials are stored in ` +
        "Redis: set gateway.secrets.key (the same on every instance) to seal them",
    });
  }
  if (config.gateway.tokens !== null || config.gateway.oauth !== null) return;
  for (const s of config.servers) {
    if (s.kind === "http" && s.oauth?.mode === "per-user") {
      problems.push({
        path: ["servers", s.name, "oauth", "mode"],
        message: "mode per-user needs client identities: set gateway.auth.tokens or " +
          "gateway.auth.oauth",
      });
    }
  }
}
