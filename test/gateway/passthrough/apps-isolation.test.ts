/**
 * `apps:` on `isolation: session` servers (the ext-apps fixture, whose `ui_capability` tool
 * answers what its process was offered): under `auto` each session's own process is offered the
 * MCP Apps extension only when that session's client declared it — a spare process, started
 * before its owner is known, goes only to a client that renders views — and under `on` every
 * process is offered it. On both client eras, two clients side by side.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { startTestGateway, type TestGateway, textOf } from "../../_helpers/gateway.ts";
import { type AppsClient, appsServer, ERAS, FULL } from "./_apps.ts";

const MIME = "text/html;profile=mcp-app";
const HOST = { extensions: { "io.modelcontextprotocol/ui": { mimeTypes: [MIME] } } };

const YAML = `
gateway:
  auth:
    tokens:
      - { name: full, token: ${FULL} }
servers:
  auto: ${appsServer("auto", "isolation: session")}
  spared: ${appsServer("spared", "isolation: session, spare: 1")}
  on: ${appsServer("on", "isolation: session, apps: on")}
`;

/** What the client's own process of `server` was offered: the capability, or "none". */
async function offered(client: AppsClient, server: string): Promise<unknown> {
  const text = textOf(await client.callTool({ name: `${server}__ui_capability`, arguments: {} }));
  return text === "none" ? "none" : JSON.parse(text);
}

describe("apps on session-isolated servers", () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startTestGateway(YAML);
  });
  after(async () => {
    await gw.stop();
  });

  for (const { era, connect } of ERAS) {
    describe(era, () => {
      it("apps: auto offers the extension to the process of the client that declared it only", async () => {
        const plain = await connect(gw.url, FULL);
        const host = await connect(gw.url, FULL, HOST);
        try {
          // The plain client first: a process started for it must not be the host's view.
          for (const server of ["auto", "spared"]) {
            assert.equal(await offered(plain, server), "none", `${server}, plain client`);
            assert.deepEqual(await offered(host, server), { mimeTypes: [MIME] }, `${server}, host`);
            assert.equal(await offered(plain, server), "none", `${server}, plain client again`);
          }
        } finally {
          await plain.close();
          await host.close();
        }
      });

      it("apps: on offers it to every session's process", async () => {
        const plain = await connect(gw.url, FULL);
        const host = await connect(gw.url, FULL, HOST);
        try {
          assert.deepEqual(await offered(plain, "on"), { mimeTypes: [MIME] });
          assert.deepEqual(await offered(host, "on"), { mimeTypes: [MIME] });
        } finally {
          await plain.close();
          await host.close();
        }
      });
    });
  }
});
