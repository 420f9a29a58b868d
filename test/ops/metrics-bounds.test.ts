/**
 * `/metrics` stays bounded whatever clients send: calls to unknown tool names share one
 * `tool="unknown"` series, and past the ceiling of distinct names further tools count as
 * `tool="other"`.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { parseConfig } from "../../src/config/mod.ts";
import { type CallRecord, Gateway } from "../../src/gateway/mod.ts";
import { Metrics } from "../../src/ops/mod.ts";
import { createLogger } from "../../src/shared/log.ts";
import { nodeServer, type TestGateway, useGateway } from "../_helpers/gateway.ts";

/** Sample lines of one metric family (no HELP/TYPE lines). */
function series(text: string, family: string): string[] {
  return text.split("\n").filter((l) => l.startsWith(family + "{") || l.startsWith(family + " "));
}

describe("bounded tool labels on a running gateway", () => {
  let gw: TestGateway;
  let client: Client;
  useGateway(`servers:\n  echo: ${nodeServer("echo.mjs")}\n`, (g, c) => {
    gw = g;
    client = c;
  });

  it('counts 200 calls to unknown tool names as one tool="unknown" series', async () => {
    await client.callTool({ name: "echo__echo", arguments: {} });
    for (let i = 0; i < 200; i++) {
      await assert.rejects(client.callTool({ name: `no_such_tool_${i}`, arguments: {} }));
    }
    const text = await (await fetch(`${gw.url}/metrics`)).text();
    assert.ok(!text.includes("no_such_tool_"), "a client-chosen name became a label value");
    const calls = series(text, "mcp_gateway_tool_calls_total");
    // echo__echo and unknown, three outcomes each.
    assert.equal(calls.length, 6, calls.join("\n"));
    assert.ok(
      calls.includes('mcp_gateway_tool_calls_total{server="",tool="unknown",outcome="error"} 200'),
      calls.join("\n"),
    );
    assert.equal(series(text, "mcp_gateway_tool_call_errors_total").length, 2);
    // 14 buckets + +Inf + sum + count, per series.
    assert.equal(series(text, "mcp_gateway_tool_call_duration_seconds_bucket").length, 2 * 15);
    assert.ok(text.split("\n").length < 150, `${text.split("\n").length} lines`);
  });
});

describe("the tool label ceiling", () => {
  it('labels tools beyond the ceiling tool="other", and keeps counting the first ones', () => {
    const config = parseConfig("servers: {}\n", { file: "/tmp/gateway.yaml" });
    const gateway = new Gateway(config, createLogger("test"));
    const metrics = new Metrics({ gateway, maxToolLabels: 3 });
    const call = (name: string): CallRecord => ({
      kind: "tool",
      name,
      server: "s",
      tokenName: null,
      profile: null,
      sessionId: null,
      era: "local",
      scriptDepth: 0,
      filters: [],
      durationMs: 1,
      outcome: "ok",
      at: Date.now(),
    });
    for (let i = 0; i < 50; i++) metrics.observe(call(`s__tool_${i}`));
    metrics.observe(call("s__tool_0"));
    const calls = series(metrics.render(), "mcp_gateway_tool_calls_total")
      .filter((l) => l.includes('outcome="ok"'));
    assert.deepEqual(calls, [
      'mcp_gateway_tool_calls_total{server="s",tool="s__tool_0",outcome="ok"} 2',
      'mcp_gateway_tool_calls_total{server="s",tool="s__tool_1",outcome="ok"} 1',
      'mcp_gateway_tool_calls_total{server="s",tool="s__tool_2",outcome="ok"} 1',
      'mcp_gateway_tool_calls_total{server="s",tool="other",outcome="ok"} 47',
    ]);
  });
});
