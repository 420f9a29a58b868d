/**
 * The runtime's synchronous hashes (`src/runtime/hash.ts`, `Bun.CryptoHasher` on Bun and
 * `node:crypto` loaded at first use elsewhere) give the digests `node:crypto` gives — the audit
 * log's argument hashes, pins and the status cookie's HMAC must not change with the runtime —
 * and the constant-time compare says equal only for equal bytes.
 */
import assert from "node:assert/strict";
import { createHash, createHmac } from "node:crypto";
import { describe, it } from "node:test";
import {
  hmacSha256,
  randomBase64Url,
  randomBytes,
  sameBytes,
  sha256,
  sha256Hex,
  toHex,
} from "../../src/runtime/hash.ts";

const texts = ["", "a", "héllo wörld ✓", "x".repeat(1000), '{"a":[1,2,{"b":null}]}'];

describe("runtime hashes", () => {
  it("SHA-256 of text and bytes matches node:crypto", () => {
    for (const t of texts) {
      assert.equal(sha256Hex(t), createHash("sha256").update(t, "utf8").digest("hex"), t);
      const bytes = new TextEncoder().encode(t);
      assert.equal(toHex(sha256(bytes)), createHash("sha256").update(bytes).digest("hex"));
    }
  });

  it("parts are hashed in order, as one stream", () => {
    const whole = createHash("sha256").update("ab").update(new Uint8Array([1, 2])).digest("hex");
    assert.equal(toHex(sha256("a", "b", new Uint8Array([1, 2]))), whole);
    assert.notEqual(toHex(sha256("b", "a", new Uint8Array([1, 2]))), whole);
  });

  it("HMAC-SHA-256 matches node:crypto for text and byte keys", () => {
    const key = randomBytes(32);
    for (const t of texts) {
      assert.equal(
        toHex(hmacSha256(key, t)),
        createHmac("sha256", key).update(t).digest("hex"),
      );
      assert.equal(
        toHex(hmacSha256("a text key", t, sha256(t))),
        createHmac("sha256", "a text key").update(t).update(sha256(t)).digest("hex"),
      );
    }
  });

  it("random bytes are random and of the asked length", () => {
    const a = randomBytes(32);
    assert.equal(a.length, 32);
    assert.equal(sameBytes(a, randomBytes(32)), false);
    assert.match(toHex(randomBytes(6)), /^[0-9a-f]{12}$/);
    // A 256-bit token: 43 base64url characters, no padding, never the same twice.
    const token = randomBase64Url(32);
    assert.match(token, /^[A-Za-z0-9_-]{43}$/);
    assert.notEqual(token, randomBase64Url(32));
  });

  it("sameBytes: equal only for equal bytes of equal length", () => {
    const a = sha256("x");
    assert.equal(sameBytes(a, sha256("x")), true);
    assert.equal(sameBytes(a, sha256("y")), false);
    const last = Uint8Array.from(a);
    last[31]! ^= 1;
    assert.equal(sameBytes(a, last), false);
    assert.equal(sameBytes(a, a.subarray(0, 31)), false);
    assert.equal(sameBytes(new Uint8Array(0), new Uint8Array(0)), true);
  });
});
