/**
 * Every road passes the call gate: while a token's one `concurrency` slot is held by a call that
 * hangs upstream, its next call is refused on any road with the gate's own error naming the
 * limit — a script's or a macro's inner call as well (the `execute` or macro call itself holds
 * no slot, so it runs and its inner call is the one refused). Each road has its own token, so
 * a slot one test holds is no other test's business; the slot is taken when the hang server has
 * the call, not after a sleep.
 */
import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import type { TestGateway } from "../_helpers/gateway.ts";
import { holdSlot, newTrace, serveRoads } from "./_gateway.ts";
import { ROADS, wideOf } from "./_roads.ts";

const REFUSAL =
  /already has 1 tool calls in flight, its limit \(gateway\.auth\.rateLimit\.concurrency = 1\); retry after 1s/;

describe("every road passes the per-token call gate", () => {
  const gateway = serveRoads();
  let gw: TestGateway;
  before(() => void (gw = gateway()));

  ROADS.forEach((road, i) => {
    it(road.name, { timeout: 60_000 }, async () => {
      const release = await holdSlot(gw.url, wideOf(i));
      try {
        const refused = await road.call(gw.url, wideOf(i), road.tool, newTrace().traceparent);
        assert.equal(refused.ok, false, `ran past the gate: ${refused.message}`);
        assert.match(refused.message, REFUSAL);
        assert.match(refused.message, new RegExp(`token "${wideOf(i)}"`));
      } finally {
        await release();
      }
    });
  });
});
