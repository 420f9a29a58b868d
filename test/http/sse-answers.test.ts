/**
 * Answers on the legacy SSE transport (`GET /sse`, `POST /message`) are written from the JSON a
 * tool result arrived as, through a real stdio server whose answer line keeps an escape a
 * serialiser would not write (`\u00e9`): the event carries the upstream's text with the client's
 * id, short or past a mebibyte (then from the line's own bytes); a result the gateway made
 * itself, and an error, are written as the SDK serialises them; the session keeps answering
 * after each.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { nodeServer, startTestGateway, type TestGateway } from "../_helpers/gateway.ts";

/** A raw SSE session: its `/message` endpoint and the data of each `message` event, in order. */
interface RawSse {
  endpoint: string;
  next(): Promise<string>;
  close(): Promise<void>;
}

async function openSse(url: string): Promise<RawSse> {
  const res = await fetch(`${url}/sse`, { headers: { accept: "text/event-stream" } });
  assert.equal(res.status, 200);
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  const event = async (): Promise<{ type: string; data: string }> => {
    for (;;) {
      const end = buffer.indexOf("\n\n");
      if (end >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const type = /^event: (.*)$/m.exec(block)?.[1] ?? "message";
        const data = block.split("\n").filter((l) => l.startsWith("data: ")).map((l) => l.slice(6))
          .join("\n");
        if (data !== "") return { type, data };
        continue;
      }
      const { value, done } = await reader.read();
      if (done) throw new Error("the event stream ended");
      buffer += value;
    }
  };
  const first = await event();
  assert.equal(first.type, "endpoint");
  return {
    endpoint: new URL(first.data, url).href,
    next: async () => (await event()).data,
    close: () => reader.cancel(),
  };
}

describe("answers on the legacy SSE transport", () => {
  let gw: TestGateway;
  let sse: RawSse;
  let id = 0;
  /** Posts one request and returns its answer event's data. */
  const ask = async (method: string, params: object): Promise<string> => {
    const body = { jsonrpc: "2.0", id: `c-${++id}`, method, params };
    const res = await fetch(sse.endpoint, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    assert.equal(res.status, 202);
    return await sse.next();
  };

  before(async () => {
    gw = await startTestGateway(`servers:\n  raw: ${nodeServer("raw-answers.mjs")}\n`);
    sse = await openSse(gw.url);
    const init = await ask("initialize", {
      protocolVersion: "2024-11-05",
      capabilities: {},
      clientInfo: { name: "raw-sse", version: "1.0.0" },
    });
    assert.ok(JSON.parse(init).result);
    await fetch(sse.endpoint, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
    });
  });
  after(async () => {
    await sse?.close();
    await gw?.stop();
  });

  it("sends a short result on as the upstream wrote it, with the client's id", async () => {
    const data = await ask("tools/call", { name: "raw__escaped", arguments: { pad: 3 } });
    assert.equal(
      data,
      `{"result":{"content":[{"type":"text","text":"caf\\u00e9 xxx"}]},"jsonrpc":"2.0","id":"c-${id}"}`,
    );
  });

  it("sends a result past a mebibyte on from the bytes its line arrived as", async () => {
    const pad = 1_500_000;
    const data = await ask("tools/call", { name: "raw__escaped", arguments: { pad } });
    assert.ok(
      data ===
        `{"result":{"content":[{"type":"text","text":"caf\\u00e9 ${
          "x".repeat(pad)
        }"}]},"jsonrpc":"2.0","id":"c-${id}"}`,
      `not the upstream's text: ${data.slice(0, 120)}…`,
    );
  });

  it("serialises what the gateway made itself, and errors, as before", async () => {
    const listed = JSON.parse(await ask("tools/list", {}));
    assert.ok(listed.result.tools.some((t: { name: string }) => t.name === "raw__escaped"));
    const failed = JSON.parse(await ask("tools/call", { name: "raw__rpc_error", arguments: {} }));
    assert.equal(failed.id, `c-${id}`);
    assert.ok(failed.result?.isError ?? failed.error, JSON.stringify(failed));
    // An unknown tool is answered by the gateway, not an upstream.
    const unknown = JSON.parse(await ask("tools/call", { name: "nope", arguments: {} }));
    assert.equal(unknown.id, `c-${id}`);
    // And the session goes on answering from the upstream's text.
    const again = await ask("tools/call", { name: "raw__escaped", arguments: { pad: 1 } });
    assert.match(again, /"text":"caf\\u00e9 x"/);
  });
});
