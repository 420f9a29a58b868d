/**
 * What a session holds of its raw tool results between its `tools/call` handler and the answer's
 * send (`src/session/legacy/raw-results.ts`): only results with raw JSON and `content`, never a
 * cancelled call's, each taken out by the send of its id whatever that send carries, all of
 * them at close, none for an id two calls share, and never more than a few at once.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { RawResults } from "../../src/session/legacy/raw-results.ts";
import { withRawJson } from "../../src/shared/raw-json.ts";

const raw = (text: string) => withRawJson({ content: [{ type: "text", text }] }, "{}");
const live = () => new AbortController().signal;

describe("a session's raw results", () => {
  it("holds a raw result with content until the answer of its id takes it", async () => {
    const results = new RawResults();
    const result = raw("a");
    assert.equal(await results.keepOn(Promise.resolve(result), 7, live()), result);
    assert.equal(results.take({ jsonrpc: "2.0", id: 8, result: {} }), undefined);
    assert.equal(results.take({ jsonrpc: "2.0", id: 7, result: {} }), result);
    assert.equal(results.take({ jsonrpc: "2.0", id: 7, result: {} }), undefined, "taken once");
  });

  it("holds nothing without raw JSON or content, or for a call cancelled by then", async () => {
    const results = new RawResults();
    await results.keepOn(Promise.resolve({ content: [] }), 1, live());
    await results.keepOn(Promise.resolve(withRawJson({ isError: true }, "{}")), 2, live());
    const cancelled = new AbortController();
    cancelled.abort();
    await results.keepOn(Promise.resolve(raw("c")), 3, cancelled.signal);
    for (const id of [1, 2, 3]) assert.equal(results.take({ id, result: {} }), undefined);
  });

  it("lets a held result go when its id is answered with an error, and all at close", async () => {
    const results = new RawResults();
    await results.keepOn(Promise.resolve(raw("e")), "e", live());
    assert.equal(
      results.take({ jsonrpc: "2.0", id: "e", error: { code: 1, message: "x" } }),
      undefined,
    );
    assert.equal(results.take({ id: "e", result: {} }), undefined);
    await results.keepOn(Promise.resolve(raw("f")), "f", live());
    results.clear();
    assert.equal(results.take({ id: "f", result: {} }), undefined);
  });

  it("holds neither of two results for one id in flight: each answer keeps its own", async () => {
    const results = new RawResults();
    await Promise.all([
      results.keepOn(Promise.resolve(raw("first")), 5, live()),
      results.keepOn(Promise.resolve(raw("second")), 5, live()),
    ]);
    assert.equal(results.take({ id: 5, result: {} }), undefined);
    assert.equal(results.take({ id: 5, result: {} }), undefined);
  });

  it("never holds more than sixteen", async () => {
    const results = new RawResults();
    for (let id = 0; id < 17; id++) await results.keepOn(Promise.resolve(raw(`${id}`)), id, live());
    // The seventeenth found sixteen held and let them go before it was held.
    assert.equal(results.take({ id: 0, result: {} }), undefined);
    assert.ok(results.take({ id: 16, result: {} }));
  });
});
