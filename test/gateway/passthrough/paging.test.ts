/**
 * Pagination through the gateway, over streamable HTTP and stdio: every upstream page is read
 * (1,000 tools in pages of 50, 1,200 resources, 120 prompts) and the gateway pages its own lists.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { allToolNames, type Harness, HARNESSES, nodeServer } from "./_helpers.ts";

const YAML = `
servers:
  big: ${
  nodeServer(
    "paged.mjs",
    `env: { PAGED_NAME: big, PAGED_TOOLS: "1000", PAGED_RESOURCES: "1200", PAGED_PROMPTS: "120", PAGED_PAGE: "50" }`,
  )
}
  echo: ${nodeServer("echo.mjs", `env: { ECHO_EXTRA_TOOLS: "100", ECHO_PAGE: "7" }`)}
`;

for (const { kind, open } of HARNESSES) {
  describe(`pagination over ${kind}`, () => {
    let h: Harness;
    let client: Client;
    before(async () => {
      h = await open(YAML);
      client = (await h.connect()).client;
    });
    after(async () => await h?.close());

    it("lists all 1,000 tools of an upstream that pages by 50", async () => {
      const names = await allToolNames(client);
      const big = names.filter((n) => n.startsWith("big__tool_"));
      assert.equal(big.length, 1000);
      assert.equal(new Set(big).size, 1000);
      assert.ok(big.includes("big__tool_0999"));
      assert.equal(names.filter((n) => n.startsWith("echo__extra_")).length, 100);
    });

    it("pages its own tool list when it holds more than one page", async () => {
      const first = await client.listTools();
      assert.ok(first.nextCursor, "a next cursor");
      assert.equal(first.tools.length, 1000);
    });

    it("lists every resource page and pages the result", async () => {
      const first = await client.listResources();
      assert.ok(first.nextCursor);
      const second = await client.listResources({ cursor: first.nextCursor });
      assert.equal(second.nextCursor, undefined);
      const uris = [...first.resources, ...second.resources].map((r) => r.uri);
      assert.equal(uris.length, 1201);
      assert.ok(uris.includes("paged://item/1199"));
    });

    it("lists every prompt page", async () => {
      const names = (await client.listPrompts()).prompts.map((p) => p.name);
      assert.equal(names.filter((n) => n.startsWith("big__prompt_")).length, 120);
    });

    it("rejects a cursor it did not issue", async () => {
      await assert.rejects(client.listTools({ cursor: "not-a-cursor" }), /invalid cursor/);
    });
  });
}
