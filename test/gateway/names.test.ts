import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { disambiguate, EXPOSED_NAME, exposedName, sanitise } from "../../src/gateway/mod.ts";

describe("exposed names", () => {
  it("prefixes with the server and separator", () => {
    assert.equal(exposedName("github", "search_issues", "__", true), "github__search_issues");
    assert.equal(exposedName("solo", "run", "__", false), "run");
  });

  it("replaces characters outside [a-zA-Z0-9_-]", () => {
    assert.equal(sanitise("a.b c/d:é"), "a_b_c_d__");
  });

  it("shortens long names to 64 characters with a stable hash suffix", () => {
    const long = "x".repeat(100);
    const a = exposedName("srv", long, "__", true);
    assert.equal(a.length, 64);
    assert.match(a, EXPOSED_NAME);
    assert.equal(a, exposedName("srv", long, "__", true));
    assert.notEqual(a, exposedName("srv", long + "y", "__", true));
  });

  it("disambiguates a collision deterministically", () => {
    const taken = new Set(["a__b"]);
    const one = disambiguate("a__b", "a/b.", taken);
    assert.equal(one, disambiguate("a__b", "a/b.", taken));
    assert.notEqual(one, "a__b");
    assert.match(one, EXPOSED_NAME);
  });
});
