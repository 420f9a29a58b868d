/**
 * Every road spends the token's call rate: once a batch has taken all but what the road's
 * call needs of a 10-call burst (nothing comes back at one a minute), the next call on any road
 * is refused by the gate's rate check, naming `gateway.auth.rateLimit`. A script's or a macro's
 * call is one call more: `execute` or the macro itself takes the last one, and the inner call is
 * the one refused. The token's request rate (the same burst, counted per HTTP request) stays
 * well inside it: the drain is one batch and a road spends a few requests.
 */
import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import type { TestGateway } from "../_helpers/gateway.ts";
import { newTrace, serveRoads } from "./_gateway.ts";
import { ROADS, wideOf } from "./_roads.ts";
import { callMessage, openOn, postOn } from "./_wire.ts";

const BURST = 10;
const REFUSAL = new RegExp(
  `is over its call rate limit \\(gateway\\.auth\\.rateLimit: 1/min, burst ${BURST}\\)`,
);

describe("every road spends the per-token call rate", () => {
  const gateway = serveRoads("", `{ perMinute: 1, burst: ${BURST} }`);
  let gw: TestGateway;
  before(() => void (gw = gateway()));

  ROADS.forEach((road, i) => {
    it(road.name, { timeout: 60_000 }, async () => {
      const who = wideOf(i);
      const drain = BURST - (road.wrapped ? 1 : 0);
      const sid = await openOn(gw.url, "/mcp", who);
      const batch = Array.from({ length: drain }, (_, n) => callMessage(n + 1, "echo__slow", {}));
      const drained = await postOn(gw.url, "/mcp", who, sid, batch);
      assert.equal(drained.status, 200);
      const answered = drained.messages.filter((m) => m.result);
      assert.equal(answered.length, drain, JSON.stringify(drained.messages.slice(0, 3)));

      const refused = await road.call(gw.url, who, road.tool, newTrace().traceparent);
      assert.equal(refused.ok, false, `ran past the gate: ${refused.message}`);
      assert.match(refused.message, REFUSAL);
      assert.match(refused.message, new RegExp(`token "${who}"`));
    });
  });
});
