/**
 * "Did you mean `timeout`?" for unknown config keys. The allowed keys at a YAML path are read
 * from the zod schema itself, so keys other rooms add to `schema.ts` are suggested without a
 * list kept here.
 */
import type { z } from "zod";
import { levenshtein } from "../discovery/mod.ts";

interface Def {
  type: string;
  shape?: Record<string, z.ZodType>;
  innerType?: z.ZodType;
  valueType?: z.ZodType;
  element?: z.ZodType;
  options?: z.ZodType[];
  in?: z.ZodType;
}

const defOf = (schema: z.ZodType): Def => (schema as unknown as { _zod: { def: Def } })._zod.def;

/** Object schemas reachable at `path` (a union may offer several). */
function objectsAt(schema: z.ZodType, path: readonly (string | number)[]): Def[] {
  const def = defOf(schema);
  switch (def.type) {
    case "optional":
    case "nullable":
    case "default":
    case "readonly":
      return def.innerType ? objectsAt(def.innerType, path) : [];
    case "pipe":
      return def.in ? objectsAt(def.in, path) : [];
    case "union":
      return (def.options ?? []).flatMap((o) => objectsAt(o, path));
  }
  if (path.length === 0) return def.type === "object" ? [def] : [];
  const [head, ...rest] = path;
  if (def.type === "object") {
    const child = def.shape?.[String(head)];
    return child ? objectsAt(child, rest) : [];
  }
  if (def.type === "record" && def.valueType) return objectsAt(def.valueType, rest);
  if (def.type === "array" && def.element) return objectsAt(def.element, rest);
  return [];
}

/** The keys the schema allows in the map at `path` (sorted; empty when it is not a fixed map). */
export function allowedKeys(schema: z.ZodType, path: readonly (string | number)[]): string[] {
  const keys = new Set<string>();
  for (const def of objectsAt(schema, path)) {
    for (const k of Object.keys(def.shape ?? {})) keys.add(k);
  }
  return [...keys].sort();
}

/**
 * The allowed key closest to `key` by edit distance (case folded), when it is close enough to be
 * a typo: at most a third of the longer name, and never more than 3 edits.
 */
export function closestKey(key: string, allowed: readonly string[]): string | undefined {
  let best: { key: string; distance: number } | undefined;
  for (const candidate of allowed) {
    const distance = levenshtein(key.toLowerCase(), candidate.toLowerCase());
    const limit = Math.min(3, Math.ceil(Math.max(key.length, candidate.length) / 3));
    if (distance <= limit && (!best || distance < best.distance)) {
      best = { key: candidate, distance };
    }
  }
  return best?.key;
}
