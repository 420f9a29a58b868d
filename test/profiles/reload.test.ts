/**
 * Reload changes profiles live: a narrowed profile's open sessions are re-scoped and told with
 * `list_changed` (tools, and prompts when a server left it), its 2026-07-28 requests see the new
 * set at once; a removed profile's sessions are closed; a new profile is served; a token whose
 * profiles no longer include its session's is cut off; `/mcp` sessions hear nothing.
 */
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Client as ModernClient } from "@modelcontextprotocol/client";
import {
  type Notification,
  PromptListChangedNotificationSchema,
  ToolListChangedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { startTestGateway, type TestGateway, waitFor } from "../_helpers/gateway.ts";
import { CODER, config, legacyClient, modernClient, namesOf, sseClient } from "./_profiles.ts";

/** `coding` loses the note tool (and so the prompts server); `support` goes; `ops` comes. */
const CHANGED = `
  coding:
    servers: [alpha]
    execute: true
  ops:
    tools: ["beta__*"]
    exposure: search
`;

function recordListChanged(client: Client): string[] {
  const seen: string[] = [];
  const push = (n: Notification) => void seen.push(n.method);
  client.setNotificationHandler(ToolListChangedNotificationSchema, push);
  client.setNotificationHandler(PromptListChangedNotificationSchema, push);
  return seen;
}

describe("a reload that changes profiles", () => {
  let gw: TestGateway;
  let whole: Client;
  let coding: Client;
  let support: Client;
  let supportSse: Client;
  let coder: Client;
  let modern: ModernClient;
  let seen: { whole: string[]; coding: string[] };
  before(async () => {
    gw = await startTestGateway(config());
    whole = await legacyClient(gw.url, "/mcp");
    coding = await legacyClient(gw.url, "/mcp/coding");
    support = await legacyClient(gw.url, "/mcp/support");
    supportSse = await sseClient(gw.url, "/sse/support");
    coder = await legacyClient(gw.url, "/mcp/coding", CODER);
    modern = await modernClient(gw.url, "/mcp/coding");
    seen = { whole: recordListChanged(whole), coding: recordListChanged(coding) };
  });
  after(async () => {
    await Promise.all(
      [whole, coding, support, supportSse, coder, modern].map((c) => c?.close().catch(() => {})),
    );
    await gw?.stop();
  });

  it("serves the old profiles before the reload", async () => {
    assert.ok(namesOf(await coding.listTools()).includes("prompts__note"));
    assert.ok(namesOf(await modern.listTools()).includes("prompts__note"));
    assert.equal((await coding.listPrompts()).prompts.length, 2);
    assert.deepEqual(namesOf(await support.listTools()), ["tool_describe", "tool_search"]);
    assert.deepEqual(namesOf(await supportSse.listTools()), ["tool_describe", "tool_search"]);
    assert.ok(namesOf(await coder.listTools()).includes("alpha__echo"));
  });

  it("re-scopes a narrowed profile's session with tools and prompts list_changed", async () => {
    writeFileSync(join(gw.dir, "gateway.yaml"), config(CHANGED, "[ops]"));
    assert.equal(await gw.running.reload("test"), true);
    await waitFor(() => seen.coding.length >= 2, 10_000, "list_changed on /mcp/coding");
    assert.deepEqual([...new Set(seen.coding)].sort(), [
      "notifications/prompts/list_changed",
      "notifications/tools/list_changed",
    ]);
    const names = namesOf(await coding.listTools());
    assert.ok(!names.includes("prompts__note") && names.includes("alpha__echo"), names.join(","));
    assert.deepEqual((await coding.listPrompts()).prompts, []);
    await assert.rejects(coding.callTool({ name: "prompts__note", arguments: {} }), /unknown tool/);
  });

  it("shows the new set to 2026-07-28 requests at once", async () => {
    const names = namesOf(await modern.listTools());
    assert.ok(!names.includes("prompts__note") && names.includes("alpha__echo"), names.join(","));
  });

  it("closes the sessions of the removed profile, over streamable HTTP and SSE", async () => {
    await assert.rejects(support.listTools());
    await assert.rejects(supportSse.listTools());
  });

  it("closes the session of a token no longer allowed its profile, and serves the new one", async () => {
    await assert.rejects(coder.listTools());
    const ops = await legacyClient(gw.url, "/mcp/ops", CODER);
    try {
      assert.deepEqual(namesOf(await ops.listTools()), ["tool_describe", "tool_search"]);
      const found = await ops.callTool({ name: "tool_search", arguments: { query: "echo" } });
      const items = (found.structuredContent as { items: { name: string }[] }).items;
      assert.deepEqual(items.map((i) => i.name), ["beta__echo"]);
    } finally {
      await ops.close();
    }
  });

  // `ops` keeps the meta-tools in being: what /mcp lists is untouched by the reload.
  it("tells the whole catalog's session nothing", async () => {
    await new Promise((r) => setTimeout(r, 200));
    assert.deepEqual(seen.whole, []);
  });
});
