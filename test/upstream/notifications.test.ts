/**
 * What an upstream tells beside its answers reaches the core as plain callbacks (`listenTo`):
 * each notification a real SDK server sends arrives at its own callback with its params, one
 * listened to without a callback is dropped, and a notification whose params fail the protocol's
 * schema never reaches a callback.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { listenTo } from "../../src/upstream/notifications.ts";

/** A connected SDK server and client pair. */
async function pair(): Promise<{ server: Server; client: Client }> {
  const server = new Server({ name: "s", version: "1" }, {
    capabilities: {
      logging: {},
      tools: { listChanged: true },
      prompts: { listChanged: true },
      resources: { subscribe: true, listChanged: true },
    },
  });
  const client = new Client({ name: "c", version: "1" });
  const [a, b] = InMemoryTransport.createLinkedPair();
  await Promise.all([server.connect(a), client.connect(b)]);
  return { server, client };
}

/** Waits (bounded) until `done()` holds. */
async function until(done: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !done(); i++) await new Promise((r) => setTimeout(r, 5));
}

describe("an upstream's notifications as plain callbacks", () => {
  it("each notification reaches its own callback with its params", async () => {
    const { server, client } = await pair();
    const seen: string[] = [];
    listenTo(client, {
      log: (p) => seen.push(`log ${p.level} ${String(p.data)}`),
      resourceUpdated: (p) => seen.push(`updated ${p.uri}`),
      listChanged: () => seen.push("list"),
      resourceListChanged: () => seen.push("resources"),
    });
    await server.sendLoggingMessage({ level: "warning", data: "hot" });
    await server.sendResourceUpdated({ uri: "file:///a" });
    await server.sendToolListChanged();
    await server.sendPromptListChanged();
    await server.sendResourceListChanged();
    await until(() => seen.length === 5);
    assert.deepEqual(seen, [
      "log warning hot",
      "updated file:///a",
      "list",
      "list",
      "resources",
    ]);
    await client.close();
  });

  it("drops what no callback listens to, and params the schema refuses", async () => {
    const { server, client } = await pair();
    const seen: string[] = [];
    listenTo(client, { resourceUpdated: (p) => seen.push(p.uri) });
    await server.sendToolListChanged();
    // A resource update without its `uri` is not a resource update.
    await server.notification({ method: "notifications/resources/updated", params: {} });
    await server.sendResourceUpdated({ uri: "file:///b" });
    await until(() => seen.length > 0);
    assert.deepEqual(seen, ["file:///b"]);
    await client.close();
  });
});
