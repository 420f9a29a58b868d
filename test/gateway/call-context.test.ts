import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  childContext,
  enterCall,
  eraOf,
  type ProgressParams,
} from "../../src/gateway/call-context.ts";
import type { Caller, ClientChannel } from "../../src/gateway/types.ts";

/** A caller as a door makes one: a token, its globs, a profile. */
const C: Caller = { sessionId: null, tokenName: "alice", toolGlobs: ["a__*"], profile: "p" };

/** A client channel of `era`; `lasting` as a 2025 session's is. */
function channel(era: "legacy" | "modern", lasting: boolean): ClientChannel {
  return {
    era,
    lasting,
    askable: true,
    closed: false,
    capabilities: {},
    request: () => Promise.resolve({}),
    notify: () => {},
  };
}

describe("the call context every entry builds", () => {
  it("maps the progress token out of _meta and keeps the rest, traceparent included", () => {
    const sent: ProgressParams[] = [];
    const signal = new AbortController().signal;
    const options = enterCall(C, {
      meta: { progressToken: "p1", traceparent: "00-a-b-01", other: 1 },
      signal,
      requestId: 7,
      progress: (p) => sent.push(p),
    });
    assert.deepEqual(options.meta, { traceparent: "00-a-b-01", other: 1 });
    assert.equal(options.signal, signal);
    assert.equal(options.requestId, 7);
    options.onprogress!({ progress: 1, total: 2 });
    assert.deepEqual(sent, [{ progress: 1, total: 2, progressToken: "p1" }]);
    // The same object goes down to the frame: a call that reports progress keeps its clock alive.
    assert.equal(options.resetTimeoutOnProgress, true);
  });

  it("carries no meta and no progress relay when the request has neither", () => {
    const options = enterCall(C, { meta: { progressToken: 3 } });
    assert.equal(options.meta, undefined);
    assert.equal(options.onprogress, undefined);
    assert.deepEqual(enterCall(C), { caller: C });
  });

  it("a script's call keeps its parent's session and request id, one level deeper, with only the span's traceparent", () => {
    const parent = {
      ...enterCall(C, { meta: { traceparent: "00-t-s-01", x: 1 }, requestId: "r" }),
      scriptDepth: 1,
    };
    const nested = enterCall(C, { parent, internal: true });
    assert.deepEqual(nested, {
      caller: C,
      scriptDepth: 2,
      era: "local",
      requestId: "r",
      meta: { traceparent: "00-t-s-01" },
      internal: true,
    });
    assert.deepEqual(enterCall(C, { parent: enterCall(C) }), {
      caller: C,
      scriptDepth: 1,
      era: "local",
    });
  });

  it("a script's call keeps the era of the client its script serves (for the audit log)", () => {
    const modern = enterCall(C, { client: channel("modern", false) });
    assert.equal(eraOf(modern), "modern");
    assert.equal(eraOf(enterCall(C, { parent: modern })), "modern");
    const twice = enterCall(C, { parent: enterCall(C, { parent: modern }) });
    assert.equal(eraOf(twice), "modern");
    assert.equal(eraOf(enterCall(C)), "local");
  });

  it("a script's call keeps a lasting client (a session), not a flow's own channel", () => {
    const session = channel("legacy", true);
    assert.equal(enterCall(C, { parent: enterCall(C, { client: session }) }).client, session);
    const flow = enterCall(C, { client: channel("modern", false) });
    assert.equal(enterCall(C, { parent: flow }).client, undefined);
  });

  it("carries the door's caller itself, and a child context keeps it", () => {
    const options = enterCall(C, { signal: new AbortController().signal });
    assert.equal(options.caller, C, "the door's object, not a copy");
    const child = childContext(options, { timeoutMs: 5 });
    assert.equal(child.caller, C);
    assert.equal(child.timeoutMs, 5);
    assert.equal(options.timeoutMs, undefined, "the parent is never edited");
  });
});
