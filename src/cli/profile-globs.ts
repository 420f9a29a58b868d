/**
 * `check`'s rule for profiles: every glob of `profiles.<name>.tools` and `.macros` must be able
 * to match something, so a typo (`gihub__*`) is caught before an agent finds its endpoint
 * empty. Without upstreams connected, a `tools` glob is alive when it matches a local tool
 * (macros, `execute`, the meta-tools) or could match a name of a prefixed server (its literal
 * start agrees with `<server><separator>`); a server with `prefix: false` could be named
 * anything, so then only the macro globs are judged. With `--connect` the real catalog decides.
 */
import type { GatewayConfig } from "../config/mod.ts";
import { matchesAny } from "../gateway/mod.ts";
import type { PreflightProblem } from "./preflight.ts";

/** Characters that start the pattern part of a glob: before them it is literal. */
const GLOB_META = /[*?[\]{}()!+@\\]/;

/**
 * Problems for profile globs that match nothing. `locals`: names of the local tools (macros,
 * `execute`, meta-tools); `catalog`: the upstream tool names when upstreams were connected,
 * else `null` (judged by server prefixes).
 */
export function deadProfileGlobs(
  config: GatewayConfig,
  locals: readonly string[],
  macros: readonly string[],
  catalog: readonly string[] | null,
): PreflightProblem[] {
  const sep = config.gateway.separator;
  const servers = config.servers.filter((s) => s.enabled);
  const unprefixed = servers.some((s) => !s.prefix);
  const prefixes = servers.map((s) => `${s.name}${sep}`);
  const mayMatchUpstream = (glob: string): boolean => {
    if (catalog !== null) return catalog.some((n) => matchesAny(n, [glob]));
    if (unprefixed) return true;
    const literal = glob.split(GLOB_META)[0]!;
    return prefixes.some((p) => p.startsWith(literal) || literal.startsWith(p));
  };
  const problems: PreflightProblem[] = [];
  for (const p of config.profiles) {
    p.tools.forEach((glob, i) => {
      if (locals.some((n) => matchesAny(n, [glob])) || mayMatchUpstream(glob)) return;
      problems.push({
        path: ["profiles", p.name, "tools", i],
        message: `glob "${glob}" matches no tool${
          catalog === null ? ` (tool names start with ${shown(prefixes)})` : ""
        }`,
      });
    });
    p.macros.forEach((glob, i) => {
      if (macros.some((n) => matchesAny(n, [glob]))) return;
      problems.push({
        path: ["profiles", p.name, "macros", i],
        message: `glob "${glob}" matches no macro (macros: ${shown(macros)})`,
      });
    });
  }
  return problems;
}

function shown(names: readonly string[]): string {
  if (names.length === 0) return "none";
  const first = names.slice(0, 8).map((n) => `"${n}"`).join(", ");
  return names.length > 8 ? `${first}, …` : first;
}
