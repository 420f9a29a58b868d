/**
 * Canonical form of a declared definition (a tool or a prompt as its server lists it): JSON
 * with object keys sorted at every depth, so the same definition always hashes the same
 * whatever order the server wrote its keys in; and a path-by-path diff of two definitions.
 */
import { sha256Hex } from "../../runtime/hash.ts";
import { byName, own } from "../../shared/by-name.ts";

/** JSON text of `value` with keys sorted at every depth. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== "object") return value;
  // No prototype: a key named `__proto__` is kept (and hashed) like any other.
  const out = byName<unknown>();
  for (const key of Object.keys(value).sort()) {
    out[key] = sortKeys((value as Record<string, unknown>)[key]);
  }
  return out;
}

/**
 * SHA-256 (hex) of the canonical JSON of `value`. Not remembered per object: a server's review
 * is reused while its list stays the same objects (`pins.ts`), so a definition is hashed again
 * only when its server's list, pins or mode changed, and a hash kept for every listed tool
 * would cost memory for each one.
 */
export function canonicalHash(value: unknown): string {
  return sha256Hex(canonicalJson(value));
}

/** One difference between two definitions, at a dotted path (`inputSchema.properties.q`). */
export interface FieldDiff {
  readonly path: string;
  /** Absent when the path is new. */
  readonly before?: unknown;
  /** Absent when the path was removed. */
  readonly after?: unknown;
}

/** How many differences a diff lists at most (a rewritten schema would list hundreds). */
const MAX_DIFFS = 40;

/** Every path where `before` and `after` differ, objects compared key by key. */
export function diffDefinitions(before: unknown, after: unknown): FieldDiff[] {
  const out: FieldDiff[] = [];
  walk(before, after, "", out);
  return out;
}

function walk(a: unknown, b: unknown, path: string, out: FieldDiff[]): void {
  if (out.length >= MAX_DIFFS) return;
  if (isObject(a) && isObject(b)) {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
    for (const k of keys) walk(own(a, k), own(b, k), path ? `${path}.${k}` : k, out);
    return;
  }
  if (canonicalJson(a) === canonicalJson(b)) return;
  out.push({
    path: path || "(whole)",
    ...(a === undefined ? {} : { before: a }),
    ...(b === undefined ? {} : { after: b }),
  });
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

/** The top-level fields a diff touches, in order (`description`, `inputSchema`). */
export function fieldsOf(diff: readonly FieldDiff[]): string[] {
  return [...new Set(diff.map((d) => d.path.split(".")[0]!))];
}
