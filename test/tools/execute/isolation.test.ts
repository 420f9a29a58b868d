/**
 * End to end through a gateway: script workers reuse their engines between runs, and one token's
 * `execute` script or macro cannot leave anything the next token's run can read. Token A's runs
 * are repeated so every worker of the pool has served one before token B probes each of them.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { nodeServer, startTestGateway, type TestGateway, textOf } from "../../_helpers/gateway.ts";
import { resultOf } from "./_setup.ts";

const TOKEN_A = "token-a-0123456789abcdef";
const TOKEN_B = "token-b-0123456789abcdef";

/** Lua that tries to leave state behind in every place a run can write. */
const LEAVE = `
SECRET = 'A'
setmetatable(_G, { __index = function(_, k) return 'A:' .. k end })
string.secret = 'A'
rawset(table, 'secret', 'A')
math.randomseed(7)
mcp.call = function() return 'A' end
LEFT = coroutine.create(function() coroutine.yield('A') end)
coroutine.resume(LEFT)
`;

/** Lua that looks for what LEAVE left; `seen` lists what it found. */
const PROBE = `
local seen = {}
if getmetatable(_G) ~= nil then seen[#seen + 1] = '_G metatable' end
if rawget(_G, 'SECRET') ~= nil or rawget(_G, 'LEFT') ~= nil then seen[#seen + 1] = 'globals' end
if rawget(string, 'secret') ~= nil or ('x').secret ~= nil then seen[#seen + 1] = 'string' end
if rawget(table, 'secret') ~= nil then seen[#seen + 1] = 'table' end
if type(mcp.call) ~= 'function' or mcp.call('echo__echo', {}) == 'A' then seen[#seen + 1] = 'mcp.call' end
`;

const YAML = `
gateway:
  auth:
    tokens:
      - { name: a, token: "${TOKEN_A}" }
      - { name: b, token: "${TOKEN_B}" }
servers:
  echo: ${nodeServer("echo.mjs")}
scripting:
  execute: true
  tools:
    leave_state:
      description: Tries to leave state for the next run
      lua: ${JSON.stringify(`${LEAVE}\nreturn 'left'`)}
    probe_state:
      description: Reports what an earlier run left
      lua: ${JSON.stringify(`${PROBE}\nreturn table.concat(seen, ',')`)}
`;

async function clientWith(base: string, token: string): Promise<Client> {
  const client = new Client({ name: "script-isolation", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  return client;
}

describe("script runs of one token leave nothing for the next token's runs", () => {
  let gw: TestGateway;
  let a: Client;
  let b: Client;
  before(async () => {
    gw = await startTestGateway(YAML);
    a = await clientWith(gw.url, TOKEN_A);
    b = await clientWith(gw.url, TOKEN_B);
  });
  after(async () => {
    await a?.close();
    await b?.close();
    await gw?.stop();
  });

  it("token A's execute scripts leave nothing token B's execute scripts can see", async () => {
    for (let i = 0; i < 6; i++) {
      assert.equal(await resultOf(a, `${LEAVE}\nreturn 'left'`), "left");
      assert.deepEqual(await resultOf(b, `${PROBE}\nreturn seen`), {});
    }
  });

  it("token A's macro leaves nothing token B's macro can see", async () => {
    for (let i = 0; i < 6; i++) {
      const left = await a.callTool({ name: "leave_state", arguments: {} });
      assert.equal(textOf(left), "left");
      const probe = await b.callTool({ name: "probe_state", arguments: {} });
      assert.equal(probe.isError, undefined);
      assert.equal(textOf(probe), "", `token B's macro saw: ${textOf(probe)}`);
    }
  });
});
