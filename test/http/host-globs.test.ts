import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { defaultHosts, matchesHostGlob } from "../../src/http/security/mod.ts";

describe("host globs", () => {
  it("judges a value again against each new list, however often it was judged before", () => {
    // A reload brings a new (frozen) list: a verdict of the old list must not answer for it.
    const before = Object.freeze(["127.0.0.1:*"]);
    const after = Object.freeze(["mcp.internal:*"]);
    for (let i = 0; i < 3; i++) assert.equal(matchesHostGlob("127.0.0.1:8787", before), true);
    assert.equal(matchesHostGlob("127.0.0.1:8787", after), false);
    assert.equal(matchesHostGlob("mcp.internal:1", after), true);
    assert.equal(matchesHostGlob("mcp.internal:1", before), false);
  });

  it("keeps judging right past the values it remembers, case-insensitively", () => {
    const hosts = defaultHosts("127.0.0.1")!;
    for (let i = 0; i < 100; i++) {
      assert.equal(matchesHostGlob(`127.0.0.1:${i}`, hosts), true);
      assert.equal(matchesHostGlob(`evil-${i}.example:${i}`, hosts), false);
    }
    assert.equal(matchesHostGlob("LOCALHOST:1", hosts), true);
    assert.equal(matchesHostGlob("localhost:1.evil.example", hosts), false);
  });
});
