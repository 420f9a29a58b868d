/**
 * `oauth: mode: per-user`: every client identity (a configured token's name) has its own
 * upstream credential and connection. A real oidc-provider and a JWT-verifying MCP server whose
 * `whoami` answers the access token's subject, both child processes; the logins are driven
 * through the provider's form as a browser would.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  Client as V2Client,
  StreamableHTTPClientTransport as V2Transport,
} from "@modelcontextprotocol/client";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  ElicitationCompleteNotificationSchema,
  ElicitRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import type { RunningGateway } from "../../../src/cli/mod.ts";
import { textOf } from "../../_helpers/gateway.ts";
import { browserLogin, configFile, type Parties, startFromFile, startParties } from "./_setup.ts";

const TOKENS = {
  alice: "alice-token-0123456789",
  bob: "bob-token-0123456789",
  carol: "carol-token-0123456789",
  dave: "dave-token-01234567890",
  erin: "erin-token-01234567890",
  ops: "ops-token-0123456789ab",
};

describe("upstream OAuth, per-user mode", { timeout: 180_000 }, () => {
  let parties: Parties;
  let upstream: Parties["upstream"];
  let gw: RunningGateway;
  let base: string;
  const clients: Record<string, Client> = {};
  const elicited: Record<string, unknown>[] = [];
  /** The elicitation ids dave's client was told are complete. */
  const completed: string[] = [];

  const whoami = async (who: keyof typeof TOKENS) =>
    textOf(await clients[who]!.callTool({ name: "tracker__whoami", arguments: {} }));
  const linkIn = (text: string) => {
    const m = /open (http\S+\/oauth\/link\?t=[A-Za-z0-9_-]+)/.exec(text);
    assert.ok(m, `no connect link in: ${text}`);
    return m[1]!;
  };

  before(async () => {
    parties = await startParties(300);
    ({ upstream } = parties);
    const yaml = "gateway:\n  auth:\n    tokens:\n" +
      Object.entries(TOKENS).map(([name, token]) =>
        `      - { name: ${name}, token: ${token}${name === "ops" ? ", admin: true" : ""} }\n`
      ).join("") +
      `servers:\n  tracker: { url: ${JSON.stringify(upstream.url)}, oauth: { mode: per-user } }\n`;
    ({ gw, base } = await startFromFile(configFile("mcpgw-peruser-", yaml)));
    for (const [name, token] of Object.entries(TOKENS)) {
      // dave's client can open URLs: it declares URL-mode elicitation and logs in when asked.
      const client = new Client({ name: `test-${name}`, version: "1.0.0" }, {
        capabilities: name === "dave" ? { elicitation: { url: {} } } : {},
      });
      if (name === "dave") {
        client.setRequestHandler(ElicitRequestSchema, async (req) => {
          elicited.push(req.params as Record<string, unknown>);
          const answer = await browserLogin(
            String((req.params as { url?: string }).url),
            "dave-sub",
          );
          assert.equal(answer.status, 200, answer.text);
          return { action: "accept" };
        });
        client.setNotificationHandler(ElicitationCompleteNotificationSchema, (n) => {
          completed.push(n.params.elicitationId);
        });
      }
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
          requestInit: { headers: { authorization: `Bearer ${token}` } },
        }),
      );
      clients[name] = client;
    }
  });
  after(async () => {
    for (const c of Object.values(clients)) await c.close();
    await gw?.stop();
    await parties?.stop();
  });

  it("an identity without a credential gets a tool error naming its own connect link", async () => {
    const text = await whoami("alice");
    assert.match(text, /server tracker needs a login/);
    const link = linkIn(text);
    const answer = await browserLogin(link, "alice-sub");
    assert.equal(answer.status, 200, answer.text);
    assert.equal(await whoami("alice"), "alice-sub");
  });

  it("one identity's login is never used for another", async () => {
    const text = await whoami("bob");
    assert.match(text, /needs a login/);
    assert.equal((await browserLogin(linkIn(text), "bob-sub")).status, 200);
    assert.equal(await whoami("bob"), "bob-sub");
    assert.match(await whoami("carol"), /needs a login/);
  });

  it("a client that declares URL elicitation is asked to connect, and its call completes", async () => {
    assert.equal(await whoami("dave"), "dave-sub");
    assert.equal(elicited.length, 1);
    assert.equal(elicited[0]!.mode, "url");
    assert.match(String(elicited[0]!.url), /\/oauth\/link\?t=/);
    // The login's completion is announced for that elicitation, before the call's answer.
    assert.equal(typeof elicited[0]!.elicitationId, "string");
    assert.deepEqual(completed, [elicited[0]!.elicitationId]);
    assert.equal(await whoami("dave"), "dave-sub");
    assert.equal(elicited.length, 1, "no second elicitation once connected");
    assert.equal(completed.length, 1);
  });

  it("a 2026-07-28 client gets the connect link as an input round, and its call completes", async () => {
    const rounds: Record<string, unknown>[] = [];
    const modern = new V2Client({ name: "modern-erin", version: "1.0.0" }, {
      capabilities: { elicitation: { url: {} } },
      versionNegotiation: { mode: { pin: "2026-07-28" } },
    });
    modern.setRequestHandler("elicitation/create", async (req) => {
      const params = req.params as Record<string, unknown>;
      rounds.push(params);
      const answer = await browserLogin(String(params.url), "erin-sub");
      assert.equal(answer.status, 200, answer.text);
      return { action: "accept" };
    });
    await modern.connect(
      new V2Transport(new URL(`${base}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${TOKENS.erin}` } },
      }),
    );
    try {
      const r = await modern.callTool({ name: "tracker__whoami", arguments: {} });
      assert.equal(textOf(r), "erin-sub");
      assert.equal(rounds.length, 1);
      assert.equal(rounds[0]!.mode, "url");
      assert.match(String(rounds[0]!.url), /\/oauth\/link\?t=/);
    } finally {
      await modern.close();
    }
  });

  it("interleaved calls never cross", async () => {
    const who: ("alice" | "bob")[] = [];
    for (let i = 0; i < 24; i++) who.push(i % 2 === 0 ? "alice" : "bob");
    const answers = await Promise.all(who.map((w) => whoami(w)));
    answers.forEach((a, i) => assert.equal(a, `${who[i]}-sub`));
  });

  it("a connect link works once", async () => {
    const link = linkIn(await whoami("carol"));
    const first = await fetch(link, { redirect: "manual" });
    assert.equal(first.status, 303);
    await first.body?.cancel();
    const again = await fetch(link, { redirect: "manual" });
    assert.equal(again.status, 403);
    await again.body?.cancel();
  });

  it("the admin's view names no user and no token", async () => {
    const res = await fetch(`${base}/status.json`, {
      headers: { authorization: `Bearer ${TOKENS.ops}` },
    });
    assert.equal(res.status, 200);
    const text = await res.text();
    assert.ok(!/alice-sub|bob-sub|eyJ/.test(text), text);
    const tracker = (JSON.parse(text) as { upstreams: { name: string; oauth?: unknown }[] })
      .upstreams.find((u) => u.name === "tracker")!;
    // alice, bob, dave and erin have connected; carol has not: a count, never who.
    assert.deepEqual(tracker.oauth, { mode: "per-user", connected: 4 });
    // Each client connects itself: the admin's page offers no Connect for this server.
    const page = await (await fetch(`${base}/`, {
      headers: { authorization: `Bearer ${TOKENS.ops}` },
    })).text();
    assert.match(page, /needs login/);
    assert.ok(!page.includes("/oauth/connect/tracker"));
  });

  it("an identity disconnects its own credential only", async () => {
    const res = await fetch(`${base}/oauth/credentials/tracker`, {
      method: "DELETE",
      headers: { authorization: `Bearer ${TOKENS.alice}` },
    });
    assert.equal(res.status, 200, await res.text());
    assert.match(await whoami("alice"), /needs a login/);
    assert.equal(await whoami("bob"), "bob-sub");
  });

  it("an admin sees who is connected until when, and disconnects one identity", async () => {
    const ops = { authorization: `Bearer ${TOKENS.ops}` };
    const { accounts } = await (await fetch(`${base}/admin/oauth`, { headers: ops })).json() as {
      accounts: { identity: string; needsLogin: string | null; expiresAt: string | null }[];
    };
    const bob = accounts.find((a) => a.identity === "bob")!;
    assert.equal(bob.needsLogin, null);
    assert.ok(Date.parse(bob.expiresAt!) > Date.now(), `expires ${bob.expiresAt}`);
    assert.ok(!JSON.stringify(accounts).includes("eyJ"), "no token in the list");
    const res = await fetch(`${base}/admin/oauth/tracker/logout`, {
      method: "POST",
      headers: { ...ops, "content-type": "application/json" },
      body: JSON.stringify({ identity: "bob" }),
    });
    assert.equal(res.status, 200, await res.text());
    assert.match(await whoami("bob"), /needs a login/);
    assert.equal(await whoami("erin"), "erin-sub");
    const unknown = await fetch(`${base}/admin/oauth/tracker/logout`, {
      method: "POST",
      headers: { ...ops, "content-type": "application/json" },
      body: JSON.stringify({ identity: "nobody" }),
    });
    assert.equal(unknown.status, 404);
  });
});
