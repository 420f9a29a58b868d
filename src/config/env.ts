/**
 * `${VAR}` and `${VAR:-default}` expansion over a parsed YAML tree. Runs before validation so
 * that validation sees final values; a missing variable is an error naming its YAML path.
 */

/** One expansion problem, located by its YAML path. */
export interface EnvProblem {
  path: (string | number)[];
  message: string;
  /** The variable that is not set. */
  variable: string;
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

/**
 * `value` written so that {@link expandString} gives it back unchanged: every `$` doubled. For
 * text that must stay literal in gateway.yaml (what `import` copies from a client config).
 */
export function literalString(value: string): string {
  return value.replace(/\$/g, () => "$$");
}

/** True when expanding `value` would change it (it holds a `${VAR}` or a `$$`). */
export function hasReferences(value: string): boolean {
  return value.search(REF) >= 0;
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
      (name) =>
        problems.push({ path, message: `environment variable ${name} is not set`, variable: name }),
    );
  }
  if (Array.isArray(tree)) return tree.map((v, i) => expandEnv(v, env, problems, [...path, i]));
  if (tree && typeof tree === "object") {
    // From entries: a `__proto__` key stays a key, for the schema to refuse by name.
    return Object.fromEntries(
      Object.entries(tree).map(([k, v]) => [k, expandEnv(v, env, problems, [...path, k])]),
    );
  }
  return tree;
}

/** Names of the variables `${VAR}` references anywhere in `tree` (before expansion). */
export function referencedNames(tree: unknown, out = new Set<string>()): Set<string> {
  if (typeof tree === "string") {
    for (const m of tree.matchAll(REF)) if (m[1] !== undefined) out.add(m[1]);
  } else if (Array.isArray(tree)) {
    for (const v of tree) referencedNames(v, out);
  } else if (tree && typeof tree === "object") {
    for (const v of Object.values(tree)) referencedNames(v, out);
  }
  return out;
}
