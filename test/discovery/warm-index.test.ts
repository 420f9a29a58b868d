import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { parseConfig } from "../../src/config/mod.ts";
import { Gateway } from "../../src/gateway/gateway.ts";
import { MetaTools } from "../../src/gateway/meta.ts";
import { LOCAL_CALLER } from "../../src/gateway/types.ts";
import { createLogger } from "../../src/shared/log.ts";
import { nodeServer, textOf, waitFor } from "../_helpers/gateway.ts";

describe("the search index is built off the request path", () => {
  let gateway: Gateway;
  let meta: MetaTools;
  before(async () => {
    const yaml = `gateway: { exposure: search }\nservers:\n  echo: ${nodeServer("echo.mjs")}\n`;
    gateway = new Gateway(parseConfig(yaml), createLogger("test"));
    meta = new MetaTools(gateway, () => true);
    gateway.addProvider(meta);
    await gateway.start();
  });
  after(() => gateway.stop());

  it("after the tool list changes, the index is ready before any search asks for it", async () => {
    await waitFor(() => meta.hasIndex(LOCAL_CALLER), 5000, "the background index");
    const found = meta.search(LOCAL_CALLER, { query: "echo" });
    assert.equal(found.items[0]?.name, "echo__echo");
  });

  it("a rebuild that leaves the tools as they were keeps the index", async () => {
    await waitFor(() => meta.hasIndex(LOCAL_CALLER), 5000, "the background index");
    const version = gateway.version;
    gateway.refreshLocalTools();
    assert.notEqual(gateway.version, version);
    assert.equal(meta.hasIndex(LOCAL_CALLER), true);
  });

  it("a narrower scope (a token's globs) is still built on demand", () => {
    const narrow = { ...LOCAL_CALLER, toolGlobs: ["echo__echo"] };
    assert.equal(meta.hasIndex(narrow), false);
    assert.deepEqual(meta.search(narrow, { query: "echo" }).items.map((i) => i.name), [
      "echo__echo",
    ]);
    assert.equal(meta.hasIndex(narrow), true);
  });
});

describe("a search index follows what its caller may find", () => {
  let gateway: Gateway;
  let meta: MetaTools;
  const narrow = { ...LOCAL_CALLER, toolGlobs: ["echo__*"] };
  const profiled = { ...LOCAL_CALLER, profile: "echoes" };
  const names = (caller: typeof LOCAL_CALLER, query: string) =>
    meta.search(caller, { query, limit: 100 }).items.map((i) => i.name);
  before(async () => {
    const yaml = `
gateway: { exposure: search }
profiles:
  echoes: { servers: [echo], exposure: search }
servers:
  echo: ${nodeServer("echo.mjs")}
  changing: ${nodeServer("changing.mjs")}
`;
    gateway = new Gateway(parseConfig(yaml), createLogger("test"));
    meta = new MetaTools(gateway, () => true);
    gateway.addProvider(meta);
    await gateway.start();
  });
  after(() => gateway.stop());

  it("a rebuild that leaves the catalog's entries as they were does not filter the catalog again", () => {
    assert.ok(names(LOCAL_CALLER, "echo").includes("echo__echo"));
    const visibleTools = gateway.visibleTools;
    let filtered = 0;
    gateway.visibleTools = (caller) => {
      filtered++;
      return visibleTools.call(gateway, caller);
    };
    try {
      gateway.refreshLocalTools();
      assert.ok(names(LOCAL_CALLER, "echo").includes("echo__echo"));
      assert.equal(filtered, 0);
    } finally {
      gateway.visibleTools = visibleTools;
    }
  });

  it("a tool a server adds is found by the next search, by the callers whose view holds it", async () => {
    for (const caller of [LOCAL_CALLER, narrow, profiled]) {
      assert.deepEqual(names(caller, "added on demand").filter((n) => n.includes("added")), []);
    }
    const made = await gateway.callTool("changing__add_tool", {}, { caller: LOCAL_CALLER });
    const added = `changing__${textOf(made)}`;
    await waitFor(() => gateway.catalog.toolsByName.has(added), 5000, "the added tool");
    assert.equal(names(LOCAL_CALLER, "added on demand")[0], added);
    // The narrow views' indexes were built before the change: they still hold none of it.
    for (const caller of [narrow, profiled]) {
      const found = names(caller, "added on demand");
      assert.ok(found.every((n) => n.startsWith("echo__")), found.join(", "));
      assert.throws(() => meta.describe(caller, added), /unknown tool/);
    }
    assert.equal(meta.describe(LOCAL_CALLER, added).name, added);
  });
});
