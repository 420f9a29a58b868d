/**
 * Traces: with `gateway.telemetry` set, every tool call, script run and upstream request becomes
 * an OpenTelemetry span exported over OTLP/HTTP. A real receiver (an HTTP server decoding the
 * OTLP/JSON the exporter sends) checks the spans and their parent links, and the upstream fixture
 * reports the `traceparent` it received in `_meta`.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { CreateTaskResultSchema } from "@modelcontextprotocol/sdk/types.js";
import {
  httpClient,
  nodeServer,
  startTestGateway,
  type TestGateway,
  textOf,
  waitFor,
} from "../_helpers/gateway.ts";
import { type ReceivedSpan, startReceiver } from "../_helpers/otlp.ts";

const TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
const CLIENT_SPAN = "00f067aa0ba902b7";
const TRACEPARENT = `00-${TRACE}-${CLIENT_SPAN}-01`;

/** The traceparent the upstream saw, split into trace and span id. */
function upstreamParent(result: unknown): { trace: string; span: string } {
  const meta = JSON.parse(textOf(result)) as { traceparent?: string };
  const [, trace, span] = (meta.traceparent ?? "").split("-");
  return { trace: trace!, span: span! };
}

describe("traces to an OTLP receiver", () => {
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let gw: TestGateway;
  let client: Client;
  before(async () => {
    receiver = await startReceiver();
    gw = await startTestGateway(`
gateway:
  telemetry: { otlp: "${receiver.url}", serviceName: gw-under-test, flush: 50ms }
servers:
  echo: ${nodeServer("echo.mjs")}
  tasks: ${nodeServer("conformance.mjs", 'prefix: false, tools: { allow: ["slow_compute"] }')}
`);
    client = await httpClient(gw.url);
  });
  after(async () => {
    await client?.close();
    await gw?.stop();
    receiver?.close();
  });

  const spansOf = async (trace: string, n: number): Promise<ReceivedSpan[]> => {
    const mine = () => receiver.spans.filter((s) => s.traceId === trace);
    await waitFor(() => mine().length >= n, 10_000, `${n} spans of trace ${trace}`);
    return mine();
  };

  it("continues the client's traceparent and hands the upstream span's to the server", async () => {
    const result = await client.callTool({
      name: "echo__meta",
      arguments: {},
      _meta: { traceparent: TRACEPARENT },
    });
    const seen = upstreamParent(result);
    assert.equal(seen.trace, TRACE, "the upstream request stays in the client's trace");

    const spans = await spansOf(TRACE, 2);
    const tool = spans.find((s) => s.name === "tools/call echo__meta")!;
    const upstream = spans.find((s) => s.name === "echo tools/call")!;
    assert.ok(tool && upstream, `spans: ${spans.map((s) => s.name)}`);
    assert.equal(tool.parentSpanId, CLIENT_SPAN, "the tool span is a child of the client's span");
    assert.equal(upstream.parentSpanId, tool.spanId, "the upstream span is a child of the call");
    assert.equal(seen.span, upstream.spanId, "the server got the upstream span as its parent");
    assert.equal(tool.service, "gw-under-test");
    assert.equal(tool.attributes["mcp.outcome"], "ok");
    assert.equal(upstream.attributes["mcp.server"], "echo");
    assert.equal(upstream.attributes["mcp.upstream_tool"], "meta");
  });

  it("a call without a traceparent starts a new trace", async () => {
    const result = await client.callTool({ name: "echo__meta", arguments: {} });
    const seen = upstreamParent(result);
    assert.match(seen.trace, /^[0-9a-f]{32}$/);
    assert.notEqual(seen.trace, TRACE);
    const spans = await spansOf(seen.trace, 2);
    const tool = spans.find((s) => s.name === "tools/call echo__meta")!;
    assert.equal(tool.parentSpanId, "", "a root span");
  });

  it("a script run is a span between the execute call and the calls it makes", async () => {
    const trace = "0af7651916cd43dd8448eb211c80319c";
    const result = await client.callTool({
      name: "execute",
      arguments: { code: `return tools.call("echo__meta", {}).data.content[1].text` },
      _meta: { traceparent: `00-${trace}-b7ad6b7169203331-01` },
    });
    assert.ok(!result.isError, textOf(result));
    const spans = await spansOf(trace, 4);
    const byName = (n: string) => spans.find((s) => s.name === n)!;
    const execute = byName("tools/call execute");
    const script = byName("script execute");
    const inner = byName("tools/call echo__meta");
    const upstream = byName("echo tools/call");
    assert.ok(execute && script && inner && upstream, `spans: ${spans.map((s) => s.name)}`);
    assert.equal(execute.parentSpanId, "b7ad6b7169203331");
    assert.equal(script.parentSpanId, execute.spanId);
    assert.equal(inner.parentSpanId, script.spanId);
    assert.equal(upstream.parentSpanId, inner.spanId);
  });

  it("a task-augmented call is a tool span like any call", async () => {
    const trace = "33333333333333333333333333333333";
    const created = await client.request({
      method: "tools/call",
      params: {
        name: "slow_compute",
        arguments: { seconds: 0 },
        task: { ttl: 60_000 },
        _meta: { traceparent: `00-${trace}-4444444444444444-01` },
      },
    }, CreateTaskResultSchema);
    assert.match(created.task.taskId, /^[0-9a-f-]{36}$/);
    const spans = await spansOf(trace, 1);
    const tool = spans.find((s) => s.name === "tools/call slow_compute");
    assert.ok(tool, `spans: ${spans.map((s) => s.name)}`);
    assert.equal(tool.parentSpanId, "4444444444444444");
    assert.equal(tool.attributes["mcp.outcome"], "ok");
  });

  it("an error result is marked on the span", async () => {
    const trace = "11111111111111111111111111111111";
    await client.callTool({
      name: "echo__fail",
      arguments: {},
      _meta: { traceparent: `00-${trace}-2222222222222222-01` },
    });
    const spans = await spansOf(trace, 2);
    const tool = spans.find((s) => s.name === "tools/call echo__fail")!;
    assert.equal(tool.attributes["mcp.outcome"], "tool_error");
  });
});

describe("without telemetry", () => {
  let gw: TestGateway;
  let client: Client;
  before(async () => {
    gw = await startTestGateway(`servers:\n  echo: ${nodeServer("echo.mjs")}\n`);
    client = await httpClient(gw.url);
  });
  after(async () => {
    await client?.close();
    await gw?.stop();
  });

  it("a client's traceparent reaches the upstream unchanged", async () => {
    const result = await client.callTool({
      name: "echo__meta",
      arguments: {},
      _meta: { traceparent: TRACEPARENT },
    });
    assert.deepEqual(upstreamParent(result), { trace: TRACE, span: CLIENT_SPAN });
  });
});
