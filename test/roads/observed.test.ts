/**
 * Every road is observed alike: a call that ends well on any of them is counted once in
 * `mcp_gateway_tool_calls_total` on `/metrics` under the server that served it, and recorded
 * as a `tools/call` span (sent to a real OTLP receiver) in the trace its `traceparent` names —
 * for a script's or a macro's inner call, in the trace of the `execute` or macro call around it.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { startTestGateway, type TestGateway, waitFor } from "../_helpers/gateway.ts";
import { type ReceivedSpan, startReceiver } from "../_helpers/otlp.ts";
import { countedCalls, newTrace, roadsYaml } from "./_gateway.ts";
import { ROADS, wideOf } from "./_roads.ts";

describe("every road is counted and traced", () => {
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let gw: TestGateway;
  before(async () => {
    receiver = await startReceiver();
    gw = await startTestGateway(roadsYaml(
      `  telemetry: { otlp: "${receiver.url}", serviceName: one-road, flush: 50ms }`,
    ));
  });
  after(async () => {
    await gw?.stop();
    receiver?.close();
  });

  ROADS.forEach((road, i) => {
    it(road.name, { timeout: 60_000 }, async () => {
      const before = await countedCalls(gw.url, road.server);
      const { trace, traceparent } = newTrace();
      const outcome = await road.call(gw.url, wideOf(i), road.tool, traceparent);
      assert.equal(outcome.ok, true, outcome.message);
      if (road.streamed) {
        const progress = outcome.messages?.filter((m) => m.method === "notifications/progress");
        assert.equal(progress?.length, 1, JSON.stringify(outcome.messages));
      }
      // The call record is written as the call ends, which may be just after its answer.
      const counted = await waitFor(
        async () => (await countedCalls(gw.url, road.server)) - before || null,
        30_000,
        "the call on /metrics",
      );
      assert.equal(counted, 1, `${counted} calls counted for one`);
      const span = await waitFor<ReceivedSpan | undefined>(
        () =>
          receiver.spans.find((s) => s.traceId === trace && s.name === `tools/call ${road.tool}`),
        30_000,
        `a tools/call ${road.tool} span in trace ${trace}`,
      );
      assert.ok(span);
      assert.equal(span.service, "one-road");
      assert.equal(span.attributes["mcp.token"], wideOf(i));
      assert.equal(span.attributes["mcp.outcome"], "ok");
    });
  });
});
