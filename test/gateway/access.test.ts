/**
 * The scope resolver, in process: the caller a door makes (`callerOf`) reads its token's globs
 * from the running config.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { type GatewayConfig, parseConfig } from "../../src/config/mod.ts";
import { callerAllows, configuredToken, sameGlobs } from "../../src/gateway/mod.ts";
import { callerOf } from "../../src/session/door.ts";
import { FastCalls } from "../../src/session/legacy/fast-call.ts";
import type { Gateway } from "../../src/gateway/mod.ts";

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

describe("a 2025 session's caller, kept between its requests", () => {
  const config = withGlobs(`["echo__*"]`);
  const gateway = { config } as unknown as Gateway;
  const session = { id: "s1" };
  const globs = ["a__*"];

  it("is the same object while requests present the same token, profile and globs", () => {
    const fast = new FastCalls();
    const first = fast.callerOf(gateway, { tokenName: "oauth", toolGlobs: globs }, session);
    // A new identity object per request (the auth check makes one), with the same content.
    const again = fast.callerOf(gateway, { tokenName: "oauth", toolGlobs: globs }, session);
    assert.equal(again, first);
    assert.equal(first.sessionId, "s1");
    assert.deepEqual(first.toolGlobs, ["a__*"]);
  });

  it("is made anew for a request that presents other globs, profile or subject token", () => {
    const fast = new FastCalls();
    const wide = fast.callerOf(gateway, { tokenName: "oauth", toolGlobs: globs }, session);
    const narrow = fast.callerOf(gateway, { tokenName: "oauth", toolGlobs: ["a__x"] }, session);
    assert.notEqual(narrow, wide);
    assert.deepEqual(narrow.toolGlobs, ["a__x"]);
    const profiled = fast.callerOf(
      gateway,
      { tokenName: "oauth", toolGlobs: ["a__x"], profile: "p" },
      session,
    );
    assert.notEqual(profiled, narrow);
    assert.equal(profiled.profile, "p");
    const subject = fast.callerOf(
      gateway,
      { tokenName: "oauth", toolGlobs: ["a__x"], profile: "p", subjectToken: "t2" },
      session,
    );
    assert.notEqual(subject, profiled);
    assert.equal(subject.subjectToken, "t2");
    assert.equal(profiled.subjectToken, undefined);
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
