/**
 * `${VAR}` and `${VAR:-default}` expansion over a parsed YAML tree. Runs before validation so
 * that validation sees final values; a missing variable is an error naming its YAML path.
 */

/** One expansion problem, located by its YAML path. */
export interface EnvProblem {
  path: (string | number)[];
  message: string;
}

const REF = /\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

/** Expands one string; `$$` stands for a literal `$`. */
export function expandString(
  value: string,
  env: Record<string, string | undefined>,
  missing: (name: string) => void,
): string {
  return value.replace(REF, (whole, name: string | undefined, fallback: string | undefined) => {
    if (whole === "$$") return "$";
    const v = env[name!];
    if (v !== undefined && v !== "") return v;
    if (fallback !== undefined) return fallback;
    missing(name!);
    return "";
  });
}

/** Returns a copy of `tree` with every string expanded; problems are collected, not thrown. */
export function expandEnv(
  tree: unknown,
  env: Record<string, string | undefined>,
  problems: EnvProblem[],
  path: (string | number)[] = [],
): unknown {
  if (typeof tree === "string") {
    return expandString(
      tree,
      env,
      (name) => problems.push({ path, message: `environment variable ${name} is not set` }),
    );
  }
  if (Array.isArray(tree)) return tree.map((v, i) => expandEnv(v, env, problems, [...path, i]));
  if (tree && typeof tree === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(tree)) out[k] = expandEnv(v, env, problems, [...path, k]);
    return out;
  }
  return tree;
}
