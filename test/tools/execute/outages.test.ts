import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { nodeServer, useGateway } from "../../_helpers/gateway.ts";
import { execute, resultOf } from "./_setup.ts";

// Long upstream timeout: a failure must be reported because the connection died, not because
// the call ran out of time.
const YAML = `
servers:
  dies: ${nodeServer("dies-mid-call.mjs", "timeout: 60s, restart: { initialDelay: 300ms }")}
scripting:
  execute: true
`;

/** Calls `dies__<tool>` from a script and answers the call's error and the trace entry. */
async function dieDuringCall(client: Client, tool: string) {
  const started = Date.now();
  const r = await execute(
    client,
    `local r = tools.call("dies__${tool}", {})
     return { ok = r.ok, error = r.error }`,
  );
  assert.equal(r.isError, false, r.text);
  return {
    ms: Date.now() - started,
    result: r.structured.result as { ok: boolean; error: { code: string; message: string } },
    entry: r.structured.calls[0]!,
  };
}

describe("execute: an upstream dying mid-call reaches the script as upstream_error", () => {
  let client: Client;
  useGateway(YAML, (_g, c) => {
    client = c;
  });

  it("SIGKILLed during tools.call: upstream_error, at once", async () => {
    const { ms, result, entry } = await dieDuringCall(client, "kill");
    assert.equal(result.ok, false);
    assert.equal(result.error.code, "upstream_error");
    assert.equal(entry.error, "upstream_error");
    assert.ok(ms < 10_000, `answered after ${ms}ms`);
  });

  it("closed its stdout and stdin during tools.call (a dead pipe): upstream_error", async () => {
    // The server restarts between the tests; wait until it answers again.
    for (let i = 0; i < 100; i++) {
      const r = await resultOf(client, `return tools.call("dies__ok", {}).ok`);
      if (r === true) break;
      await new Promise((res) => setTimeout(res, 100));
    }
    const { ms, result, entry } = await dieDuringCall(client, "close");
    assert.equal(result.ok, false);
    assert.equal(result.error.code, "upstream_error");
    assert.equal(entry.error, "upstream_error");
    assert.ok(ms < 10_000, `answered after ${ms}ms`);
  });

  it("a call to the restarting server is upstream_error too, and mcp.call reports is_error", async () => {
    const r = await resultOf(
      client,
      `local first = tools.call("dies__kill", {})
       local again = task.await(mcp.call("dies__ok", {}))
       return { first.error.code, again.is_error }`,
    ) as [string, boolean];
    assert.equal(r[0], "upstream_error");
    assert.equal(r[1], true);
  });
});
