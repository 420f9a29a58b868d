import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { nodeServer, startTestGateway, type TestGateway } from "../_helpers/gateway.ts";
import { bearer, MCP_HEADERS, openSession } from "./_http.ts";

const TOKEN_A = "replay-token-a-0123456789";
const TOKEN_B = "replay-token-b-0123456789";

interface SseEvent {
  id: string | null;
  data: string;
}

/**
 * Opens `GET /mcp` on a session (optionally resuming after `lastEventId`) and collects events
 * until `count` arrived or `ms` passed; then closes the stream.
 */
async function readEvents(
  base: string,
  sid: string,
  token: string,
  opts: {
    lastEventId?: string;
    count: number;
    ms: number;
    /** Runs once the request is sent (the response head may wait for the first event). */
    onOpen?: () => Promise<void>;
    onFirst?: () => void;
  },
): Promise<{ status: number; events: SseEvent[] }> {
  const ctrl = new AbortController();
  const timer = setTimeout(() => ctrl.abort(), opts.ms);
  const opened = opts.onOpen?.();
  const res = await fetch(`${base}/mcp`, {
    headers: {
      accept: "text/event-stream",
      "mcp-session-id": sid,
      ...bearer(token),
      ...(opts.lastEventId ? { "last-event-id": opts.lastEventId } : {}),
    },
    signal: ctrl.signal,
  });
  if (res.status !== 200) {
    clearTimeout(timer);
    await res.body?.cancel();
    await opened;
    return { status: res.status, events: [] };
  }
  const events: SseEvent[] = [];
  const reader = res.body!.getReader();
  let buf = "";
  try {
    while (events.length < opts.count) {
      const { value, done } = await reader.read();
      if (done) break;
      buf += new TextDecoder().decode(value);
      let end;
      while ((end = buf.indexOf("\n\n")) >= 0) {
        const block = buf.slice(0, end);
        buf = buf.slice(end + 2);
        const data = block.split("\n").filter((l) => l.startsWith("data:")).map((l) => l.slice(5))
          .join("\n").trim();
        const id = /^id: ?(.*)$/m.exec(block)?.[1] ?? null;
        if (data) events.push({ id, data });
        if (data && events.length === 1) opts.onFirst?.();
      }
    }
  } catch {
    /* aborted at the deadline */
  } finally {
    clearTimeout(timer);
    ctrl.abort();
    await opened;
  }
  return { status: res.status, events };
}

describe("resumable streams replay only their own session's events", () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startTestGateway(`
gateway:
  auth: { tokens: [{ name: a, token: "${TOKEN_A}" }, { name: b, token: "${TOKEN_B}" }] }
servers:
  changing: ${nodeServer("changing.mjs")}
`);
  });
  after(async () => await gw?.stop());

  /** One JSON-RPC request on a session; resolves with its result (JSON or SSE answer). */
  const rpc = async (sid: string, token: string, method: string, params: unknown) => {
    const id = Math.floor(Math.random() * 1e9);
    const res = await fetch(`${gw.url}/mcp`, {
      method: "POST",
      headers: { ...MCP_HEADERS, ...bearer(token), "mcp-session-id": sid },
      body: JSON.stringify({ jsonrpc: "2.0", id, method, params }),
    });
    const text = await res.text();
    assert.equal(res.status, 200, text);
    const json = text.startsWith("{")
      ? text
      : text.split("\n").filter((l) => l.startsWith("data:")).map((l) => l.slice(5)).find((l) =>
        l.includes(`"id":${id}`)
      );
    return JSON.parse(json!).result;
  };

  /**
   * Reads one live event on `sid`'s GET stream: the upstream's tool list is changed (every
   * session gets list_changed) until the event shows up, since the stream's headers only
   * arrive with its first event.
   */
  const liveEventId = async (sid: string, token: string, changer: string, changerToken: string) => {
    let stop = false;
    const live = await readEvents(gw.url, sid, token, {
      count: 1,
      ms: 10_000,
      onOpen: async () => {
        for (let i = 0; i < 20 && !stop; i++) {
          await new Promise((r) => setTimeout(r, 250));
          if (!stop) await rpc(changer, changerToken, "tools/call", { name: "changing__add_tool" });
        }
      },
      onFirst: () => void (stop = true),
    });
    const id = live.events[0]?.id;
    assert.ok(id, "no live event");
    return id;
  };

  /** The victim subscribes to the upstream's base resource and has it touched twice. */
  const victimEvents = async (victim: string) => {
    const { resources } = await rpc(victim, TOKEN_A, "resources/list", {});
    const uri = (resources as { uri: string; name: string }[]).find((r) => r.name === "base")!.uri;
    await rpc(victim, TOKEN_A, "resources/subscribe", { uri });
    for (let i = 0; i < 2; i++) {
      await rpc(victim, TOKEN_A, "tools/call", {
        name: "changing__touch",
        arguments: { uri: "changing://base" },
      });
    }
    await new Promise((r) => setTimeout(r, 300));
  };

  it("resuming with one's own Last-Event-ID returns no other session's events", async () => {
    const victim = await openSession(gw.url, bearer(TOKEN_A));
    const other = await openSession(gw.url, bearer(TOKEN_B));
    const lastId = await liveEventId(other, TOKEN_B, victim, TOKEN_A);
    // While the other client is away, the victim's session gets events of its own.
    await victimEvents(victim);
    // ...and one change every session sees, so the resumed stream has something of its own.
    await rpc(victim, TOKEN_A, "tools/call", { name: "changing__add_tool" });
    await new Promise((r) => setTimeout(r, 300));
    const resumed = await readEvents(gw.url, other, TOKEN_B, {
      lastEventId: lastId,
      count: 20,
      ms: 1_500,
    });
    assert.equal(resumed.status, 200);
    assert.ok(resumed.events.some((e) => e.data.includes("tools/list_changed")), "own event");
    const leaked = resumed.events.filter((e) => e.data.includes("resources/updated"));
    assert.deepEqual(leaked, [], "the victim's events were replayed to another session");
  });

  it("another session's event id is refused, not replayed", async () => {
    const victim = await openSession(gw.url, bearer(TOKEN_A));
    const other = await openSession(gw.url, bearer(TOKEN_A));
    const victimId = await liveEventId(victim, TOKEN_A, victim, TOKEN_A);
    await victimEvents(victim);
    // Same token, other session: the victim's event id means nothing there.
    const stolen = await readEvents(gw.url, other, TOKEN_A, {
      lastEventId: victimId,
      count: 20,
      ms: 1_500,
    });
    assert.equal(stolen.status, 400);
    assert.deepEqual(stolen.events, []);
  });
});
