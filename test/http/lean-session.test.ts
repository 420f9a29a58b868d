/**
 * An idle 2025 session holds no SDK server: what it owns (the client's capabilities and info, its
 * log level, subscriptions) lives on its link, and the server is built for a request the fast
 * paths do not answer, taking the session up where `initialize` left it, and let go once the
 * session holds nothing of it. A GET stream keeps it (what it sends meanwhile is kept for a
 * resumed stream). Each session's state stays its own through every rebuild.
 */
import assert from "node:assert/strict";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { parseConfig } from "../../src/config/mod.ts";
import { Gateway } from "../../src/gateway/mod.ts";
import type { SessionLink } from "../../src/gateway/passthrough/mod.ts";
import { SessionRegistry } from "../../src/session/legacy/mod.ts";
import { createLogger } from "../../src/shared/log.ts";

/** What a streamable HTTP client sends with every POST. */
const HEADERS = {
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
};
const config = parseConfig("servers: {}\n", { file: join(tmpdir(), "gateway.yaml") });
const gateway = new Gateway(config, createLogger("test"));
const sessions = new SessionRegistry(gateway, {
  maxSessions: 100,
  maxBodyBytes: 1 << 20,
  idleMs: 0,
});
const WHO = { tokenName: null, toolGlobs: null };
after(() => sessions.closeAll());

function post(body: unknown, sid?: string): Promise<Response> {
  return sessions.fetch(
    new Request("http://127.0.0.1/mcp", {
      method: "POST",
      headers: sid ? { ...HEADERS, "mcp-session-id": sid } : HEADERS,
      body: JSON.stringify(body),
    }),
    WHO,
  );
}

/** The JSON-RPC messages of one answer (JSON or SSE). */
async function messages(res: Response): Promise<Record<string, unknown>[]> {
  const text = await res.text();
  if (res.headers.get("content-type")?.startsWith("application/json")) return [JSON.parse(text)];
  return text.split("\n").filter((l) => l.startsWith("data: ") && l.length > 6)
    .map((l) => JSON.parse(l.slice(6)));
}

/** Opens a session declaring `capabilities`; its id and link. */
async function open(capabilities: object, name: string): Promise<[string, SessionLink]> {
  const res = await post({
    jsonrpc: "2.0",
    id: 0,
    method: "initialize",
    params: { protocolVersion: "2025-11-25", capabilities, clientInfo: { name, version: "1" } },
  });
  const [init] = await messages(res);
  assert.ok(init?.result, `initialize answered ${JSON.stringify(init)}`);
  const sid = res.headers.get("mcp-session-id")!;
  const note = await post({ jsonrpc: "2.0", method: "notifications/initialized" }, sid);
  assert.equal(note.status, 202);
  const link = [...gateway.passthrough.sessions].find((l) => l.caller().sessionId === sid);
  assert.ok(link, "the session is attached to the hub");
  return [sid, link];
}

/** Waits for the answer's last write to pass (the server is let go after it). */
const turn = () => new Promise((r) => setTimeout(r, 10));

describe("a lean 2025 session", () => {
  it("holds no server once initialized, and none again after a request that built one", async () => {
    const [sid, link] = await open({ roots: {} }, "lean");
    await turn();
    assert.equal(link.server, undefined, "an idle session holds no SDK server");
    const [pong] = await messages(await post({ jsonrpc: "2.0", id: 1, method: "ping" }, sid));
    assert.deepEqual(pong, { jsonrpc: "2.0", id: 1, result: {} });
    const [prompts] = await messages(
      await post({ jsonrpc: "2.0", id: 2, method: "prompts/list" }, sid),
    );
    assert.deepEqual(prompts?.result, { prompts: [] });
    await turn();
    assert.equal(link.server, undefined, "the rebuilt server was let go");
    assert.deepEqual(link.capabilities, { roots: {} });
    assert.deepEqual(link.clientInfo, { name: "lean", version: "1" });
  });

  it("is opened on the fast path with the answer the SDK's server gives", async () => {
    const init = (id: number, protocolVersion: string) => ({
      jsonrpc: "2.0",
      id,
      method: "initialize",
      params: { protocolVersion, capabilities: {}, clientInfo: { name: "parity", version: "1" } },
    });
    for (const version of ["2025-11-25", "2025-06-18", "1999-01-01"]) {
      const fast = await post(init(4, version));
      assert.equal(fast.headers.get("content-type"), "application/json");
      // A batch of one goes to the SDK transport and its server.
      const sdk = await post([init(4, version)]);
      const sdkText = (await sdk.text()).split("\n").find((l) => l.startsWith("data: {"));
      assert.equal(await fast.text(), sdkText?.slice(6), `initialize at ${version}`);
      for (const res of [fast, sdk]) {
        const sid = res.headers.get("mcp-session-id");
        assert.ok(sid);
        await sessions.fetch(
          new Request("http://127.0.0.1/mcp", {
            method: "DELETE",
            headers: { "mcp-session-id": sid },
          }),
          WHO,
        );
      }
    }
  });

  it("keeps its server while a GET stream is open, told what the client declared", async () => {
    const [sid, link] = await open({ elicitation: { form: {} } }, "streaming");
    const res = await sessions.fetch(
      new Request("http://127.0.0.1/mcp", {
        headers: { accept: "text/event-stream", "mcp-session-id": sid },
      }),
      WHO,
    );
    assert.equal(res.status, 200);
    await messages(await post({ jsonrpc: "2.0", id: 1, method: "ping" }, sid));
    await turn();
    const server = link.server;
    assert.ok(server, "a session with a GET stream keeps its server");
    assert.deepEqual(server.getClientCapabilities(), { elicitation: { form: {} } });
    assert.deepEqual(server.getClientVersion(), { name: "streaming", version: "1" });
    await res.body?.cancel();
  });

  it("keeps each session's level and capabilities its own through rebuilds", async () => {
    const [a, linkA] = await open({ sampling: {} }, "a");
    const [b, linkB] = await open({ roots: { listChanged: true } }, "b");
    const setLevel = (sid: string, level: string) =>
      post({ jsonrpc: "2.0", id: 3, method: "logging/setLevel", params: { level } }, sid)
        .then(messages);
    await setLevel(a, "error");
    await setLevel(b, "debug");
    await turn();
    assert.equal(linkA.level, "error");
    assert.equal(linkB.level, "debug");
    assert.deepEqual(linkA.capabilities, { sampling: {} });
    assert.deepEqual(linkB.capabilities, { roots: { listChanged: true } });
    // A request on one session with the other's id in nothing but its body changes nothing.
    await setLevel(a, "warning");
    assert.equal(linkB.level, "debug");
    assert.equal(linkA.level, "warning");
  });

  it("ends on DELETE without a server, and lets its link go", async () => {
    const [sid, link] = await open({}, "deleted");
    await turn();
    const res = await sessions.fetch(
      new Request("http://127.0.0.1/mcp", { method: "DELETE", headers: { "mcp-session-id": sid } }),
      WHO,
    );
    assert.equal(res.status, 200);
    assert.equal(link.closed, true);
    assert.ok(!gateway.passthrough.sessions.has(link));
    const again = await post({ jsonrpc: "2.0", id: 1, method: "ping" }, sid);
    assert.equal(again.status, 404);
  });

  it("ends when closed lean (idle expiry, shutdown)", async () => {
    const before = sessions.size;
    const [, link] = await open({}, "expired");
    await turn();
    assert.equal(sessions.size, before + 1);
    assert.equal(sessions.expireIdle(Date.now() + 1), 0, "no idle limit here");
    const info = sessions.list().find((s) => s.openedAt > 0 && s.inFlight === 0)!;
    assert.ok(info);
    await sessions.closeAll();
    assert.equal(link.closed, true);
    assert.equal(sessions.size, 0);
  });
});
