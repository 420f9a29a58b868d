import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { parseConfig } from "../../src/config/mod.ts";
import { Gateway } from "../../src/gateway/gateway.ts";
import { MetaTools } from "../../src/gateway/meta.ts";
import { LOCAL_CALLER } from "../../src/gateway/types.ts";
import { createLogger } from "../../src/shared/log.ts";
import { nodeServer, waitFor } from "../_helpers/gateway.ts";

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
