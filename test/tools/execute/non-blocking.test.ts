/**
 * A runaway script never blocks the gateway: while one agent's `execute` spins, allocates without
 * bound or runs a catastrophic pattern, another client's calls keep being answered, and the
 * script ends with an error naming the limit it hit.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import {
  httpClient,
  nodeServer,
  startTestGateway,
  type TestGateway,
  textOf,
} from "../../_helpers/gateway.ts";

const RUNAWAYS: [string, string, RegExp][] = [
  ["spins forever", "while true do end", /time limit of 2s/],
  [
    "allocates without bound",
    "local t = {} while true do t[#t + 1] = string.rep('x', 65536) .. #t end",
    /memory limit of 8MiB/,
  ],
  [
    "runs a catastrophic pattern",
    "return string.rep('a', 3000):find(string.rep('.-', 8) .. 'b')",
    /time limit of 2s/,
  ],
];

describe("runaway scripts and other clients", () => {
  let gw: TestGateway;
  let agent: Client;
  let other: Client;
  before(async () => {
    gw = await startTestGateway(
      `servers:\n  echo: ${
        nodeServer("echo.mjs")
      }\nscripting:\n  limits: { timeout: 2s, memory: 8MiB }\n`,
    );
    [agent, other] = await Promise.all([httpClient(gw.url), httpClient(gw.url)]);
  });
  after(async () => {
    await agent?.close();
    await other?.close();
    await gw?.stop();
  });

  for (const [what, code, limit] of RUNAWAYS) {
    it(`a script that ${what} ends with its limit while another client is served`, async () => {
      const started = Date.now();
      const script = agent.callTool({ name: "execute", arguments: { code } });
      const latencies: number[] = [];
      // Sample the other client while the script runs (bounded: at most 40 calls).
      for (let i = 0; i < 40 && Date.now() - started < 1500; i++) {
        const t0 = Date.now();
        const r = await other.callTool({ name: "echo__echo", arguments: { i } });
        latencies.push(Date.now() - t0);
        assert.deepEqual(JSON.parse(textOf(r)), { i });
        await new Promise((r) => setTimeout(r, 20));
      }
      const result = await script;
      assert.equal(result.isError, true);
      assert.match(textOf(result), limit);
      assert.ok(
        latencies.length >= 5,
        `only ${latencies.length} calls answered while the script ran`,
      );
      // Generous: a blocked event loop would hold every call for the whole 2 s limit.
      assert.ok(Math.max(...latencies) < 1000, `slowest call took ${Math.max(...latencies)}ms`);
    });
  }
});
