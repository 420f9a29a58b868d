/**
 * 2026-07-28 requests of different tokens interleaved on one gateway: each request carries its
 * own identity (no session), and the door serves many at once — plain `tools/call`s on its fast
 * path, lists and errors through the SDK. Two tokens with different tool scopes send concurrent
 * modern calls and lists; each sees only its own tools and gets only its own results, and a plain
 * call answers exactly as the SDK path does (`resultType`, `serverInfo`, per-request `_meta`).
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernTransport,
} from "@modelcontextprotocol/client";
import { nodeServer, startTestGateway, type TestGateway, textOf } from "../_helpers/gateway.ts";
import { MODERN, postModern } from "./_modern.ts";

const WIDE = "token-wide-0123456789abcdef";
const NARROW = "token-narrow-0123456789abcdef";

const YAML = `
gateway:
  auth:
    tokens:
      - { name: wide, token: ${WIDE} }
      - { name: narrow, token: ${NARROW}, tools: ["one__*"] }
servers:
  one: ${nodeServer("echo.mjs")}
  two: ${nodeServer("echo.mjs")}
`;

async function modernClient(url: string, token: string): Promise<ModernClient> {
  const client = new ModernClient({ name: "isolation-test", version: "1.0.0" }, {
    versionNegotiation: { mode: { pin: MODERN } },
  });
  await client.connect(
    new ModernTransport(new URL(`${url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  return client;
}

/** One raw 2026-07-28 `tools/call`, with the envelope and the standard headers. */
async function rawCall(
  url: string,
  token: string,
  name: string,
  args: Record<string, unknown>,
  meta: Record<string, unknown> = {},
): Promise<Record<string, unknown>> {
  const res = await postModern(url, token, "tools/call", { name, arguments: args }, {
    meta,
    id: "call-1",
  });
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("content-type"), "application/json");
  return await res.json() as Record<string, unknown>;
}

describe("2026-07-28 requests of two tokens interleaved", () => {
  let gw: TestGateway;
  let wide: ModernClient;
  let narrow: ModernClient;
  before(async () => {
    gw = await startTestGateway(YAML);
    wide = await modernClient(gw.url, WIDE);
    narrow = await modernClient(gw.url, NARROW);
  });
  after(async () => {
    await wide?.close();
    await narrow?.close();
    await gw?.stop();
  });

  it("concurrent calls and lists of two scopes each see only their own tools and results", async () => {
    const ROUNDS = 25;
    const work: Promise<void>[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      work.push(
        wide.callTool({ name: "two__echo", arguments: { text: `wide-${i}` } }).then((r) =>
          assert.equal(textOf(r), JSON.stringify({ text: `wide-${i}` }))
        ),
        narrow.callTool({ name: "one__echo", arguments: { text: `narrow-${i}` } }).then((r) =>
          assert.equal(textOf(r), JSON.stringify({ text: `narrow-${i}` }))
        ),
        // The narrow token never reaches `two`, however its requests interleave with wide's.
        assert.rejects(
          narrow.callTool({ name: "two__echo", arguments: { text: `leak-${i}` } }),
          /not allowed|unknown tool/,
        ),
        narrow.listTools().then(({ tools }) => {
          assert.ok(tools.length > 0);
          assert.ok(
            tools.every((t) => t.name.startsWith("one__")),
            tools.map((t) => t.name).join(),
          );
        }),
        wide.listTools().then(({ tools }) => {
          assert.ok(tools.some((t) => t.name.startsWith("two__")));
          assert.ok(tools.some((t) => t.name.startsWith("one__")));
        }),
      );
    }
    await Promise.all(work);
  });

  it("a plain call is answered as the SDK answers: resultType, serverInfo, content", async () => {
    const body = await rawCall(gw.url, WIDE, "one__echo", { text: "plain" });
    assert.equal(body.id, "call-1");
    const result = body.result as Record<string, unknown>;
    assert.equal(result.resultType, "complete");
    const meta = result._meta as Record<string, { name?: string; version?: string }>;
    assert.equal(meta["io.modelcontextprotocol/serverInfo"]?.name, "mcp-gateway");
    assert.equal(typeof meta["io.modelcontextprotocol/serverInfo"]?.version, "string");
    assert.equal(textOf(result), JSON.stringify({ text: "plain" }));
  });

  it("a call's own _meta reaches the upstream without the envelope keys", async () => {
    const body = await rawCall(gw.url, NARROW, "one__meta", {}, { "example.com/trace": "t-1" });
    const seen = JSON.parse(textOf(body.result)) as Record<string, unknown>;
    assert.equal(seen["example.com/trace"], "t-1");
    assert.ok(!Object.keys(seen).some((k) => k.startsWith("io.modelcontextprotocol/")));
  });

  it("a tool outside the token's scope is refused on the plain path as on the SDK path", async () => {
    const body = await rawCall(gw.url, NARROW, "two__echo", { text: "x" });
    const error = body.error as { code: number; message: string };
    assert.equal(body.id, "call-1");
    assert.match(error.message, /not allowed|unknown tool/);
  });
});
