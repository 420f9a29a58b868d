/**
 * The upstream leg of a tool call (`src/gateway/upstream-call.ts`) through a real gateway and real
 * stdio servers: the result's resource links are named as the client knows them, an outage is an
 * `isError` result naming the server (or thrown, when the context asks), and the filters that
 * acted are told to the call's notes.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { parseConfig } from "../../src/config/mod.ts";
import { enterCall, Gateway, LOCAL_CALLER } from "../../src/gateway/mod.ts";
import type { ToolEntry } from "../../src/gateway/catalog.ts";
import { UpstreamCalls } from "../../src/gateway/upstream-call.ts";
import { createLogger } from "../../src/shared/log.ts";
import { nodeServer } from "../_helpers/gateway.ts";

const YAML = `servers:
  fx: ${nodeServer("echo.mjs")}
  charts: ${nodeServer("apps.mjs")}
  screened: ${nodeServer("echo.mjs", "filters: [secrets]")}
`;

describe("the upstream leg of a tool call", () => {
  let gateway: Gateway;
  let calls: UpstreamCalls;
  before(async () => {
    gateway = new Gateway(parseConfig(YAML), createLogger("test"));
    await gateway.start();
    calls = new UpstreamCalls(gateway);
  });
  after(() => gateway.stop());

  const entry = (name: string) => gateway.resolveTool(name, LOCAL_CALLER) as ToolEntry;
  const notes = () => ({ server: null, filters: [] as string[] });

  it("names a result's resource link as the client knows it", async () => {
    const result = await calls.call(
      entry("charts__show_chart"),
      {},
      enterCall(LOCAL_CALLER),
      notes(),
    );
    const link = result.content.find((c) => c.type === "resource_link") as { uri: string };
    assert.equal(link.uri, "ui://charts/charts/view.html");
  });

  it("answers a server that is gone as an isError result naming it, or throws it when asked", async () => {
    const gone = { ...entry("fx__echo"), server: "gone" } as ToolEntry;
    const result = await calls.call(gone, {}, enterCall(LOCAL_CALLER), notes());
    assert.equal(result.isError, true);
    assert.match(JSON.stringify(result.content), /gone/);
    const strict = { ...enterCall(LOCAL_CALLER), outagesThrow: true };
    await assert.rejects(calls.call(gone, {}, strict, notes()), /server "gone" is gone/);
  });

  it("tells the call's notes which filters acted on the result", async () => {
    const heard = notes();
    const secret = "AKIAIOSFODNN7EXAMPLE";
    const result = await calls.call(
      entry("screened__echo"),
      { text: `key ${secret}` },
      enterCall(LOCAL_CALLER),
      heard,
    );
    assert.doesNotMatch(JSON.stringify(result), new RegExp(secret));
    assert.deepEqual(heard.filters, ["secrets"]);
  });
});
