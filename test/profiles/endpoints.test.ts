/**
 * Profiles: each `/mcp/<profile>` serves exactly its tools, on a 2025 session (SDK 1.x) and on
 * 2026-07-28 stateless requests (an SDK v2 client pinned to it), and `/sse/<profile>` too;
 * search and `execute`'s `tools.search` find only its tools; a call outside it is an unknown
 * tool; prompts follow its servers; `/mcp` stays the whole catalog.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Client as ModernClient } from "@modelcontextprotocol/client";
import { startTestGateway, type TestGateway, textOf } from "../_helpers/gateway.ts";
import { config, FULL, legacyClient, modernClient, namesOf, sseClient } from "./_profiles.ts";

describe("profile endpoints", () => {
  let gw: TestGateway;
  let whole: Client;
  let coding: Client;
  let support: Client;
  let modernCoding: ModernClient;
  let modernSupport: ModernClient;
  let wholeNames: string[];
  let codingNames: string[];
  before(async () => {
    gw = await startTestGateway(config());
    whole = await legacyClient(gw.url, "/mcp");
    coding = await legacyClient(gw.url, "/mcp/coding");
    support = await legacyClient(gw.url, "/mcp/support");
    modernCoding = await modernClient(gw.url, "/mcp/coding");
    modernSupport = await modernClient(gw.url, "/mcp/support");
    wholeNames = namesOf(await whole.listTools());
    codingNames = wholeNames.filter((n) => n.startsWith("alpha__") || n === "prompts__note");
    codingNames = [...codingNames, "execute"].sort();
  });
  after(async () => {
    await Promise.all(
      [whole, coding, support, modernCoding, modernSupport].map((c) => c?.close().catch(() => {})),
    );
    await gw?.stop();
  });

  it("keeps /mcp the whole catalog, without the meta-tools only a profile needs", () => {
    assert.ok(wholeNames.includes("alpha__echo") && wholeNames.includes("beta__echo"));
    assert.ok(wholeNames.includes("prompts__note") && wholeNames.includes("execute"));
    assert.ok(!wholeNames.includes("tool_search"), wholeNames.join(","));
  });

  it("lists exactly the profile's tools to an SDK 1.x session", async () => {
    assert.ok(codingNames.length > 3, codingNames.join(","));
    assert.deepEqual(namesOf(await coding.listTools()), codingNames);
    // exposure: search, and no execute (no glob matches it).
    assert.deepEqual(namesOf(await support.listTools()), ["tool_describe", "tool_search"]);
  });

  it("lists exactly the profile's tools to an SDK v2 client pinned to 2026-07-28", async () => {
    assert.deepEqual(namesOf(await modernCoding.listTools()), codingNames);
    assert.deepEqual(namesOf(await modernSupport.listTools()), ["tool_describe", "tool_search"]);
  });

  it("serves the profile on /sse/<profile> too", async () => {
    const sse = await sseClient(gw.url, "/sse/coding");
    try {
      assert.deepEqual(namesOf(await sse.listTools()), codingNames);
      await assert.rejects(
        sse.callTool({ name: "beta__echo", arguments: { text: "x" } }),
        /unknown tool "beta__echo"/,
      );
    } finally {
      await sse.close();
    }
  });

  it("tool_search finds only the profile's tools, on both eras", async () => {
    const search = async (client: Client | ModernClient) => {
      const r = await client.callTool({ name: "tool_search", arguments: { query: "echo" } });
      const items = (r.structuredContent as { items: { name: string }[] }).items;
      return items.map((i) => i.name).sort();
    };
    assert.deepEqual(await search(support), ["beta__echo"]);
    assert.deepEqual(await search(modernSupport), ["beta__echo"]);
    // The whole catalog's endpoint has no meta-tools here.
    await assert.rejects(
      whole.callTool({ name: "tool_search", arguments: { query: "echo" } }),
      /unknown tool "tool_search"/,
    );
  });

  it("execute's tools.search and tools.call see only the profile's tools", async () => {
    const code = `
      local found = tools.search{ query = "echo", limit = 50 }
      local names = {}
      for _, item in ipairs(found.items) do names[#names + 1] = item.name end
      local outside = tools.call("beta__echo", { text = "x" })
      local inside = tools.call("alpha__echo", { text = "in" })
      return { names = names, outside = outside.ok, code = outside.error and outside.error.code,
               inside = inside.ok, listed = #mcp.listTools() }`;
    for (const client of [coding, modernCoding]) {
      const r = await client.callTool({ name: "execute", arguments: { code } }, undefined, {
        timeout: 60_000,
      });
      assert.notEqual(r.isError, true, textOf(r));
      const out = (r.structuredContent as { result: Record<string, unknown> }).result;
      assert.deepEqual(out.names, ["alpha__echo"]);
      assert.equal(out.outside, false);
      assert.equal(out.code, "tool_not_found", JSON.stringify(out));
      assert.equal(out.inside, true);
      assert.equal(out.listed, codingNames.length - 1); // all but execute itself
    }
  });

  it("refuses a call outside the profile as an unknown tool, on both eras", async () => {
    await assert.rejects(
      coding.callTool({ name: "beta__echo", arguments: { text: "x" } }),
      /unknown tool "beta__echo"/,
    );
    await assert.rejects(
      modernCoding.callTool({ name: "beta__echo", arguments: { text: "x" } }),
      /unknown tool "beta__echo"/,
    );
    // Listed nowhere on support, but in its globs: callable by name (exposure: search).
    const r = await support.callTool({ name: "beta__echo", arguments: { text: "hi" } });
    assert.match(textOf(r), /hi/);
    await assert.rejects(
      support.callTool({ name: "execute", arguments: { code: "return 1" } }),
      /unknown tool "execute"/,
    );
  });

  it("lists the prompts of the profile's servers only", async () => {
    const prompts = (await coding.listPrompts()).prompts.map((p) => p.name).sort();
    assert.deepEqual(prompts, ["prompts__audit", "prompts__greet"]);
    assert.deepEqual((await support.listPrompts()).prompts, []);
    await assert.rejects(support.getPrompt({ name: "prompts__greet" }), /unknown prompt/);
    const modern = (await modernSupport.listPrompts()).prompts;
    assert.deepEqual(modern, []);
  });

  it("answers 404 for a profile the config does not have", async () => {
    const res = await fetch(`${gw.url}/mcp/nope`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${FULL}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
    });
    assert.equal(res.status, 404);
    assert.equal((await res.json()).error.message, `no profile "nope"`);
  });

  it("refuses a session of one endpoint on another", async () => {
    const sid = (coding.transport as { sessionId?: string }).sessionId!;
    const res = await fetch(`${gw.url}/mcp/support`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${FULL}`,
        "mcp-session-id": sid,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 9,
        method: "tools/call",
        params: { name: "alpha__echo", arguments: {} },
      }),
    });
    assert.equal(res.status, 404);
    await res.body?.cancel();
  });

  it("shows each profile's exposed counts in /status.json and counts its calls in /metrics", async () => {
    const headers = { authorization: `Bearer ${FULL}` };
    const status = await (await fetch(`${gw.url}/status.json`, { headers })).json() as {
      profiles: { name: string; toolsListed: number; toolsExposed: number; servers: string[] }[];
    };
    const byName = new Map(status.profiles.map((p) => [p.name, p]));
    assert.equal(byName.get("coding")?.toolsListed, codingNames.length);
    assert.deepEqual(byName.get("coding")?.servers, ["alpha", "prompts"]);
    assert.equal(byName.get("support")?.toolsListed, 2);
    assert.equal(byName.get("support")?.toolsExposed, 4); // two meta-tools, two beta tools
    const page = await (await fetch(`${gw.url}/`, { headers })).text();
    assert.match(page, /<tr data-profile="coding">[\s\S]*?\/mcp\/coding[\s\S]*?<\/tr>/);
    assert.match(page, /<tr data-profile="support">/);
    const metrics = await (await fetch(`${gw.url}/metrics`, { headers })).text();
    assert.match(
      metrics,
      /mcp_gateway_profile_tool_calls_total\{profile="support",outcome="ok"\} [1-9]/,
    );
    assert.match(
      metrics,
      /mcp_gateway_profile_tool_calls_total\{profile="coding",outcome="error"\} [1-9]/,
    );
    assert.doesNotMatch(metrics, /profile="nope"/);
  });
});
