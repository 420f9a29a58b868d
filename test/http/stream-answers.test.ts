/**
 * `gateway.streamAnswers`: a 2025 streamable HTTP session answers its POSTs as event streams the
 * way the SDK's transport does — a priming event with an id, then the answer with one — and a
 * client that drops the stream resumes it with GET + `Last-Event-ID` from its own session only.
 * Off (the default), a `tools/call` is answered with plain JSON.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { nodeServer, startTestGateway, type TestGateway } from "../_helpers/gateway.ts";
import { MCP_HEADERS } from "../_helpers/raw-session.ts";

const VERSION = "2025-11-25";
const HEADERS = { ...MCP_HEADERS, "mcp-protocol-version": VERSION };

interface SseEvent {
  id: string | null;
  retry: string | null;
  data: string;
}

/** Opens a 2025-11-25 session; its id. */
async function openSession(base: string): Promise<string> {
  const res = await fetch(`${base}/mcp`, {
    method: "POST",
    headers: MCP_HEADERS,
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: {
        protocolVersion: VERSION,
        capabilities: {},
        clientInfo: { name: "t", version: "1" },
      },
    }),
  });
  await res.text();
  const sid = res.headers.get("mcp-session-id");
  assert.equal(res.status, 200);
  assert.ok(sid);
  const note = await fetch(`${base}/mcp`, {
    method: "POST",
    headers: { ...HEADERS, "mcp-session-id": sid },
    body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
  });
  await note.body?.cancel();
  assert.equal(note.status, 202);
  return sid;
}

/** A `tools/call` POST on session `sid`, its answer not yet read. */
function call(base: string, sid: string, id: number, name: string, args: object = {}) {
  return fetch(`${base}/mcp`, {
    method: "POST",
    headers: { ...HEADERS, "mcp-session-id": sid },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id,
      method: "tools/call",
      params: { name, arguments: args },
    }),
  });
}

/**
 * Reads events (priming events included: their data is empty) off `res` until `done` says so or
 * the stream ends, within `ms`; then drops the stream.
 */
async function readEvents(
  res: Response,
  done: (events: SseEvent[]) => boolean,
  ms = 10_000,
): Promise<SseEvent[]> {
  const reader = res.body!.getReader();
  const timer = setTimeout(() => void reader.cancel().catch(() => {}), ms);
  const events: SseEvent[] = [];
  let buf = "";
  try {
    while (!done(events)) {
      const { value, done: ended } = await reader.read();
      if (ended) break;
      buf += new TextDecoder().decode(value);
      let end;
      while ((end = buf.indexOf("\n\n")) >= 0) {
        const block = buf.slice(0, end);
        buf = buf.slice(end + 2);
        const lines = block.split("\n");
        if (lines.every((l) => l.startsWith(":"))) continue; // a keep-alive comment
        const data = lines.filter((l) => l.startsWith("data:")).map((l) => l.slice(5).trim())
          .join("\n");
        events.push({
          id: /^id: ?(.*)$/m.exec(block)?.[1] ?? null,
          retry: /^retry: ?(.*)$/m.exec(block)?.[1] ?? null,
          data,
        });
      }
    }
  } finally {
    clearTimeout(timer);
    await reader.cancel().catch(() => {});
  }
  return events;
}

/** The event answering request `id`, parsed, if it came. */
const answer = (events: SseEvent[], id: number) =>
  events.map((e) => (e.data ? JSON.parse(e.data) : null)).find((m) => m?.id === id);

/**
 * Resumes `sid`'s stream after `lastEventId`. The server may not have seen the dropped stream
 * close yet, and refuses a second connection to it with 409 as the SDK does; a client retries.
 */
async function resume(base: string, sid: string, lastEventId: string): Promise<Response> {
  for (let attempt = 0;; attempt++) {
    const res = await fetch(`${base}/mcp`, {
      headers: {
        accept: "text/event-stream",
        "mcp-protocol-version": VERSION,
        "mcp-session-id": sid,
        "last-event-id": lastEventId,
      },
    });
    if (res.status !== 409 || attempt >= 50) return res;
    await res.body?.cancel();
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe("gateway.streamAnswers: true", () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startTestGateway(`
gateway:
  streamAnswers: true
servers:
  echo: ${nodeServer("echo.mjs")}
`);
  });
  after(async () => await gw?.stop());

  it("answers tools/call as an event stream: a priming event with an id, then the result", async () => {
    const sid = await openSession(gw.url);
    const res = await call(gw.url, sid, 7, "echo__echo", { text: "hi" });
    assert.equal(res.status, 200);
    assert.match(res.headers.get("content-type") ?? "", /^text\/event-stream/);
    const events = await readEvents(res, (e) => answer(e, 7) !== undefined);
    assert.ok(events[0]?.id, "the first event carries an id");
    assert.equal(events[0]?.data, "", "the first event is the priming event");
    assert.ok(Number(events[0]?.retry) > 0, "the priming event says how long to wait to resume");
    const result = answer(events, 7);
    assert.equal(result?.result?.content?.[0]?.text, JSON.stringify({ text: "hi" }));
    assert.ok(events.find((e) => e.data.includes('"id":7'))?.id, "the result event has an id");
    // The session is lean again once the answer is out: its SDK server was let go.
    const link = [...gw.running.gateway.passthrough.sessions].find((l) =>
      l.caller().sessionId === sid
    );
    assert.ok(link, "the session is attached to the hub");
    for (let i = 0; i < 50 && link.connection !== undefined; i++) {
      await new Promise((r) => setTimeout(r, 20));
    }
    assert.equal(link.connection, undefined, "the session's SDK server was let go");
  });

  it("a dropped stream is resumed with GET + Last-Event-ID and delivers the result", async () => {
    const sid = await openSession(gw.url);
    const res = await call(gw.url, sid, 8, "echo__slow", { ms: 800, steps: 1 });
    assert.match(res.headers.get("content-type") ?? "", /^text\/event-stream/);
    // Drop the stream as soon as the priming event is in: the call goes on without it.
    const [priming] = await readEvents(res, (e) => e.length >= 1);
    assert.ok(priming?.id);
    assert.equal(priming.data, "");
    const resumed = await resume(gw.url, sid, priming.id);
    assert.equal(resumed.status, 200);
    assert.match(resumed.headers.get("content-type") ?? "", /^text\/event-stream/);
    const events = await readEvents(resumed, (e) => answer(e, 8) !== undefined);
    assert.match(JSON.stringify(answer(events, 8)?.result), /slept 800ms/);
  });

  it("another session's event id is refused", async () => {
    const owner = await openSession(gw.url);
    const other = await openSession(gw.url);
    const res = await call(gw.url, owner, 9, "echo__echo", { text: "mine" });
    const [priming] = await readEvents(res, (e) => e.length >= 1);
    assert.ok(priming?.id);
    const stolen = await resume(gw.url, other, priming.id);
    assert.equal(stolen.status, 400);
    assert.equal((await stolen.json()).error?.code, -32000);
  });
});

describe("gateway.streamAnswers off (the default)", () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startTestGateway(`
servers:
  echo: ${nodeServer("echo.mjs")}
`);
  });
  after(async () => await gw?.stop());

  it("answers tools/call with plain JSON", async () => {
    const sid = await openSession(gw.url);
    const res = await call(gw.url, sid, 7, "echo__echo", { text: "hi" });
    assert.equal(res.status, 200);
    assert.match(res.headers.get("content-type") ?? "", /^application\/json/);
    const body = await res.json();
    assert.equal(body.result.content[0].text, JSON.stringify({ text: "hi" }));
  });
});
