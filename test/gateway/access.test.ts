/**
 * The scope resolver, in process: the caller a door makes (`callerOf`) reads its token's globs
 * from the running config.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { type GatewayConfig, parseConfig } from "../../src/config/mod.ts";
import { callerAllows, configuredToken, sameGlobs } from "../../src/gateway/mod.ts";
import { callerOf } from "../../src/session/door.ts";

const withGlobs = (globs: string) =>
  parseConfig(`
gateway:
  auth:
    tokens:
      - { name: ci, token: "ci-token-0123456789abcdef", tools: ${globs} }
      - { name: admin, token: "admin-token-0123456789abcdef" }
`);

describe("live callers", () => {
  it("read the token's globs from whichever config is running at each check", () => {
    let running: GatewayConfig = withGlobs(`["echo__*"]`);
    const gateway = {
      get config() {
        return running;
      },
    };
    const caller = callerOf(gateway, { tokenName: "ci", toolGlobs: ["*"] }, () => "s1");
    assert.equal(callerAllows(caller, "echo__pid"), true);
    running = withGlobs(`["echo__echo"]`);
    assert.equal(callerAllows(caller, "echo__pid"), false);
    assert.equal(callerAllows(caller, "echo__echo"), true);
    assert.equal(caller.sessionId, "s1");
  });

  it("give a token without globs every tool", () => {
    const caller = callerOf({ config: withGlobs(`["x"]`) }, {
      tokenName: "admin",
      toolGlobs: null,
    });
    assert.equal(caller.toolGlobs, null);
    assert.equal(callerAllows(caller, "anything__at_all"), true);
  });

  it("keep the globs an identity came with when the config does not list its name", () => {
    const config = withGlobs(`["echo__*"]`);
    const anonymous = callerOf({ config }, { tokenName: null, toolGlobs: null });
    assert.equal(anonymous.toolGlobs, null);
    assert.equal(anonymous.sessionId, null);
    const other = callerOf({ config }, { tokenName: "elsewhere", toolGlobs: ["a"] });
    assert.deepEqual(other.toolGlobs, ["a"]);
  });
});

describe("configuredToken and sameGlobs", () => {
  it("find a token by name only while the config lists it", () => {
    assert.equal(configuredToken(withGlobs(`["a"]`), "ci")?.name, "ci");
    assert.equal(configuredToken(withGlobs(`["a"]`), "gone"), undefined);
    assert.equal(configuredToken(parseConfig("servers: {}"), "ci"), undefined);
  });

  it("compare glob lists by content, null meaning every tool", () => {
    assert.equal(sameGlobs(["a", "b"], ["a", "b"]), true);
    assert.equal(sameGlobs(["a", "b"], ["a"]), false);
    assert.equal(sameGlobs(null, null), true);
    assert.equal(sameGlobs(null, []), false);
  });
});
