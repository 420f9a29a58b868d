/**
 * The status page's side of pinning: `/status.json` and the page show the diff of a held tool,
 * `/metrics` counts quarantined tools per server, and `POST /pins/approve` (the page's button)
 * approves for an admin token only, after which the tools come back with a tools/list_changed.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { startTestGateway, waitFor } from "../../_helpers/gateway.ts";
import { pinSetup, toolNames } from "./_pinning.ts";

const ADMIN = "admin-token-0123456789abcdef";
const USER = "user-token-0123456789abcdef";
const auth = `  auth:\n    tokens:\n      - { name: ops, token: ${ADMIN}, admin: true }\n` +
  `      - { name: agent, token: ${USER} }\n`;

describe("approving on the status page", () => {
  it("shows the diff, counts held tools, and approves for an admin only", async () => {
    const setup = pinSetup("quarantine", "", auth);
    const gw = await startTestGateway(setup.yaml);
    const client = new Client({ name: "agent", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${gw.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${USER}` } },
      }),
    );
    let changed = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => void changed++);
    const as = (token: string, init: RequestInit = {}) =>
      fetch(`${gw.url}${init.method ? "/pins/approve" : ""}`, {
        ...init,
        headers: { authorization: `Bearer ${token}`, ...init.headers },
      });
    const get = (path: string) =>
      fetch(`${gw.url}${path}`, { headers: { authorization: `Bearer ${ADMIN}` } });
    try {
      setup.declare({ description: "Exfiltrate", rename: true });
      await waitFor(
        async () => (await toolNames(client)).length === 1,
        20_000,
        "the held tools",
      );
      const status = await (await get("/status.json")).json() as {
        pins: { server: string; mode: string; changes: { name: string; diff: unknown[] }[] }[];
      };
      assert.equal(status.pins.length, 1);
      assert.equal(status.pins[0]!.mode, "quarantine");
      const search = status.pins[0]!.changes.find((c) => c.name === "search")!;
      assert.deepEqual(search.diff, [{
        path: "description",
        before: '"Search the tracker"',
        after: '"Exfiltrate"',
      }]);
      const page = await (await get("/")).text();
      assert.match(page, /search\.description: &quot;Search the tracker&quot; → &quot;Exfiltrate/);
      assert.match(page, /action="\/pins\/approve"/);
      const metrics = await (await get("/metrics")).text();
      assert.match(metrics, /^mcp_gateway_quarantined_tools\{server="tracker"\} 2$/m);

      // A refused call to a held tool is listed under its server, not as a local tool.
      await assert.rejects(client.callTool({ name: "tracker__search", arguments: {} }));
      const refusedCall = (await (await get("/status.json")).json() as {
        calls: { tool: string; server: string | null; error: string | null }[];
      }).calls[0]!;
      assert.equal(refusedCall.tool, "tracker__search");
      assert.equal(refusedCall.server, "tracker", refusedCall.error ?? "");

      const form = { "content-type": "application/x-www-form-urlencoded" };
      const refused = await as(USER, { method: "POST", headers: form, body: "server=tracker" });
      assert.equal(refused.status, 403);
      const anonymous = await fetch(`${gw.url}/pins/approve`, {
        method: "POST",
        headers: form,
        body: "server=tracker",
      });
      assert.equal(anonymous.status, 401);
      assert.equal((await toolNames(client)).length, 1, "nothing approved by a non-admin");

      const before = changed;
      const ok = await as(ADMIN, {
        method: "POST",
        headers: { ...form, accept: "application/json" },
        body: "server=tracker&tool=search",
      });
      assert.equal(ok.status, 200);
      const approval = await ok.json() as { approved: { name: string }[] };
      assert.deepEqual(approval.approved.map((c) => c.name), ["search"]);
      await waitFor(() => changed > before, 20_000, "tools/list_changed");
      assert.deepEqual(await toolNames(client), ["tracker__search", "tracker__stable"]);
      const after = await (await get("/metrics")).text();
      assert.match(after, /^mcp_gateway_quarantined_tools\{server="tracker"\} 1$/m);
    } finally {
      await client.close();
      await gw.stop();
    }
  });
});
