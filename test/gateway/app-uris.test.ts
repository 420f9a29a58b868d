/**
 * The MCP Apps URI mapping on its own: `ui://<rest>` of server s ⇄ `ui://s/<rest>`, reversible,
 * collision-free across servers, applied to templates and tool `_meta` without touching anything
 * else, and resolved only by its server segment.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import {
  appOnly,
  buildResourceIndex,
  exposeAppUri,
  exposeToolMeta,
  exposeUri,
  resolveResource,
  resolveTemplate,
  upstreamAppUri,
  viewServerOf,
} from "../../src/gateway/passthrough/mod.ts";
import type { Upstream } from "../../src/upstream/mod.ts";

/** The part of an upstream the resource index reads. */
function upstream(name: string, resources: string[], templates: string[] = []): Upstream {
  return {
    name,
    client: { getServerCapabilities: () => ({ resources: {} }) },
    catalog: {
      resources: resources.map((uri) => ({ uri, name: uri })),
      resourceTemplates: templates.map((uriTemplate) => ({ uriTemplate, name: uriTemplate })),
    },
  } as unknown as Upstream;
}

describe("MCP Apps URI mapping", () => {
  it("puts the server in front and takes it off again", () => {
    for (const uri of ["ui://charts/view.html", "ui:///view.html", "ui://x/y?z=1#f", "ui://"]) {
      const exposed = exposeAppUri("b", uri);
      assert.ok(exposed.startsWith("ui://b/"), exposed);
      assert.deepEqual(upstreamAppUri(exposed), { server: "b", uri });
    }
    assert.equal(exposeAppUri("b", "ui:///view.html"), "ui://b//view.html");
    assert.equal(upstreamAppUri("ui://nothing"), undefined);
    assert.equal(upstreamAppUri("https://b/x"), undefined);
  });

  it("lists the same view of two servers under two ui:// URIs, each read from its own", () => {
    const index = buildResourceIndex([
      upstream("a", ["ui://charts/view.html", "file:///same"], ["ui://charts/{id}"]),
      upstream("b", ["ui://charts/view.html", "file:///same"], ["ui://charts/{id}"]),
    ]);
    assert.deepEqual(index.resources.map((r) => r.uri), [
      "ui://a/charts/view.html",
      "file:///same",
      "ui://b/charts/view.html",
      "mcpgw://b/file%3A%2F%2F%2Fsame",
    ]);
    assert.deepEqual(index.templates.map((t) => t.uriTemplate), [
      "ui://a/charts/{id}",
      "ui://b/charts/{id}",
    ]);
    assert.deepEqual(resolveResource(index, "ui://b/charts/view.html"), {
      server: "b",
      uri: "ui://charts/view.html",
    });
    assert.deepEqual(resolveResource(index, "ui://a/charts/7"), {
      server: "a",
      uri: "ui://charts/7",
    });
    assert.deepEqual(resolveTemplate(index, "ui://b/charts/{id}"), {
      server: "b",
      uri: "ui://charts/{id}",
    });
    // Unmapped, or naming no server: unknown, never guessed.
    assert.equal(resolveResource(index, "ui://charts/view.html"), undefined);
    assert.equal(resolveResource(index, "ui://c/charts/view.html"), undefined);
    assert.equal(exposeUri(index, "b", "ui://charts/other.html"), "ui://b/charts/other.html");
  });

  it("maps a tool's view URIs and keeps every other _meta key and its order", () => {
    const tool: Tool = {
      name: "show",
      inputSchema: { type: "object" },
      _meta: {
        first: 1,
        ui: {
          csp: { connectDomains: ["https://x"] },
          resourceUri: "ui://v.html",
          prefersBorder: true,
        },
        "ui/resourceUri": "ui://v.html",
        "com.example/vendor": { ui: { resourceUri: "ui://not-mine" } },
      },
    };
    const out = exposeToolMeta("s", tool);
    assert.equal(
      JSON.stringify(out._meta),
      JSON.stringify({
        first: 1,
        ui: {
          csp: { connectDomains: ["https://x"] },
          resourceUri: "ui://s/v.html",
          prefersBorder: true,
        },
        "ui/resourceUri": "ui://s/v.html",
        "com.example/vendor": { ui: { resourceUri: "ui://not-mine" } },
      }),
    );
    const plain: Tool = { name: "p", inputSchema: { type: "object" }, _meta: { ui: { x: 1 } } };
    assert.equal(exposeToolMeta("s", plain), plain);
  });

  it("tells view-only tools and the view a call came from", () => {
    const withUi = (ui: unknown): Tool => ({
      name: "t",
      inputSchema: { type: "object" },
      _meta: { ui },
    });
    assert.equal(appOnly(withUi({ visibility: ["app"] })), true);
    assert.equal(appOnly(withUi({ visibility: ["model", "app"] })), false);
    assert.equal(appOnly(withUi({ resourceUri: "ui://x" })), false);
    assert.equal(viewServerOf({ ui: { resourceUri: "ui://b/charts/view.html" } }), "b");
    assert.equal(viewServerOf({ "ui/resourceUri": "ui://a/v.html" }), "a");
    assert.equal(viewServerOf({ ui: { resourceUri: "https://b/x" } }), undefined);
    assert.equal(viewServerOf(undefined), undefined);
  });
});
