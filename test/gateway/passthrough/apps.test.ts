/**
 * MCP Apps through the gateway, on both protocol eras: two ext-apps servers serve the same
 * `ui://charts/view.html` with different HTML; each tool's view URI reads its own server's
 * HTML, every listed view is a `ui://` URI its tools point at, every other `_meta` passes byte
 * for byte, view-only tools are kept from the model yet callable, the upstreams are offered the
 * UI capability (unless `apps: off`), and a view's call by upstream name reaches its server —
 * within the token's scopes.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { LOCAL_CALLER } from "../../../src/gateway/mod.ts";
import { startTestGateway, type TestGateway, textOf } from "../../_helpers/gateway.ts";
import { stdioHarness } from "./_helpers.ts";
import {
  APPS_YAML,
  type AppsClient,
  appsServer,
  directClient,
  ERAS,
  FULL,
  NARROW,
  viewOf,
} from "./_apps.ts";

const MIME = "text/html;profile=mcp-app";

/** A tool's `_meta` with its view URIs set back to what the upstream gave. */
function upstreamMeta(tool: Tool, direct: Tool): string {
  const meta = { ...tool._meta } as Record<string, unknown>;
  const ui = meta.ui as Record<string, unknown> | undefined;
  if (ui?.resourceUri !== undefined) meta.ui = { ...ui, resourceUri: viewOf(direct) };
  if (meta["ui/resourceUri"] !== undefined) {
    meta["ui/resourceUri"] = direct._meta!["ui/resourceUri"];
  }
  return JSON.stringify(meta);
}

/** The refusal of a call, whether it throws or answers `isError`. */
async function refusal(client: AppsClient, params: Parameters<AppsClient["callTool"]>[0]) {
  try {
    const r = await client.callTool(params);
    assert.equal(r.isError, true, `expected a refusal, got ${textOf(r)}`);
    return textOf(r);
  } catch (err) {
    return String((err as Error).message);
  }
}

describe("MCP Apps pass-through", () => {
  let gw: TestGateway;
  const direct: Record<string, Client> = {};
  before(async () => {
    gw = await startTestGateway(APPS_YAML);
    direct.a = await directClient("a");
    direct.b = await directClient("b");
  });
  after(async () => {
    await Promise.all(Object.values(direct).map((c) => c.close()));
    await gw?.stop();
  });

  for (const { era, connect } of ERAS) {
    describe(era, () => {
      let client: AppsClient;
      let narrow: AppsClient;
      before(async () => {
        client = await connect(gw.url, FULL);
        narrow = await connect(gw.url, NARROW);
      });
      after(async () => {
        await client?.close();
        await narrow?.close();
      });

      it("each tool's view URI is a ui:// URI reading its own server's HTML", async () => {
        const { tools } = await client.listTools();
        for (const server of ["a", "b"]) {
          const tool = tools.find((t) => t.name === `${server}__show_chart`)!;
          assert.equal(viewOf(tool), `ui://${server}/charts/view.html`);
          assert.equal(tool._meta!["ui/resourceUri"], `ui://${server}/charts/view.html`);
          const legacy = tools.find((t) => t.name === `${server}__legacy_view`)!;
          assert.equal(legacy._meta!["ui/resourceUri"], `ui://${server}/charts/view.html`);
          const read = await client.readResource({ uri: viewOf(tool) as string });
          assert.equal(read.contents.length, 1);
          const content = read.contents[0]! as { uri: string; mimeType?: string; text?: string };
          assert.equal(content.uri, viewOf(tool));
          assert.equal(content.mimeType, MIME);
          assert.match(content.text!, new RegExp(`Chart from server ${server}<`));
        }
      });

      it("every listed view is a ui:// URI one of its server's tools points at", async () => {
        const { resources } = await client.listResources();
        const views = resources.filter((r) => r.mimeType === MIME).map((r) => r.uri).sort();
        assert.deepEqual(views, [
          "ui://a/charts/view.html",
          "ui://b/charts/view.html",
          "ui://c/charts/view.html",
        ]);
        assert.ok(resources.every((r) => !r.uri.startsWith("mcpgw:")), "a rewritten view URI");
        const { tools } = await client.listTools();
        const pointed = new Set(tools.map(viewOf).filter((u) => u !== undefined));
        assert.deepEqual([...pointed].sort(), views);
      });

      it("every other _meta of tools, resources and contents passes byte for byte", async () => {
        const { tools } = await client.listTools();
        const { resources } = await client.listResources();
        for (const server of ["a", "b"]) {
          const upstream = direct[server]!;
          const upstreamTools = (await upstream.listTools()).tools;
          for (const name of ["show_chart", "legacy_view"]) {
            const mine = tools.find((t) => t.name === `${server}__${name}`)!;
            const theirs = upstreamTools.find((t) => t.name === name)!;
            assert.equal(upstreamMeta(mine, theirs), JSON.stringify(theirs._meta), name);
          }
          const [theirView] = (await upstream.listResources()).resources;
          const myView = resources.find((r) => r.uri === `ui://${server}/charts/view.html`)!;
          assert.equal(JSON.stringify(myView._meta), JSON.stringify(theirView!._meta));
          const theirRead = await upstream.readResource({ uri: "ui://charts/view.html" });
          const myRead = await client.readResource({ uri: myView.uri });
          assert.equal(
            JSON.stringify(myRead.contents[0]!._meta),
            JSON.stringify(theirRead.contents[0]!._meta),
          );
          assert.equal(
            JSON.stringify({ ...myRead.contents[0], uri: "" }),
            JSON.stringify({ ...theirRead.contents[0], uri: "" }),
          );
        }
      });

      it("view-only tools are neither listed nor searchable, yet callable", async () => {
        const names = (await client.listTools()).tools.map((t) => t.name);
        assert.ok(names.includes("a__show_chart"));
        for (const hidden of ["a__chart_data", "b__chart_data", "a__only_a", "b__only_b"]) {
          assert.ok(!names.includes(hidden), `${hidden} is listed`);
        }
        const searchable = gw.running.gateway.visibleTools(LOCAL_CALLER).map((t) => t.tool.name);
        assert.ok(searchable.includes("b__show_chart"));
        assert.ok(!searchable.includes("b__chart_data"), "b__chart_data is searchable");
        const scriptable = gw.running.gateway.callableNames(LOCAL_CALLER, false);
        assert.ok(!scriptable.includes("b__chart_data"), "b__chart_data is listed to scripts");
        const r = await client.callTool({ name: "b__chart_data", arguments: {} });
        assert.equal(textOf(r), "data from b");
      });

      it("a host that declared the Apps extension is listed view-only tools, visibility unchanged", async () => {
        const host = await connect(gw.url, FULL, {
          extensions: { "io.modelcontextprotocol/ui": { mimeTypes: [MIME] } },
        });
        try {
          const { tools } = await host.listTools();
          const names = tools.map((t) => t.name);
          for (const only of ["a__chart_data", "b__chart_data", "a__only_a", "b__only_b"]) {
            assert.ok(names.includes(only), `${only} is not listed to the host`);
          }
          const data = tools.find((t) => t.name === "b__chart_data")!;
          const upstream = (await direct.b!.listTools()).tools.find((t) =>
            t.name === "chart_data"
          )!;
          assert.deepEqual(
            (data._meta?.ui as { visibility?: unknown }).visibility,
            (upstream._meta?.ui as { visibility?: unknown }).visibility,
          );
          // The same token without the extension, search and scripts: still not.
          const plain = (await client.listTools()).tools.map((t) => t.name);
          assert.ok(!plain.includes("b__chart_data"), "listed to a client that is no host");
          const searchable = gw.running.gateway.visibleTools(LOCAL_CALLER).map((t) => t.tool.name);
          assert.ok(!searchable.includes("b__chart_data"), "b__chart_data is searchable");
        } finally {
          await host.close();
        }
      });

      it("a tool result's resource link names the view as the client knows it", async () => {
        const r = await client.callTool({ name: "b__show_chart", arguments: {} });
        const link = r.content.find((c) => c.type === "resource_link") as { uri: string };
        assert.equal(link.uri, "ui://b/charts/view.html");
      });

      it("each upstream is offered the UI capability, unless apps: off", async () => {
        for (const server of ["a", "b"]) {
          const r = await client.callTool({ name: `${server}__ui_capability`, arguments: {} });
          assert.deepEqual(JSON.parse(textOf(r)), { mimeTypes: [MIME] }, server);
        }
        const off = await client.callTool({ name: "c__ui_capability", arguments: {} });
        assert.equal(textOf(off), "none");
      });

      it("a view's call by upstream name reaches the one server offering it", async () => {
        const r = await client.callTool({ name: "only_b", arguments: {} });
        assert.equal(textOf(r), "only b");
        const hinted = await client.callTool({
          name: "chart_data",
          arguments: {},
          _meta: { ui: { resourceUri: "ui://b/charts/view.html" } },
        });
        assert.equal(textOf(hinted), "data from b");
      });

      it("a view hint reaches its server as the URI that server knows", async () => {
        const hint = (resourceUri: string) => ({ ui: { resourceUri } });
        const own = await client.callTool({
          name: "b__view_hint",
          arguments: {},
          _meta: hint("ui://b/charts/view.html"),
        });
        assert.equal(textOf(own), "ui://charts/view.html");
        const other = await client.callTool({
          name: "b__view_hint",
          arguments: {},
          _meta: hint("ui://a/charts/view.html"),
        });
        assert.equal(textOf(other), "ui://a/charts/view.html");
      });

      it("an upstream name several servers offer is refused, naming them", async () => {
        const text = await refusal(client, { name: "chart_data", arguments: {} });
        assert.match(text, /several servers/);
        assert.match(text, /a__chart_data, b__chart_data, c__chart_data/);
        const wrongView = await refusal(client, {
          name: "only_b",
          arguments: {},
          _meta: { ui: { resourceUri: "ui://a/charts/view.html" } },
        });
        assert.match(wrongView, /unknown tool "only_b"/);
      });

      it("a narrow token reaches only its own servers' views and tools", async () => {
        const { resources } = await narrow.listResources();
        assert.deepEqual(resources.map((r) => r.uri), ["ui://a/charts/view.html"]);
        await assert.rejects(narrow.readResource({ uri: "ui://b/charts/view.html" }));
        assert.match(await refusal(narrow, { name: "only_b", arguments: {} }), /unknown tool/);
        const r = await narrow.callTool({ name: "chart_data", arguments: {} });
        assert.equal(textOf(r), "data from a");
      });
    });
  }
});

describe("gateway.unprefixedCalls: false", () => {
  let gw: TestGateway;
  let client: AppsClient;
  before(async () => {
    gw = await startTestGateway(`
gateway:
  unprefixedCalls: false
  auth: { tokens: [{ name: full, token: ${FULL} }] }
servers:
  b: ${appsServer("b")}
`);
    client = await ERAS[0]!.connect(gw.url, FULL);
  });
  after(async () => {
    await client?.close();
    await gw?.stop();
  });

  it("refuses a call by upstream name as an unknown tool", async () => {
    assert.match(await refusal(client, { name: "only_b", arguments: {} }), /unknown tool "only_b"/);
    const r = await client.callTool({ name: "b__only_b", arguments: {} });
    assert.equal(textOf(r), "only b");
  });
});

describe("MCP Apps over --stdio", () => {
  it("maps views, hides view-only tools and routes upstream names the same way", async () => {
    const harness = stdioHarness(`
servers:
  a: ${appsServer("a")}
  b: ${appsServer("b")}
`);
    try {
      const { client } = await harness.connect({});
      const { tools } = await client.listTools();
      const show = tools.find((t) => t.name === "b__show_chart");
      assert.equal(viewOf(show), "ui://b/charts/view.html");
      assert.ok(!tools.some((t) => t.name === "b__chart_data"), "a view-only tool is listed");
      const read = await client.readResource({ uri: "ui://b/charts/view.html" });
      assert.match((read.contents[0] as { text: string }).text, /Chart from server b</);
      assert.equal(textOf(await client.callTool({ name: "only_b", arguments: {} })), "only b");
    } finally {
      await harness.close();
    }
  });
});
