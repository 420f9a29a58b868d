/**
 * What a caller may reach, from its token's globs — always the token's CURRENT globs. A caller
 * built by the doors (`callerOf` in `src/session/door.ts`) carries the token's name and reads its
 * globs from the running config at every check ({@link configuredToken}), so a reload that
 * narrows a token applies to every open session, every transport and every script already
 * running on its behalf, from the next check on.
 *
 * A token's servers are the upstream servers owning at least one tool its globs allow (tools a
 * config hides from clients do not count); a token without globs sees every server. Resources,
 * resource templates, completions of templates and upstream log messages follow that set.
 */
import type { GatewayConfig, TokenConfig } from "../config/mod.ts";
import { matchesAny } from "./catalog.ts";
import type { Caller } from "./types.ts";

/** True when the caller's token allows `name` (no globs = everything). */
export function callerAllows(caller: Caller, name: string): boolean {
  return caller.toolGlobs === null || matchesAny(name, caller.toolGlobs);
}

const byName = new WeakMap<readonly TokenConfig[], ReadonlyMap<string, TokenConfig>>();

/**
 * The configured token named `name` in `config`, or `undefined` when the config has none by that
 * name (auth off, or the token was removed).
 */
export function configuredToken(
  config: GatewayConfig,
  name: string | null,
): TokenConfig | undefined {
  const tokens = config.gateway.tokens;
  if (tokens === null || name === null) return undefined;
  let map = byName.get(tokens);
  if (!map) {
    map = new Map(tokens.map((t) => [t.name, t]));
    byName.set(tokens, map);
  }
  return map.get(name);
}

/** True when two glob lists allow the same (both `null`, or equal in order and content). */
export function sameGlobs(
  a: readonly string[] | null,
  b: readonly string[] | null,
): boolean {
  if (a === null || b === null) return a === b;
  return a.length === b.length && a.every((g, i) => g === b[i]);
}
