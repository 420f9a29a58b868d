/**
 * DNS-rebinding defence. A web page can make a browser send requests to 127.0.0.1 (directly, or
 * by pointing its own DNS name there); the browser then sends the page's `Origin` and its own
 * name in `Host`. Both are checked against allowlists before anything else runs.
 */
import { GatewayError } from "../../shared/errors.ts";
import type { Logger } from "../../shared/log.ts";
import { isLoopback } from "./exposure.ts";

/** Host names allowed by default when listening on loopback (any port). */
export const LOOPBACK_HOSTS: readonly string[] = Object.freeze([
  "localhost",
  "localhost:*",
  "127.0.0.1",
  "127.0.0.1:*",
  "[::1]",
  "[::1]:*",
]);

/** Options for {@link originCheck}. */
export interface OriginGuardOptions {
  /** Live `gateway.allowedOrigins` globs (read per request so a reload takes effect). */
  origins: () => readonly string[];
  /** Live `gateway.allowedHosts` globs; `null` = the default for the listen address. */
  hosts: () => readonly string[] | null;
  /** The address the server listens on. */
  listenHost: string;
  log: Logger;
}

const cache = new Map<string, RegExp>();

/**
 * Verdicts of {@link matchesHostGlob} per glob list: every request of a client sends the same
 * `Host`, so it is matched once, not once per request. The lists are the config's (frozen; a
 * reload brings new ones) and the default hosts (frozen too), so a list never changes under its
 * verdicts. At most {@link VERDICTS_MAX} values per list, so a client sending many hosts only
 * misses it.
 */
const verdicts = new WeakMap<readonly string[], Map<string, boolean>>();
const VERDICTS_MAX = 32;

/**
 * True when `value` matches one of `globs`, case-insensitively. `*` stands for any run of
 * characters within one DNS label or port (never `.`, `:`, `/` or `@`, so `http://localhost:*`
 * cannot match `http://localhost:1.evil.example`); a glob of just `*` matches anything.
 * `globs` must not change once matched (see {@link verdicts}).
 */
export function matchesHostGlob(value: string, globs: readonly string[]): boolean {
  let known = verdicts.get(globs);
  if (known === undefined) verdicts.set(globs, known = new Map());
  const verdict = known.get(value);
  if (verdict !== undefined) return verdict;
  const matched = matches(value, globs);
  if (known.size < VERDICTS_MAX) known.set(value, matched);
  return matched;
}

function matches(value: string, globs: readonly string[]): boolean {
  const v = value.toLowerCase();
  for (const g of globs) {
    if (g === "*") return true;
    let re = cache.get(g);
    if (!re) {
      const body = g.toLowerCase().split("*").map((part) =>
        part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")
      ).join("[^./:@]*");
      re = new RegExp(`^${body}$`);
      cache.set(g, re);
    }
    if (re.test(v)) return true;
  }
  return false;
}

/** The hosts allowed when none are configured: loopback names plus the listen host, or none. */
export function defaultHosts(listenHost: string): readonly string[] | null {
  if (!isLoopback(listenHost)) return null;
  const shown = listenHost.includes(":") && !listenHost.startsWith("[")
    ? `[${listenHost}]`
    : listenHost;
  return Object.freeze([...LOOPBACK_HOSTS, shown, `${shown}:*`]);
}

/**
 * The origin/host check as a plain function: throws `FORBIDDEN` for a request from an origin
 * or for a host the config does not allow: the chain's first check (`chain.ts`).
 */
export function originCheck(
  options: OriginGuardOptions,
): (headers: Headers, url: string, path: string) => void {
  const fallbackHosts = defaultHosts(options.listenHost);
  return function checkOrigin(headers, url, path) {
    const origin = headers.get("origin");
    if (origin !== null && !matchesHostGlob(origin, options.origins())) {
      options.log.warn("request from a disallowed origin refused", { origin, path });
      throw new GatewayError(
        "FORBIDDEN",
        `origin ${origin} is not allowed (add it to gateway.allowedOrigins)`,
      );
    }
    const hosts = options.hosts() ?? fallbackHosts;
    if (hosts !== null) {
      const host = headers.get("host") ?? new URL(url).host;
      if (!matchesHostGlob(host, hosts)) {
        options.log.warn("request for a disallowed host refused", { host, path });
        throw new GatewayError(
          "FORBIDDEN",
          `host ${host} is not allowed (add it to gateway.allowedHosts)`,
        );
      }
    }
  };
}
