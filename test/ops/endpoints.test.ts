/** `/metrics` (Prometheus text), `GET /` (status page) and the per-call debug log line. */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { httpClient, nodeServer, startTestGateway, type TestGateway } from "../_helpers/gateway.ts";
import { captureLogs } from "./_ops.ts";

const YAML = `
servers:
  echo: ${nodeServer("echo.mjs")}
  broken: { command: "./<img src=x onerror=alert(1)>" }
scripting:
  macros: null
  tools:
    two: { description: "Answers 2", lua: "return 2" }
`;

/** The value of one exact sample line, or undefined. */
function sample(text: string, series: string): number | undefined {
  const line = text.split("\n").find((l) => l.startsWith(series + " "));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe("operations endpoints", () => {
  let gw: TestGateway;
  let client: Client;
  let logs: ReturnType<typeof captureLogs>;
  before(async () => {
    gw = await startTestGateway(YAML);
    client = await httpClient(gw.url);
    logs = captureLogs("debug");
    await client.callTool({ name: "echo__echo", arguments: { password: "hunter2-secret" } });
    await client.callTool({ name: "echo__echo", arguments: {} });
    await client.callTool({ name: "echo__fail", arguments: {} });
    logs.restore();
  });
  after(async () => {
    await client?.close();
    await gw?.stop();
  });

  it("/metrics counts calls and errors per server and tool in Prometheus text", async () => {
    const res = await fetch(`${gw.url}/metrics`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get("content-type") ?? "", /^text\/plain; version=0\.0\.4/);
    const text = await res.text();
    const calls = 'mcp_gateway_tool_calls_total{server="echo",tool="echo__echo",outcome="ok"}';
    assert.equal(sample(text, calls), 2);
    assert.equal(
      sample(text, 'mcp_gateway_tool_call_errors_total{server="echo",tool="echo__fail"}'),
      1,
    );
    assert.equal(
      sample(text, 'mcp_gateway_tool_call_duration_seconds_count{server="echo",tool="echo__echo"}'),
      2,
    );
    assert.equal(
      sample(
        text,
        'mcp_gateway_tool_call_duration_seconds_bucket{server="echo",tool="echo__echo",le="+Inf"}',
      ),
      2,
    );
    assert.match(text, /# TYPE mcp_gateway_tool_call_duration_seconds histogram/);
  });

  it("/metrics shows upstream up/down, restarts and open sessions", async () => {
    const text = await (await fetch(`${gw.url}/metrics`)).text();
    assert.equal(sample(text, 'mcp_gateway_upstream_up{server="echo",transport="stdio"}'), 1);
    assert.equal(sample(text, 'mcp_gateway_upstream_up{server="broken",transport="stdio"}'), 0);
    assert.equal(
      typeof sample(text, 'mcp_gateway_upstream_restarts_total{server="broken"}'),
      "number",
    );
    assert.equal(sample(text, 'mcp_gateway_sessions{transport="streamable-http"}'), 1);
  });

  it("/metrics counts macro and execute runs and limit hits as the runs report them", async () => {
    const read = async () => {
      const text = await (await fetch(`${gw.url}/metrics`)).text();
      return [
        sample(text, 'mcp_gateway_script_runs_total{outcome="ok"}') ?? 0,
        sample(text, 'mcp_gateway_script_runs_total{outcome="limit"}') ?? 0,
        sample(text, 'mcp_gateway_script_limit_hits_total{limit="timeout"}') ?? 0,
      ];
    };
    const [ok, limited, hits] = await read();
    await client.callTool({ name: "two", arguments: {} });
    await client.callTool({ name: "execute", arguments: { code: "return 1" } });
    const spun = await client.callTool({
      name: "execute",
      arguments: { code: "while true do end", timeout_ms: 200 },
    });
    assert.equal(spun.isError, true);
    assert.deepEqual(await read(), [ok! + 2, limited! + 1, hits! + 1]);
    // The status page lists them too, newest first.
    const page = await (await fetch(`${gw.url}/`)).text();
    const rows = [...page.matchAll(/<tr data-script="([^"]+)">[\s\S]*?class="state (\w+)"/g)]
      .map((m) => [m[1], m[2]]);
    assert.deepEqual(rows.slice(0, 3), [["execute", "limit"], ["execute", "ok"], ["two", "ok"]]);
  });

  it("GET / shows each upstream's state and last error, HTML-escaped", async () => {
    const res = await fetch(`${gw.url}/`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get("content-type") ?? "", /^text\/html/);
    const page = await res.text();
    assert.match(
      page,
      /<tr data-server="echo">\s*<td data-label="Server" class="name">echo<\/td>\s*<td\s+data-label="State">\s*<div><span class="state up">up/,
    );
    assert.match(page, /<tr data-server="broken">[\s\S]*?class="state down">down/);
    assert.ok(/command not found: \S*&lt;img src=x onerror=alert\(1\)&gt;/.test(page));
    assert.ok(!page.includes("<img src=x"));
  });

  it("GET / lists recent calls, newest first", async () => {
    const page = await (await fetch(`${gw.url}/`)).text();
    const calls = page.slice(page.indexOf('<table id="calls">'));
    const order = [...calls.matchAll(/<td data-label="Tool" class="name">(echo__\w+)<\/td>/g)].map((
      m,
    ) => m[1]);
    assert.deepEqual(order.slice(0, 3), ["echo__fail", "echo__echo", "echo__echo"]);
  });

  it("logs one debug line per call, without argument values", () => {
    const lines = logs.lines.filter((l) => l.msg === "call");
    assert.deepEqual(lines.map((l) => [l.tool, l.server, l.outcome]), [
      ["echo__echo", "echo", "ok"],
      ["echo__echo", "echo", "ok"],
      ["echo__fail", "echo", "tool_error"],
    ]);
    assert.ok(!JSON.stringify(logs.lines).includes("hunter2"));
  });
});
