/**
 * @module Synchronous SHA-256 and HMAC-SHA-256, random bytes and a constant-time compare, without
 * importing `node:crypto` at start. In a compiled Bun binary evaluating `node:crypto` costs ~4.5
 * MiB of RSS more than Web Crypto (docs/PERFORMANCE.md), and the gateway's start-up graph only
 * needs hashes it can take from the runtime: on Bun `Bun.CryptoHasher` (native, synchronous, keyed
 * for HMAC); elsewhere `node:crypto`, fetched through `process.getBuiltinModule` at the first
 * hash, so nothing loads it before a hash is taken. Random bytes and UUIDs come from the global
 * Web Crypto (`crypto.getRandomValues`, `crypto.randomUUID`), synchronous on both runtimes.
 */

/** Bytes or text (UTF-8) to hash. */
export type HashInput = string | Uint8Array;

interface Hasher {
  update(data: HashInput): Hasher;
  digest(): Uint8Array;
}

declare const Bun:
  | {
    CryptoHasher: new (algorithm: "sha256", key?: HashInput) => {
      update(data: HashInput): unknown;
      digest(): Uint8Array;
    };
  }
  | undefined;

interface NodeCrypto {
  createHash(algorithm: "sha256"): Hasher;
  createHmac(algorithm: "sha256", key: HashInput): Hasher;
}

let nodeCrypto: NodeCrypto | undefined;

/** `node:crypto`, loaded at first use (off Bun only). */
function node(): NodeCrypto {
  if (nodeCrypto) return nodeCrypto;
  const load = (process as unknown as { getBuiltinModule?(id: string): NodeCrypto })
    .getBuiltinModule;
  if (!load) {
    throw new Error("hashing needs Bun, Deno 2 or Node 22.3+ (no process.getBuiltinModule)");
  }
  return nodeCrypto = load.call(process, "node:crypto");
}

/** One SHA-256 (or, with a key, HMAC-SHA-256) digest of `parts` in order. */
function digest(parts: readonly HashInput[], key?: HashInput): Uint8Array {
  if (typeof Bun !== "undefined") {
    const h = key === undefined
      ? new Bun.CryptoHasher("sha256")
      : new Bun.CryptoHasher("sha256", key);
    for (const part of parts) h.update(part);
    return new Uint8Array(h.digest());
  }
  const h = key === undefined ? node().createHash("sha256") : node().createHmac("sha256", key);
  for (const part of parts) h.update(part);
  return new Uint8Array(h.digest());
}

/** SHA-256 of `parts` in order (text is hashed as UTF-8). */
export function sha256(...parts: HashInput[]): Uint8Array {
  return digest(parts);
}

/** HMAC-SHA-256 of `parts` in order under `key`. */
export function hmacSha256(key: HashInput, ...parts: HashInput[]): Uint8Array {
  return digest(parts, key);
}

/** SHA-256 of `text` as lower-case hex (what content digests and short name hashes use). */
export function sha256Hex(text: HashInput): string {
  return toHex(digest([text]));
}

/** Lower-case hex of `bytes`. */
export function toHex(bytes: Uint8Array): string {
  // One flat string: text built piece by piece stays a rope of its pieces on JavaScriptCore
  // (dozens of strings per digest), and digests are kept per tool definition.
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("hex");
}

/** `n` cryptographically random bytes (Web Crypto). */
export function randomBytes(n: number): Uint8Array {
  return crypto.getRandomValues(new Uint8Array(n));
}

/** `n` random bytes as base64url text: a one-use token a URL or a form carries. */
export function randomBase64Url(n: number): string {
  return Buffer.from(randomBytes(n)).toString("base64url");
}

/**
 * True when `a` and `b` hold the same bytes. The time depends on the lengths only, never on
 * where the first difference is; callers compare digests of equal length, so the length is no
 * secret either.
 */
export function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i]! ^ b[i]!;
  return diff === 0;
}
