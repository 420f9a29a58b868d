/** A tool call's span names the profile endpoint it came to (`mcp.profile`; empty on `/mcp`). */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { nodeServer, startTestGateway, type TestGateway, waitFor } from "../_helpers/gateway.ts";
import { startReceiver } from "../_helpers/otlp.ts";
import { legacyClient } from "./_profiles.ts";

describe("profile traces", () => {
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let gw: TestGateway;
  before(async () => {
    receiver = await startReceiver();
    gw = await startTestGateway(`
gateway:
  telemetry: { otlp: "${receiver.url}", flush: 50ms }
servers:
  alpha: ${nodeServer("echo.mjs", "env: { ECHO_NAME: alpha }")}
profiles:
  coding: { servers: [alpha] }
`);
  });
  after(async () => {
    await gw?.stop();
    receiver?.close();
  });

  it("carries the profile on the tool span", async () => {
    for (const path of ["/mcp/coding", "/mcp"]) {
      const client = await legacyClient(gw.url, path);
      await client.callTool({ name: "alpha__echo", arguments: { text: path } });
      await client.close();
    }
    const spans = () => receiver.spans.filter((s) => s.name === "tools/call alpha__echo");
    await waitFor(() => spans().length >= 2, 10_000, "two tool spans");
    const profiles = spans().map((s) => s.attributes["mcp.profile"]).sort();
    assert.deepEqual(profiles, ["", "coding"]);
  });
});
