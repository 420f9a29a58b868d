/**
 * `/status.json` and the status page it feeds: tool counts as clients see them, the reason of
 * every failed call (a call to a down server included), and macros with their source file.
 * Auth is off here (loopback): everything is open, as before admin scopes existed.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { StatusSnapshot } from "../../src/ops/mod.ts";
import { httpClient, nodeServer, type TestGateway, waitFor } from "../_helpers/gateway.ts";
import { startWithMacros } from "../tools/macros/_setup.ts";

const YAML = `
servers:
  echo: ${
  nodeServer(
    "echo.mjs",
    `tools: { allow: ["echo", "fail", "pid", "picture", "structured"], deny: ["picture"],
      overrides: { pid: { hidden: true }, structured: { discoverable: true } } }`,
  )
}
  crashy: ${nodeServer("crash-mid-call.mjs", "restart: { initialDelay: 60s }")}
scripting:
  tools:
    add:
      description: Add two numbers
      params: { a: { type: number }, b: { type: number } }
      lua: "return args.a + args.b"
`;

const HELLO = `mcp.tool {
  name = "hello",
  description = "Say hello",
  params = { who = "Whom to greet" },
  run = function(args) return "hello " .. args.who end,
}
`;

describe("/status.json", () => {
  let gw: TestGateway;
  let client: Client;
  let status: StatusSnapshot;
  before(async () => {
    gw = await startWithMacros(YAML, { "macros/hello.lua": HELLO });
    client = await httpClient(gw.url);
    await client.callTool({ name: "echo__echo", arguments: {} });
    await client.callTool({ name: "echo__fail", arguments: {} });
    await client.callTool({ name: "crashy__boom", arguments: {} }).catch(() => {});
    await waitFor(() => gw.running.gateway.pool.get("crashy")!.state === "down", 10_000);
    await client.callTool({ name: "crashy__work", arguments: {} });
    const res = await fetch(`${gw.url}/status.json`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get("content-type") ?? "", /^application\/json/);
    status = await res.json() as StatusSnapshot;
  });
  after(async () => {
    await client?.close();
    await gw?.stop();
  });

  it("counts the tools clients see per server, beside what the upstream lists", () => {
    const echo = status.upstreams.find((u) => u.name === "echo")!;
    // allowed: echo, fail, pid, picture, structured; picture denied; pid hidden.
    assert.equal(echo.toolsExposed, 3);
    assert.equal(echo.toolsUpstream, 9);
    assert.equal(echo.state, "up");
  });

  it("gives the reason of every failed call, a call to a down server included", () => {
    const [work, boom, fail, ok] = status.calls;
    assert.equal(work!.tool, "crashy__work");
    assert.equal(work!.outcome, "tool_error");
    assert.match(work!.error ?? "", /crashy.*down/);
    assert.ok((boom!.error ?? "").length > 0, JSON.stringify(boom));
    assert.equal(fail!.tool, "echo__fail");
    assert.equal(fail!.error, "this tool always fails");
    assert.equal(ok!.outcome, "ok");
    assert.equal(ok!.error, null);
    const crashy = status.upstreams.find((u) => u.name === "crashy")!;
    assert.equal(crashy.state, "down");
    assert.ok((crashy.lastError ?? "").length > 0);
  });

  it("lists macros with the file or config entry that defines them", () => {
    const byName = Object.fromEntries(status.macros.map((m) => [m.name, m.source]));
    assert.deepEqual(byName, {
      add: "gateway.yaml scripting.tools.add",
      hello: "macros/hello.lua",
    });
  });

  it("renders the same data on the status page", async () => {
    const page = await (await fetch(`${gw.url}/`)).text();
    assert.match(page, /<tr data-server="echo">[\s\S]*?<td data-label="Tools"[^>]*>3 of \d+<\/td>/);
    assert.match(page, /<tr data-macro="hello">[\s\S]*?macros\/hello\.lua/);
    const calls = page.slice(page.indexOf('<table id="calls">'));
    assert.match(calls, /crashy__work[\s\S]*?class="err">[^<]*crashy[^<]*down/);
  });
});
