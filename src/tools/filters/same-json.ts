/**
 * Whether a Lua filter changed a result: a deep comparison of two JSON values. Key order is
 * not compared (a Lua table has none), so a filter that changed nothing hands on the object
 * that arrived, in its own order.
 */

/** True when `a` and `b` are the same JSON value. */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameJson(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const ob = b as Record<string, unknown>;
  if (ka.length !== Object.keys(ob).length) return false;
  const oa = a as Record<string, unknown>;
  for (const k of ka) if (!Object.hasOwn(ob, k) || !sameJson(oa[k], ob[k])) return false;
  return true;
}
