// Outage kinds travel as data from where the failure happens to the script's error code: the
// wording of the runtime's error never matters.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { outageOf } from "../../../src/gateway/mod.ts";
import { OUTAGE_CODES } from "../../../src/tools/execute/mod.ts";
import { GatewayError } from "../../../src/shared/errors.ts";
import { NO_CONTEXT } from "../../../src/shared/call-context.ts";
import { framed } from "../../../src/upstream/frame.ts";
import { LeanLeg } from "../../../src/upstream/lean-leg.ts";

/** A lean caller to server "s" whose writes go to `write`. */
function lean(write: () => Promise<void>) {
  const leg = new LeanLeg("s", write);
  return { leg, caller: framed(leg, "s") };
}

/** The script error code a thrown upstream failure becomes. */
function scriptCode(err: unknown): string | undefined {
  const outage = outageOf(err);
  return outage ? OUTAGE_CODES[outage.outage] : undefined;
}

describe("outage kinds", () => {
  for (const wording of ["write EPIPE", "Broken pipe (os error 32)", "stream closed", ""]) {
    it(`a lean call whose write fails with ${JSON.stringify(wording)} is upstream_error`, async () => {
      const { caller } = lean(() => Promise.reject(new Error(wording)));
      const err = await caller.call("tools/call", { name: "t" }, NO_CONTEXT, { timeoutMs: 5000 })
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      assert.ok(err instanceof GatewayError);
      assert.equal(err.code, "UPSTREAM_UNAVAILABLE");
      assert.deepEqual(outageOf(err), {
        kind: "outage",
        outage: "unavailable",
        server: "s",
        message: err.message,
      });
      assert.equal(scriptCode(err), "upstream_error");
    });
  }

  it("calls pending when the connection closes are upstream_error", async () => {
    const { leg, caller } = lean(() => Promise.resolve());
    const pending = caller.call("tools/call", { name: "t" }, NO_CONTEXT, { timeoutMs: 5000 }).catch(
      (e) => e,
    );
    leg.closed();
    assert.equal(scriptCode(await pending), "upstream_error");
  });

  it("a lean call past its timeout is timeout", async () => {
    const { caller } = lean(() => Promise.resolve());
    const err = await caller.call("tools/call", { name: "t" }, NO_CONTEXT, { timeoutMs: 20 }).catch(
      (e) => e,
    );
    assert.equal(scriptCode(err), "timeout");
  });

  it("the kind comes from the code alone: any wording, and no outage for other codes", () => {
    assert.equal(scriptCode(new GatewayError("UPSTREAM_UNAVAILABLE", "?")), "upstream_error");
    assert.equal(scriptCode(new GatewayError("UPSTREAM_TIMEOUT", "closed")), "timeout");
    assert.equal(scriptCode(new GatewayError("TOOL_NOT_FOUND", "server is gone")), undefined);
    assert.equal(scriptCode(new Error('server "x" is down')), undefined);
  });
});
