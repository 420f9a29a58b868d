/**
 * `isolation: session` for 2026-07-28 clients: a request flow (a call and its input_required
 * rounds) gets its own process of the server, so two modern clients calling at the same time
 * each answer their own process's roots and sampling — never each other's, never guessed.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernTransport,
} from "@modelcontextprotocol/client";
import { nodeServer, startTestGateway, type TestGateway, textOf } from "../_helpers/gateway.ts";

const TOKEN_A = "roots-modern-token-a-0123456789";
const TOKEN_B = "roots-modern-token-b-0123456789";

async function modern(url: string, token: string, root: string): Promise<ModernClient> {
  const client = new ModernClient({ name: "roots-modern", version: "1.0.0" }, {
    capabilities: { roots: {}, sampling: {} },
    versionNegotiation: { mode: { pin: "2026-07-28" } },
  });
  client.setRequestHandler("roots/list", () => ({ roots: [{ uri: root, name: root }] }));
  client.setRequestHandler("sampling/createMessage", () => ({
    role: "assistant",
    content: { type: "text", text: `sampled for ${root}` },
    model: "test",
  }));
  await client.connect(
    new ModernTransport(new URL(`${url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  return client;
}

describe("isolation: session with 2026-07-28 clients", () => {
  let gw: TestGateway;
  let a: ModernClient;
  let b: ModernClient;
  before(async () => {
    gw = await startTestGateway(`
gateway:
  auth:
    tokens:
      - { name: a, token: ${TOKEN_A} }
      - { name: b, token: ${TOKEN_B} }
servers:
  files: ${nodeServer("roots.mjs", "isolation: session, roots: client")}
`);
    a = await modern(gw.url, TOKEN_A, "file:///tenant-a");
    b = await modern(gw.url, TOKEN_B, "file:///tenant-b");
  });
  after(async () => {
    await a?.close();
    await b?.close();
    await gw?.stop();
  });

  it("gives each concurrent flow its own process, which sees only its own client's roots", async () => {
    const [ra, rb, pa, pb] = await Promise.all([
      a.callTool({ name: "files__roots", arguments: {} }),
      b.callTool({ name: "files__roots", arguments: {} }),
      a.callTool({ name: "files__pid", arguments: {} }),
      b.callTool({ name: "files__pid", arguments: {} }),
    ]);
    assert.match(textOf(ra), /tenant-a/);
    assert.doesNotMatch(textOf(ra), /tenant-b/);
    assert.match(textOf(rb), /tenant-b/);
    assert.doesNotMatch(textOf(rb), /tenant-a/);
    assert.notEqual(textOf(pa), textOf(pb), "two flows, two processes");
  });

  it("routes a flow's sampling to its own client while another flow is in flight", async () => {
    const [sa, sb] = await Promise.all([
      a.callTool({ name: "files__sample", arguments: {} }),
      b.callTool({ name: "files__sample", arguments: {} }),
    ]);
    assert.match(textOf(sa), /sampled for file:\/\/\/tenant-a/);
    assert.match(textOf(sb), /sampled for file:\/\/\/tenant-b/);
  });
});
