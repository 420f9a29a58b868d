/**
 * Per-token visibility beyond tools: a token's servers are those owning at least one tool its
 * globs allow, and resources, resource templates, reads, subscriptions, completions and upstream
 * log messages stay inside them — over streamable HTTP and over legacy SSE alike.
 */
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import {
  LoggingMessageNotificationSchema,
  type Resource,
  ResourceListChangedNotificationSchema,
  type ResourceTemplate,
  ResourceUpdatedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { nodeServer, startTestGateway, type TestGateway, waitFor } from "../_helpers/gateway.ts";
import { authedHttpClient, authedSseClient } from "./_http.ts";

const FULL = "full-token-0123456789abcdef";
const NARROW = "narrow-token-0123456789abcdef";

const paged = (name: string) =>
  nodeServer(
    "paged.mjs",
    `env: { PAGED_NAME: ${name}, PAGED_TOOLS: "1", PAGED_PROMPTS: "1", PAGED_RESOURCES: "3" }`,
  );
// `a` and `c1` are the narrow token's servers (it may call one tool of each); `b` and `c2`
// are not (until `c2` adds a tool named `added_…`). `paged://item/…` and `changing://base` exist on two servers each, so the second
// one's copies are exposed rewritten under `mcpgw://<server>/`.
const config = (narrowGlobs: string) => `
gateway:
  auth:
    tokens:
      - { name: full, token: "${FULL}" }
      - { name: narrow, token: "${NARROW}", tools: ${narrowGlobs} }
servers:
  a: ${paged("a")}
  b: ${paged("b")}
  c1: ${nodeServer("changing.mjs")}
  c2: ${nodeServer("changing.mjs")}
`;
const YAML = config(`["a__*", "c1__log", "c2__added_*"]`);
const C2_BASE = `mcpgw://c2/${encodeURIComponent("changing://base")}`;

type Clients = { kind: string; full: Client; narrow: Client };

const notFound = (err: Error & { code?: number }) => err.code === -32002;
const promptNotFound = (err: Error & { code?: number }) => /unknown prompt/.test(err.message);

async function uris(client: Client): Promise<string[]> {
  const out: Resource[] = [];
  let cursor: string | undefined;
  for (let i = 0; i < 20; i++) {
    const r = await client.listResources(cursor ? { cursor } : undefined);
    out.push(...r.resources);
    if (!(cursor = r.nextCursor)) return out.map((r) => r.uri).sort();
  }
  throw new Error("too many pages");
}

async function templates(client: Client): Promise<string[]> {
  const out: ResourceTemplate[] = [];
  let cursor: string | undefined;
  for (let i = 0; i < 20; i++) {
    const r = await client.listResourceTemplates(cursor ? { cursor } : undefined);
    out.push(...r.resourceTemplates);
    if (!(cursor = r.nextCursor)) return out.map((t) => t.uriTemplate).sort();
  }
  throw new Error("too many pages");
}

const complete = (
  client: Client,
  ref: { type: "ref/resource"; uri: string } | {
    type: "ref/prompt";
    name: string;
  },
) => client.complete({ ref, argument: { name: "x", value: "q" } });

describe("a token sees only the resources, completions and logs of its servers", () => {
  let gw: TestGateway;
  const pairs: Clients[] = [];
  const logs = new Map<Client, string[]>();
  before(async () => {
    gw = await startTestGateway(YAML);
    pairs.push({
      kind: "streamable HTTP",
      full: await authedHttpClient(gw.url, FULL),
      narrow: await authedHttpClient(gw.url, NARROW),
    });
    pairs.push({
      kind: "legacy SSE",
      full: await authedSseClient(gw.url, FULL),
      narrow: await authedSseClient(gw.url, NARROW),
    });
    for (const p of pairs) {
      for (const c of [p.full, p.narrow]) {
        const seen: string[] = [];
        logs.set(c, seen);
        c.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
          seen.push(`${n.params.logger}: ${String(n.params.data)}`);
        });
      }
    }
  });
  after(async () => {
    await Promise.all(pairs.flatMap((p) => [p.full.close(), p.narrow.close()]));
    await gw?.stop();
  });

  it("lists only the resources of the token's servers", async () => {
    for (const { kind, full, narrow } of pairs) {
      const all = await uris(full);
      assert.ok(all.includes("paged://b/own") && all.includes(C2_BASE), kind);
      assert.deepEqual(await uris(narrow), [
        "changing://base",
        "paged://a/own",
        "paged://item/0000",
        "paged://item/0001",
        "paged://item/0002",
      ], kind);
    }
  });

  it("lists only the resource templates of the token's servers", async () => {
    for (const { kind, full, narrow } of pairs) {
      const all = await templates(full);
      assert.ok(all.includes("paged://b/t0000/{x}"), kind);
      assert.ok(all.some((t) => t.startsWith("mcpgw://b/")), kind);
      assert.deepEqual(await templates(narrow), [
        "paged://a/t0000/{x}",
        "paged://item/{id}/detail",
      ], kind);
    }
  });

  it("refuses to read another server's resource, listed, rewritten or expanded", async () => {
    for (const { kind, full, narrow } of pairs) {
      for (const uri of ["paged://b/own", C2_BASE, "paged://b/t0000/zz"]) {
        await assert.rejects(narrow.readResource({ uri }), notFound, `${kind} ${uri}`);
      }
      const own = await narrow.readResource({ uri: "paged://a/own" });
      assert.equal((own.contents[0] as { text: string }).text, "a paged://a/own", kind);
      const other = await full.readResource({ uri: "paged://b/own" });
      assert.equal((other.contents[0] as { text: string }).text, "b paged://b/own", kind);
    }
  });

  it("refuses to subscribe to another server's resource", async () => {
    for (const { kind, full, narrow } of pairs) {
      await assert.rejects(narrow.subscribeResource({ uri: C2_BASE }), notFound, kind);
      await narrow.subscribeResource({ uri: "changing://base" });
      await full.subscribeResource({ uri: C2_BASE });
      await narrow.unsubscribeResource({ uri: "changing://base" });
      await full.unsubscribeResource({ uri: C2_BASE });
    }
  });

  it("gives no completions for another server's templates or prompts", async () => {
    for (const { kind, full, narrow } of pairs) {
      await assert.rejects(
        complete(narrow, { type: "ref/resource", uri: "paged://b/t0000/{x}" }),
        notFound,
        kind,
      );
      await assert.rejects(
        complete(narrow, { type: "ref/prompt", name: "b__prompt_0000" }),
        promptNotFound,
        kind,
      );
      const mine = await complete(narrow, { type: "ref/resource", uri: "paged://a/t0000/{x}" });
      assert.deepEqual(mine.completion.values, ["a|paged://a/t0000/{x}|q"], kind);
      const prompt = await complete(narrow, { type: "ref/prompt", name: "a__prompt_0000" });
      assert.deepEqual(prompt.completion.values, ["a|prompt_0000|q"], kind);
      const theirs = await complete(full, { type: "ref/resource", uri: "paged://b/t0000/{x}" });
      assert.deepEqual(theirs.completion.values, ["b|paged://b/t0000/{x}|q"], kind);
    }
  });

  it("relays another server's log messages only to tokens that reach it", async () => {
    const { full } = pairs[0]!;
    await full.callTool({ name: "c2__log", arguments: { levels: ["warning"] } });
    await full.callTool({ name: "c1__log", arguments: { levels: ["notice"] } });
    // c1's message was sent after c2's on every session's stream: once it arrived, c2's would
    // have too.
    for (const { kind, full, narrow } of pairs) {
      const mine = logs.get(narrow)!;
      await waitFor(() => mine.includes("c1: notice message"), 5000, `${kind} c1 log`);
      assert.deepEqual(mine.filter((l) => l.startsWith("c2")), [], kind);
      const all = logs.get(full)!;
      await waitFor(() => all.includes("c2: warning message"), 5000, `${kind} full c2 log`);
    }
  });

  it("lets a token see a server once the server adds a tool its globs allow", async () => {
    const changed = new Map<Client, number>(pairs.map((p) => [p.narrow, 0]));
    for (const { narrow } of pairs) {
      narrow.setNotificationHandler(ResourceListChangedNotificationSchema, () => {
        changed.set(narrow, changed.get(narrow)! + 1);
      });
    }
    await pairs[0]!.full.callTool({ name: "c2__add_tool", arguments: {} });
    for (const { kind, narrow } of pairs) {
      await waitFor(() => changed.get(narrow)! > 0, 5000, `${kind} resources/list_changed`);
      assert.ok((await uris(narrow)).includes(C2_BASE), kind);
    }
  });

  it("re-scopes open sessions when a reload takes a server out of the token's reach", async () => {
    const changed = new Map<Client, number>();
    const updates = new Map<Client, string[]>();
    for (const { narrow } of pairs) {
      changed.set(narrow, 0);
      updates.set(narrow, []);
      narrow.setNotificationHandler(ResourceListChangedNotificationSchema, () => {
        changed.set(narrow, changed.get(narrow)! + 1);
      });
      narrow.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
        updates.get(narrow)!.push(n.params.uri);
      });
      await narrow.subscribeResource({ uri: "changing://base" });
    }
    const { full } = pairs[0]!;
    const fullUpdates: string[] = [];
    full.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
      fullUpdates.push(n.params.uri);
    });
    await full.subscribeResource({ uri: "changing://base" });

    // Before: the narrow sessions hear c1's updates.
    await full.callTool({ name: "c1__touch", arguments: { uri: "changing://base" } });
    for (const { kind, narrow } of pairs) {
      await waitFor(() => updates.get(narrow)!.length === 1, 5000, `${kind} update before`);
    }

    writeFileSync(join(gw.dir, "gateway.yaml"), config(`["a__*"]`));
    assert.equal(await gw.running.reload("test"), true);
    for (const { kind, narrow } of pairs) {
      await waitFor(() => changed.get(narrow)! > 0, 5000, `${kind} resources/list_changed`);
      assert.ok(!(await uris(narrow)).includes("changing://base"), kind);
    }

    // After: neither c1's updates nor its log messages reach them; the full token still hears.
    await full.callTool({ name: "c1__log", arguments: { levels: ["error"] } });
    await full.callTool({ name: "c1__touch", arguments: { uri: "changing://base" } });
    await waitFor(() => fullUpdates.length === 2, 5000, "the full token's second update");
    await new Promise((r) => setTimeout(r, 300));
    for (const { kind, narrow } of pairs) {
      assert.equal(updates.get(narrow)!.length, 1, kind);
      assert.ok(!logs.get(narrow)!.includes("c1: error message"), kind);
    }
  });
});
