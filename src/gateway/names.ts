/**
 * Exposed names: `<server><separator><name>`, always matching `^[a-zA-Z0-9_-]{1,64}$`.
 * Foreign characters become `_`; names over 64 characters keep a readable head and end in a
 * stable hash of the full original, so the same upstream name always maps to the same name.
 */
import { sha256Hex } from "../runtime/hash.ts";

/** The pattern every exposed tool and prompt name matches. */
export const EXPOSED_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
const MAX = 64;
const HASH_LEN = 8;

/** A short stable hash (hex) of a string. */
export function stableHash(text: string, length = HASH_LEN): string {
  return sha256Hex(text).slice(0, length);
}

/** Replaces every character outside `[a-zA-Z0-9_-]` with `_`. */
export function sanitise(name: string): string {
  const s = name.replace(/[^a-zA-Z0-9_-]/g, "_");
  return s === "" ? "_" : s;
}

/** Cuts a sanitised name to 64 characters, ending it with a hash of `original`. */
export function shorten(name: string, original: string): string {
  if (name.length <= MAX) return name;
  return `${name.slice(0, MAX - HASH_LEN - 1)}_${stableHash(original)}`;
}

/** The exposed name of an upstream item. */
export function exposedName(
  server: string,
  name: string,
  separator: string,
  prefix: boolean,
): string {
  const full = prefix ? `${server}${separator}${name}` : name;
  return shorten(sanitise(full), full);
}

/** A name made unique against `taken` by a hash suffix of `key` (deterministic). */
export function disambiguate(
  name: string,
  key: string,
  taken: { has(name: string): boolean },
): string {
  for (let salt = 0;; salt++) {
    const suffix = `_${stableHash(salt === 0 ? key : `${key}#${salt}`, 6)}`;
    const candidate = name.slice(0, MAX - suffix.length) + suffix;
    if (!taken.has(candidate)) return candidate;
  }
}
