import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Caller } from "../../src/gateway/types.ts";
import { authInfoOf } from "../../src/session/caller-auth.ts";
import { callerOfRequest } from "../../src/session/legacy/request-caller.ts";

const caller = (tokenName: string, toolGlobs: string[] | null): Caller => ({
  sessionId: "s",
  tokenName,
  toolGlobs,
  profile: null,
});

describe("a request's caller as the SDK's handlers find it", () => {
  it("is the one its own authInfo was made for, and nothing of it rides in authInfo.extra", () => {
    const narrow = caller("narrow", ["a__*"]);
    const wide = caller("wide", null);
    const a = authInfoOf(narrow);
    const b = authInfoOf(wide);
    assert.equal(a.extra, undefined);
    // A 2026-07-28 request's, with the answer its fast path already has, no more.
    assert.equal(authInfoOf(caller("t", null), { ready: true }).extra, undefined);
    const standing = () => wide;
    // Two requests in flight at once each resolve to their own token.
    assert.equal(callerOfRequest({ authInfo: a }, standing), narrow);
    assert.equal(callerOfRequest({ authInfo: b }, standing), wide);
    assert.equal(callerOfRequest({}, standing), wide);
  });

  it("an authInfo the gateway did not make is never taken as a caller, whatever its extra says", () => {
    const opener = caller("opener", ["a__*"]);
    const forged = {
      token: "",
      clientId: "admin",
      scopes: [],
      extra: { caller: caller("admin", null) },
    };
    // A copy of a real one is not it either: the caller goes with the object the door made.
    const copied = { ...authInfoOf(caller("admin", null)) };
    assert.equal(callerOfRequest({ authInfo: forged }, () => opener), opener);
    assert.equal(callerOfRequest({ authInfo: copied }, () => opener), opener);
  });
});
