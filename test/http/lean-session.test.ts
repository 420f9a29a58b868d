/**
 * An idle 2025 session holds no SDK server: what it owns (the client's capabilities and info, its
 * log level, subscriptions) lives on its link, and the server is built for a request the fast
 * paths do not answer, taking the session up where `initialize` left it, and let go once the
 * session holds nothing of it. Its GET stream needs none: the session writes it, keeps what it
 * sends meanwhile for a resumed stream, and asks its client there, the answer reaching the
 * server built to ask. Each session's state stays its own through every rebuild.
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

/** An open `GET /mcp` stream and the events read from it. */
interface Stream {
  readonly status: number;
  readonly headers: Headers;
  json(): Promise<{ error: { code: number } }>;
  /** The next `n` events carrying a message (within a few seconds). */
  events(n: number): Promise<{ id: string | null; message: Record<string, unknown> }[]>;
  close(): Promise<void>;
}

/** Opens the GET stream of session `sid`. */
async function getStream(sid: string, headers: Record<string, string> = {}): Promise<Stream> {
  const res = await sessions.fetch(
    new Request("http://127.0.0.1/mcp", {
      headers: { accept: "text/event-stream", "mcp-session-id": sid, ...headers },
    }),
    WHO,
  );
  const reader = res.ok ? res.body!.getReader() : undefined;
  let buf = "";
  return {
    status: res.status,
    headers: res.headers,
    json: () => res.json(),
    async events(n) {
      const out: { id: string | null; message: Record<string, unknown> }[] = [];
      const deadline = Date.now() + 5_000;
      while (out.length < n && Date.now() < deadline) {
        let end;
        while (out.length < n && (end = buf.indexOf("\n\n")) >= 0) {
          const block = buf.slice(0, end);
          buf = buf.slice(end + 2);
          const data = /^data: (.+)$/m.exec(block)?.[1];
          if (data) {
            out.push({ id: /^id: (.+)$/m.exec(block)?.[1] ?? null, message: JSON.parse(data) });
          }
        }
        if (out.length >= n) break;
        const read = await Promise.race([
          reader!.read(),
          new Promise<undefined>((r) => setTimeout(r, deadline - Date.now())),
        ]);
        if (!read || read.done) break;
        buf += new TextDecoder().decode(read.value);
      }
      return out;
    },
    close: async () => void (await (reader ? reader.cancel() : res.body?.cancel())),
  };
}

/** Waits for the answer's last write to pass (the server is let go after it). */
const turn = () => new Promise((r) => setTimeout(r, 10));

describe("a lean 2025 session", () => {
  it("holds no server once initialized, and none again after a request that built one", async () => {
    const [sid, link] = await open({ roots: {} }, "lean");
    await turn();
    assert.equal(link.connection, undefined, "an idle session holds no SDK server");
    const [pong] = await messages(await post({ jsonrpc: "2.0", id: 1, method: "ping" }, sid));
    assert.deepEqual(pong, { jsonrpc: "2.0", id: 1, result: {} });
    const [prompts] = await messages(
      await post({ jsonrpc: "2.0", id: 2, method: "prompts/list" }, sid),
    );
    assert.deepEqual(prompts?.result, { prompts: [] });
    await turn();
    assert.equal(link.connection, undefined, "the rebuilt server was let go");
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

  it("holds no server while its GET stream is open, and writes its notifications there", async () => {
    const [sid, link] = await open({}, "streaming");
    const stream = await getStream(sid);
    assert.equal(stream.status, 200);
    assert.equal(stream.headers.get("content-type"), "text/event-stream");
    assert.equal(stream.headers.get("mcp-session-id"), sid);
    // A request the fast paths do not answer builds a server; the open stream does not keep it.
    await messages(await post({ jsonrpc: "2.0", id: 1, method: "ping" }, sid));
    await turn();
    assert.equal(link.connection, undefined, "an open GET stream holds no SDK server");
    link.notify("notifications/message", { level: "info", data: "to the stream" });
    const [event] = await stream.events(1);
    assert.deepEqual(event?.message, {
      method: "notifications/message",
      params: { level: "info", data: "to the stream" },
      jsonrpc: "2.0",
    });
    assert.ok(event?.id, "the event has an id to resume after");
    await stream.close();
  });

  it("asks its client on the GET stream, and the client's answer reaches the request", async () => {
    const [sid, link] = await open({ elicitation: { form: {} } }, "asked");
    const stream = await getStream(sid);
    const params = { mode: "form", message: "name?", requestedSchema: { type: "object" } };
    const asked = link.request("elicitation/create", params, { server: "x", timeoutMs: 10_000 });
    const [event] = await stream.events(1);
    const request = event?.message as { id: number; method: string; params: unknown };
    assert.equal(request.method, "elicitation/create");
    assert.deepEqual(request.params, params);
    const answer = await post(
      { jsonrpc: "2.0", id: request.id, result: { action: "decline" } },
      sid,
    );
    assert.equal(answer.status, 202);
    assert.deepEqual(await asked, { action: "decline" });
    await turn();
    assert.equal(link.connection, undefined, "the server built to ask was let go");
    await stream.close();
  });

  it("refuses a second GET stream with 409, and opens one again once the first closed", async () => {
    const [sid] = await open({}, "twice");
    const first = await getStream(sid);
    assert.equal(first.status, 200);
    const second = await getStream(sid);
    assert.equal(second.status, 409);
    assert.equal((await second.json()).error.code, -32000);
    await first.close();
    await turn();
    const third = await getStream(sid);
    assert.equal(third.status, 200);
    await third.close();
  });

  it("replays what it was sent while its stream was closed to the stream resumed", async () => {
    const [sid, link] = await open({}, "resumed");
    const first = await getStream(sid);
    link.notify("notifications/message", { level: "info", data: 1 });
    const [seen] = await first.events(1);
    await first.close();
    await turn();
    link.notify("notifications/message", { level: "info", data: 2 });
    link.notify("notifications/message", { level: "info", data: 3 });
    const resumed = await getStream(sid, { "last-event-id": seen!.id! });
    assert.equal(resumed.status, 200);
    const missed = await resumed.events(2);
    assert.deepEqual(missed.map((e) => (e.message.params as { data: number }).data), [2, 3]);
    assert.equal(link.connection, undefined, "a resume needs no server either");
    // Another session's event id means nothing here.
    const [other] = await open({}, "other");
    const stolen = await getStream(other, { "last-event-id": seen!.id! });
    assert.equal(stolen.status, 400);
    await resumed.close();
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
