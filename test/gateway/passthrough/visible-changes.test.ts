/**
 * `list_changed` reaches only the sessions whose own list changed: with two tokens, a server
 * outside the narrow token's globs adding a tool, a prompt or a resource tells the wide
 * session and not the narrow one; a change inside the narrow token's globs tells both. The
 * same holds for 2026-07-28 clients' `subscriptions/listen` streams.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import {
  Client as V2Client,
  StreamableHTTPClientTransport as V2Transport,
} from "@modelcontextprotocol/client";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import {
  PromptListChangedNotificationSchema,
  ResourceListChangedNotificationSchema,
  ToolListChangedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { nodeServer, startTestGateway, type TestGateway, waitFor } from "../../_helpers/gateway.ts";
import { authedHttpClient } from "../../security/_http.ts";

const WIDE = "wide-token-0123456789abcdef";
const NARROW = "narrow-token-0123456789abcdef";

type Counts = { tools: number; prompts: number; resources: number };

function count(client: Client): Counts {
  const counts = { tools: 0, prompts: 0, resources: 0 };
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => void counts.tools++);
  client.setNotificationHandler(PromptListChangedNotificationSchema, () => void counts.prompts++);
  client.setNotificationHandler(
    ResourceListChangedNotificationSchema,
    () => void counts.resources++,
  );
  return counts;
}

/** A 2026-07-28 client of `token` listening for every list change, and what it heard. */
async function listening(url: string, token: string): Promise<{ client: V2Client; seen: Counts }> {
  const client = new V2Client({ name: "modern", version: "1.0.0" }, {
    versionNegotiation: { mode: { pin: "2026-07-28" } },
  });
  const seen = { tools: 0, prompts: 0, resources: 0 };
  for (const kind of ["tools", "prompts", "resources"] as const) {
    client.setNotificationHandler(
      `notifications/${kind}/list_changed` as never,
      (() => void seen[kind]++) as never,
    );
  }
  await client.connect(
    new V2Transport(new URL(`${url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  await client.listen({
    toolsListChanged: true,
    promptsListChanged: true,
    resourcesListChanged: true,
  });
  return { client, seen };
}

describe("list_changed per session", () => {
  let gw: TestGateway;
  let wide: Client;
  let narrow: Client;
  let seenWide: Counts;
  let seenNarrow: Counts;
  let modernWide: { client: V2Client; seen: Counts };
  let modernNarrow: { client: V2Client; seen: Counts };
  before(async () => {
    // `hidden` is outside the narrow token's globs; `shared` is inside them.
    gw = await startTestGateway(`
gateway:
  auth:
    tokens:
      - { name: wide, token: "${WIDE}" }
      - { name: narrow, token: "${NARROW}", tools: ["shared__*"] }
servers:
  hidden: ${nodeServer("changing.mjs")}
  shared: ${nodeServer("changing.mjs")}
`);
    wide = await authedHttpClient(gw.url, WIDE);
    narrow = await authedHttpClient(gw.url, NARROW);
    seenWide = count(wide);
    seenNarrow = count(narrow);
    modernWide = await listening(gw.url, WIDE);
    modernNarrow = await listening(gw.url, NARROW);
  });
  after(async () => {
    await modernWide?.client.close().catch(() => {});
    await modernNarrow?.client.close().catch(() => {});
    await wide?.close();
    await narrow?.close();
    await gw?.stop();
  });

  it("a change outside a token's globs tells only the sessions that see it", async () => {
    for (const what of ["tool", "prompt", "resource"] as const) {
      await wide.callTool({ name: `hidden__add_${what}`, arguments: {} });
    }
    for (const seen of [seenWide, modernWide.seen]) {
      await waitFor(
        () => seen.tools >= 1 && seen.prompts >= 1 && seen.resources >= 1,
        10_000,
        "the wide token's list_changed",
      );
    }
    // Then a change both see: once it reached the narrow session, an earlier one would have.
    await wide.callTool({ name: "shared__add_tool", arguments: {} });
    await waitFor(() => seenNarrow.tools >= 1, 10_000, "the narrow session's tools/list_changed");
    await waitFor(() => seenWide.tools >= 2, 10_000, "the wide session's second one");
    await waitFor(() => modernNarrow.seen.tools >= 1, 10_000, "the narrow stream's list_changed");
    await waitFor(() => modernWide.seen.tools >= 2, 10_000, "the wide stream's second one");
    assert.deepEqual(seenNarrow, { tools: 1, prompts: 0, resources: 0 });
    assert.deepEqual(modernNarrow.seen, { tools: 1, prompts: 0, resources: 0 });
    const names = (await narrow.listTools()).tools.map((t) => t.name);
    assert.ok(names.includes("shared__added_13"), names.join(","));
    assert.ok(!names.some((n) => n.startsWith("hidden__")), names.join(","));
  });
});
