/**
 * Per-token shares of what a client can hold open: a 2026-07-28 `subscriptions/listen` stream
 * counts as a session in its token's share (`gateway.limits.sessionsPerToken`), and one token
 * holds at most `maxSessionsPerToken` processes of an `isolation: session` server — past either,
 * the creator is refused while other tokens still get in.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import {
  nodeServer,
  startTestGateway,
  type TestGateway,
  textOf,
  waitFor,
} from "../_helpers/gateway.ts";
import { postModern } from "../protocol/_modern.ts";
import { authedHttpClient, bearer, openSession } from "./_http.ts";
import { type OpenStream, openStream } from "./_streams.ts";

const token = (name: string) => `${name}-share-token-0123456789abcdef`;
const AUTH = `auth:
    tokens: [${["a", "b"].map((n) => `{ name: ${n}, token: "${token(n)}" }`).join(", ")}]`;

describe("listen streams count as sessions of their token", () => {
  let gw: TestGateway;
  const streams: OpenStream[] = [];
  before(async () => {
    gw = await startTestGateway(`
gateway:
  ${AUTH}
  limits: { sessionsPerToken: 3 }
servers:
  echo: ${nodeServer("echo.mjs")}
`);
  });
  after(async () => {
    await Promise.all(streams.map((s) => s.cancel()));
    await gw?.stop();
  });

  const listen = (who: string) =>
    postModern(gw.url, token(who), "subscriptions/listen", {
      notifications: { toolsListChanged: true },
    });
  /** Opens a listen stream and waits for its acknowledgement. */
  const open = async (who: string) => {
    const stream = openStream(listen(who));
    streams.push(stream);
    await waitFor(() => stream.text.includes("acknowledged"), 10_000, "the acknowledgement");
    return stream;
  };

  it("a token holding 3 streams is refused a 4th stream and a session; others get in", async () => {
    const mine = [await open("a"), await open("a"), await open("a")];
    const fourth = await listen("a");
    if (fourth.status !== 429) await fourth.body?.cancel();
    assert.equal(fourth.status, 429, "the fourth stream is refused");
    const body = await fourth.json() as { error?: { message: string } };
    assert.match(body.error!.message, /3 sessions and listen streams.*sessionsPerToken = 3/);
    await assert.rejects(openSession(gw.url, bearer(token("a"))), /answered 429/);
    // Another token is not held up by this one's streams.
    await open("b");
    assert.match(await openSession(gw.url, bearer(token("b"))), /^[0-9a-f-]{36}$/);

    // A stream that ends gives its place back.
    await mine[0]!.cancel();
    const again = await waitFor(
      async () => {
        const res = await listen("a");
        if (res.status !== 200) await res.body?.cancel();
        return res.status === 200 && res;
      },
      10_000,
      "a freed place",
    );
    streams.push(openStream(Promise.resolve(again as Response)));
  });
});

describe("one token's share of a session-isolated server's processes", () => {
  let gw: TestGateway;
  const clients: Client[] = [];
  before(async () => {
    gw = await startTestGateway(`
gateway:
  ${AUTH}
servers:
  echo: ${nodeServer("echo.mjs", "isolation: session, maxSessions: 4, maxSessionsPerToken: 2")}
`);
  });
  after(async () => {
    await Promise.all(clients.map((c) => c.close().catch(() => {})));
    await gw?.stop();
  });

  const session = async (who: string) => {
    const client = await authedHttpClient(gw.url, token(who));
    clients.push(client);
    return client;
  };
  const pid = async (client: Client) => {
    const r = await client.callTool({ name: "echo__pid", arguments: {} });
    return { isError: r.isError === true, text: textOf(r) };
  };

  it("a token's third session gets no process; the other token still gets its own", async () => {
    const [a1, a2, a3] = [await session("a"), await session("a"), await session("a")];
    const first = await pid(a1);
    const second = await pid(a2);
    assert.equal(first.isError || second.isError, false, first.text + second.text);
    assert.notEqual(first.text, second.text, "each session its own process");
    const third = await pid(a3);
    assert.equal(third.isError, true);
    assert.match(third.text, /token "a" already holds 2 session processes.*maxSessionsPerToken/);
    const b = await pid(await session("b"));
    assert.equal(b.isError, false, b.text);
    assert.equal(gw.running.gateway.pool.isolated.count("echo"), 3);
    // The refusal cost nobody their process: a's first two sessions still answer.
    assert.deepEqual([(await pid(a1)).text, (await pid(a2)).text], [first.text, second.text]);
  });
});
