/**
 * OAuth sessions against a real authorization server (oidc-provider): every request on a 2025
 * session is judged by the access token that presents it — a narrower token of the same subject
 * on a session a wider one opened cannot reach more through a batch, `tools/list` or legacy SSE
 * than through a single call — and a client-credentials token of client `alice` and a user
 * token of subject `alice` are two identities, neither able to use the other's session.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { startTestGateway, type TestGateway, waitFor } from "../_helpers/gateway.ts";
import { identityOf } from "../../src/http/security/oauth/mod.ts";
import { AUDIENCE, now, oauthYaml, startProvider, type TestProvider } from "./_oidc.ts";
import { bearer, openSession, ping } from "./_http.ts";
import { type Answer, openRawSse, postBatch, postMessage } from "./_streams.ts";

const ALICE = {
  id: "alice",
  secret: "alice-secret-0123456789abcdef",
  scope: "tools:echo tools:all",
};

const call = (id: number, name: string) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name, arguments: {} },
});
const listTools = (id: number) => ({ jsonrpc: "2.0", id, method: "tools/list", params: {} });
const namesOf = (a: Answer | undefined) =>
  ((a?.result as { tools?: { name: string }[] } | undefined)?.tools ?? []).map((t) => t.name);

describe("OAuth: each request is judged by the token that presents it", () => {
  let provider: TestProvider;
  let gw: TestGateway;
  /** Two tokens of client `alice`: one scoped to everything, one to `echo__echo` alone. */
  let wide: string;
  let narrow: string;
  before(async () => {
    provider = await startProvider([ALICE], ALICE.scope);
    gw = await startTestGateway(oauthYaml(provider.issuer));
    wide = await provider.token(ALICE, AUDIENCE, "tools:all");
    narrow = await provider.token(ALICE, AUDIENCE, "tools:echo");
  });
  after(async () => {
    await gw?.stop();
    await provider?.stop();
  });
  /** A user token of subject `alice`, issued to another client (signed by the provider's key). */
  const userAlice = () =>
    provider.sign({
      iss: provider.issuer,
      aud: AUDIENCE,
      sub: "alice",
      client_id: "webapp",
      scope: "tools:all",
      iat: now(),
      exp: now() + 300,
    });

  it("a narrower token on a session a wider one opened: batch items and lists follow it", async () => {
    const sid = await openSession(gw.url, bearer(wide));
    const [widely] = await postBatch(gw.url, sid, [listTools(1)], bearer(wide));
    assert.ok(namesOf(widely).includes("echo__pid"), JSON.stringify(widely));

    const answers = await postBatch(
      gw.url,
      sid,
      [call(2, "echo__pid"), call(3, "echo__echo"), listTools(4)],
      bearer(narrow),
    );
    const byId = new Map(answers.map((a) => [a.id, a]));
    assert.equal(byId.get(2)?.error?.code, -32003, JSON.stringify(byId.get(2)));
    assert.ok(byId.get(3)?.result, JSON.stringify(byId.get(3)));
    assert.deepEqual(namesOf(byId.get(4)), ["echo__echo"]);

    // The wider token, presented again, is judged as itself.
    const [again] = await postBatch(gw.url, sid, [call(5, "echo__pid")], bearer(wide));
    assert.ok(again?.result, JSON.stringify(again));
  });

  it("the same over legacy SSE: a POST is judged by its own token", async () => {
    const { stream, messageUrl } = await openRawSse(gw.url, bearer(wide));
    try {
      const init = {
        jsonrpc: "2.0",
        id: 0,
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw" } },
      };
      assert.equal(await postMessage(messageUrl, init, bearer(wide)), 202);
      await postMessage(messageUrl, { jsonrpc: "2.0", method: "notifications/initialized" });
      assert.equal(await postMessage(messageUrl, listTools(11), bearer(narrow)), 202);
      assert.equal(await postMessage(messageUrl, call(12, "echo__pid"), bearer(narrow)), 202);
      const answer = (id: number) =>
        stream.text.split("\n").filter((l) => l.startsWith("data: {"))
          .map((l) => JSON.parse(l.slice(6)) as Answer).find((a) => a.id === id);
      await waitFor(() => answer(11) && answer(12), 10_000, "both answers on the SSE stream");
      assert.deepEqual(namesOf(answer(11)), ["echo__echo"]);
      assert.equal(answer(12)?.error?.code, -32003, JSON.stringify(answer(12)));
    } finally {
      await stream.cancel();
    }
  });

  it("names a client-credentials identity and a user identity apart", async () => {
    const calls: { tokenName: string | null }[] = [];
    gw.running.gateway.calls.observeCalls((c) => calls.push(c));
    const user = await userAlice();
    const userSid = await openSession(gw.url, bearer(user));
    const clientSid = await openSession(gw.url, bearer(wide));
    await postBatch(gw.url, userSid, [call(21, "echo__pid")], bearer(user));
    await postBatch(gw.url, clientSid, [call(22, "echo__pid")], bearer(wide));
    assert.deepEqual(calls.slice(-2).map((c) => c.tokenName), [
      "oauth:user:alice",
      "oauth:client:alice",
    ]);
  });

  it("a user token of subject alice cannot use client alice's session, nor the reverse", async () => {
    const user = await userAlice();
    const clientSid = await openSession(gw.url, bearer(wide));
    const userSid = await openSession(gw.url, bearer(user));
    assert.equal(await ping(gw.url, clientSid, bearer(user)), 403);
    assert.equal(await ping(gw.url, userSid, bearer(wide)), 403);
    assert.equal(await ping(gw.url, clientSid, bearer(narrow)), 200, "same client, other token");
    assert.equal(await ping(gw.url, userSid, bearer(user)), 200);
  });
});

describe("OAuth identity names", () => {
  it("tells a client acting as itself from a user, and no sub can pose as a client", () => {
    assert.equal(identityOf({ client_id: "alice" }), "oauth:client:alice");
    assert.equal(identityOf({ sub: "alice", client_id: "alice" }), "oauth:client:alice");
    assert.equal(identityOf({ sub: "alice", client_id: "webapp" }), "oauth:user:alice");
    assert.equal(identityOf({ sub: "alice" }), "oauth:user:alice");
    assert.equal(identityOf({ sub: "client:alice" }), "oauth:user:client:alice");
    assert.equal(identityOf({ sub: "", client_id: "" }), null);
  });
});
