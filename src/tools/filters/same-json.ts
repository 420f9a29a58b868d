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
  // Own keys walked and counted, not listed: an `Object.keys` array per object compared was
  // most of what comparing a request's small `_meta` made.
  const oa = a as Record<string, unknown>;
  const ob = b as Record<string, unknown>;
  let keys = 0;
  for (const k in oa) {
    if (!Object.hasOwn(oa, k)) continue;
    if (!Object.hasOwn(ob, k) || !sameJson(oa[k], ob[k])) return false;
    keys++;
  }
  for (const k in ob) if (Object.hasOwn(ob, k) && --keys < 0) return false;
  return keys === 0;
}
