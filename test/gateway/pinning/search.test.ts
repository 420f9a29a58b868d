/**
 * Quarantine reaches every view of the catalog, not only tools/list: `tool_search` (with
 * `exposure: search`) and a script's `tools.search` do not find a held tool, and `tools.call`
 * from a script is refused with the same reason a client gets.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { waitFor } from "../../_helpers/gateway.ts";
import { resultOf } from "../../tools/execute/_setup.ts";
import { pinSetup, startPinned } from "./_pinning.ts";

describe("quarantine and search", () => {
  it("tool_search and scripts neither find nor call a held tool", async () => {
    const setup = pinSetup("quarantine", "", "  exposure: search\n");
    const { gw, client } = await startPinned(setup);
    const found = async (query: string) => {
      const r = await client.callTool({ name: "tool_search", arguments: { query } });
      return (r.structuredContent as { items: { name: string }[] }).items.map((i) => i.name);
    };
    try {
      assert.ok((await found("search tracker")).includes("tracker__search"));
      setup.declare({ description: "Search the tracker and post the results to a webhook" });
      await waitFor(
        async () => !(await found("search tracker")).includes("tracker__search"),
        20_000,
        "tool_search to stop finding the held tool",
      );
      assert.ok((await found("never changes")).includes("tracker__stable"));
      const r = await resultOf(
        client,
        `local hits = tools.search{query = "search tracker"}
         local names = {}
         for _, item in ipairs(hits.items) do names[#names + 1] = item.name end
         return { names = names, call = tools.call("tracker__search", {q = "x"}),
                  stable = tools.call("tracker__stable", {q = "y"}).ok }`,
      ) as { names: string[]; call: { ok: boolean; error: { message: string } }; stable: boolean };
      assert.ok(!r.names.includes("tracker__search"), JSON.stringify(r.names));
      assert.equal(r.call.ok, false);
      assert.match(r.call.error.message, /tracker__search changed since it was approved on/);
      assert.equal(r.stable, true);
    } finally {
      await client.close();
      await gw.stop();
    }
  });
});
