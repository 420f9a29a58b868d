/**
 * Resources through the gateway, over streamable HTTP and stdio: aggregated lists with every
 * upstream page read, URIs kept or rewritten by the collision rule, reads routed by URI (listed,
 * rewritten, or expanded from a template), and subscriptions delivered only to subscribers.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import {
  type Resource,
  type ResourceTemplate,
  ResourceUpdatedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import {
  EVERYTHING,
  type Harness,
  HARNESSES,
  httpHarness,
  nodeServer,
  record,
  textOf,
  waitFor,
} from "./_helpers.ts";

const paged = (name: string) =>
  nodeServer("paged.mjs", `env: { PAGED_NAME: ${name}, PAGED_RESOURCES: "120", PAGED_PAGE: "50" }`);
const YAML = `
servers:
  a: ${paged("a")}
  b: ${paged("b")}
  everything: ${EVERYTHING}
  changing: ${nodeServer("changing.mjs")}
`;

async function allResources(client: Client): Promise<Resource[]> {
  const out: Resource[] = [];
  let cursor: string | undefined;
  for (let i = 0; i < 50; i++) {
    const r = await client.listResources(cursor ? { cursor } : undefined);
    out.push(...r.resources);
    if (!(cursor = r.nextCursor)) return out;
  }
  throw new Error("too many pages");
}

async function allTemplates(client: Client): Promise<ResourceTemplate[]> {
  const out: ResourceTemplate[] = [];
  let cursor: string | undefined;
  for (let i = 0; i < 50; i++) {
    const r = await client.listResourceTemplates(cursor ? { cursor } : undefined);
    out.push(...r.resourceTemplates);
    if (!(cursor = r.nextCursor)) return out;
  }
  throw new Error("too many pages");
}

const readText = async (client: Client, uri: string) => {
  const r = await client.readResource({ uri });
  return { uri: r.contents[0]!.uri, text: (r.contents[0] as { text?: string }).text ?? "" };
};

for (const { kind, open } of HARNESSES) {
  describe(`resources over ${kind}`, () => {
    let h: Harness;
    let client: Client;
    before(async () => {
      h = await open(YAML);
      client = (await h.connect()).client;
    });
    after(async () => await h?.close());

    it("lists the resources of every upstream with every upstream page read", async () => {
      const uris = (await allResources(client)).map((r) => r.uri);
      assert.equal(uris.filter((u) => u.startsWith("paged://item/")).length, 120);
      assert.equal(uris.filter((u) => u.startsWith("mcpgw://b/")).length, 120);
      for (const u of ["paged://a/own", "paged://b/own", "changing://base"]) {
        assert.ok(uris.includes(u), u);
      }
      assert.ok(uris.some((u) => u.startsWith("demo://resource/static/document/")));
      assert.equal(new Set(uris).size, uris.length);
    });

    it("keeps a colliding URI for the first server and rewrites it for later ones", async () => {
      const uris = (await allResources(client)).map((r) => r.uri);
      assert.ok(uris.includes("paged://item/0001"));
      assert.ok(uris.includes(`mcpgw://b/${encodeURIComponent("paged://item/0001")}`));
      assert.ok(!uris.some((u) => u.startsWith("mcpgw://a/")));
    });

    it("reads a resource from the server that offers it", async () => {
      assert.deepEqual(await readText(client, "paged://item/0001"), {
        uri: "paged://item/0001",
        text: "a paged://item/0001",
      });
      assert.equal((await readText(client, "paged://b/own")).text, "b paged://b/own");
      const rewritten = `mcpgw://b/${encodeURIComponent("paged://item/0001")}`;
      assert.deepEqual(await readText(client, rewritten), {
        uri: rewritten,
        text: "b paged://item/0001",
      });
    });

    it("lists templates of every upstream, rewriting colliding ones with expressions kept", async () => {
      const templates = (await allTemplates(client)).map((t) => t.uriTemplate);
      assert.ok(templates.includes("paged://item/{id}/detail"));
      assert.ok(templates.includes("mcpgw://b/paged%3A%2F%2Fitem%2F{id}%2Fdetail"));
      assert.ok(templates.includes("demo://resource/dynamic/text/{resourceId}"));
      assert.equal(templates.filter((t) => t.startsWith("paged://b/t")).length, 12);
    });

    it("routes a URI expanded from a template to the template's server", async () => {
      assert.equal(
        (await readText(client, "paged://item/7/detail")).text,
        "a paged://item/7/detail",
      );
      assert.equal(
        (await readText(client, "mcpgw://b/paged%3A%2F%2Fitem%2F7%2Fdetail")).text,
        "b paged://item/7/detail",
      );
      assert.match((await readText(client, "demo://resource/dynamic/text/3")).text, /Resource 3/);
    });

    it("answers a URI no server offers with a clear error", async () => {
      await assert.rejects(
        client.readResource({ uri: "nowhere://x" }),
        /no server offers resource/,
      );
    });

    it("delivers the everything server's updates of a subscribed resource", async () => {
      const updates = record(client, ResourceUpdatedNotificationSchema);
      const uri = "demo://resource/dynamic/text/1";
      await client.subscribeResource({ uri });
      await client.callTool({ name: "everything__toggle-subscriber-updates", arguments: {} });
      try {
        await waitFor(() => updates.some((u) => u.params?.uri === uri), 15_000, "an update");
      } finally {
        await client.callTool({ name: "everything__toggle-subscriber-updates", arguments: {} });
        await client.unsubscribeResource({ uri });
      }
    });

    it("subscribes upstream once and unsubscribes when the last subscriber leaves", async () => {
      const subs = async () =>
        textOf(await client.callTool({ name: "changing__subscriptions", arguments: {} }));
      await client.subscribeResource({ uri: "changing://base" });
      assert.equal(await subs(), '["changing://base"]');
      await client.unsubscribeResource({ uri: "changing://base" });
      assert.equal(await subs(), "[]");
    });
  });
}

describe("resource subscriptions with two sessions on one HTTP gateway", () => {
  let h: Harness;
  before(async () => {
    h = await httpHarness(YAML);
  });
  after(async () => await h?.close());

  it("delivers resources/updated only to the sessions subscribed to the URI", async () => {
    const [a, b] = [(await h.connect()).client, (await h.connect()).client];
    const seenA = record(a, ResourceUpdatedNotificationSchema);
    const seenB = record(b, ResourceUpdatedNotificationSchema);
    await a.subscribeResource({ uri: "changing://base" });
    await b.callTool({ name: "changing__touch", arguments: { uri: "changing://base" } });
    await b.callTool({ name: "changing__touch", arguments: { uri: "changing://other" } });
    await waitFor(() => seenA.length > 0, 10_000, "the update");
    // A marker both sessions get proves B would have seen an update by now.
    await b.subscribeResource({ uri: "changing://marker" });
    await a.subscribeResource({ uri: "changing://marker" });
    await a.callTool({ name: "changing__touch", arguments: { uri: "changing://marker" } });
    await waitFor(() => seenB.length > 0 && seenA.length > 1, 10_000, "the marker");
    assert.deepEqual(seenA.map((n) => n.params?.uri), ["changing://base", "changing://marker"]);
    assert.deepEqual(seenB.map((n) => n.params?.uri), ["changing://marker"]);
  });

  it("keeps the upstream subscription while another session still holds it", async () => {
    const [a, b] = [(await h.connect()).client, (await h.connect()).client];
    const subs = async () =>
      JSON.parse(textOf(await a.callTool({ name: "changing__subscriptions", arguments: {} })));
    await a.subscribeResource({ uri: "changing://shared" });
    await b.subscribeResource({ uri: "changing://shared" });
    await a.unsubscribeResource({ uri: "changing://shared" });
    assert.ok((await subs()).includes("changing://shared"));
    await b.unsubscribeResource({ uri: "changing://shared" });
    assert.ok(!(await subs()).includes("changing://shared"));
  });
});
