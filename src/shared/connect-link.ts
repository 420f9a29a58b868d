/**
 * Connect links of per-user servers: their shape, and the one place a link's secret is taken out
 * of text. A link is a bearer credential for ten minutes (whoever opens it attaches their own
 * account to the identity it was made for), so it goes to that identity's answer alone; every
 * record others read — logs, the audit log, the status page — keeps the path and drops the secret.
 */

/** The route a connect link opens. */
export const LINK_PATH = "/oauth/link";

/** The link with secret `token` on a gateway reached at `base`. */
export function connectLinkUrl(base: string, token: string): string {
  return `${base}${LINK_PATH}?t=${token}`;
}

const SECRET_IN_LINK = /(\/oauth\/link\?t=)[A-Za-z0-9_-]+/g;

/** `text` with every connect link's secret replaced; the same string when it holds none. */
export function withoutLinkSecrets(text: string): string {
  return text.includes(LINK_PATH) ? text.replace(SECRET_IN_LINK, "$1[redacted]") : text;
}
