/**
 * `notifications/resources/updated` on a 2026-07-28 `subscriptions/listen` stream: the gateway
 * holds the upstream subscription while a stream asks for the URI, delivers the upstream's
 * updates for that URI only, and drops the upstream subscription when the stream goes away.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { nodeServer, type TestGateway, textOf, useGateway, waitFor } from "../_helpers/gateway.ts";

const MODERN = "2026-07-28";

interface Stream {
  messages: { method?: string; params?: { uri?: string } }[];
  close(): void;
}

/** Opens a listen stream for `uris` and collects its messages as they arrive. */
async function listen(url: string, uris: string[]): Promise<Stream> {
  const abort = new AbortController();
  const res = await fetch(`${url}/mcp`, {
    method: "POST",
    signal: abort.signal,
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": MODERN,
      "mcp-method": "subscriptions/listen",
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "subscriptions/listen",
      params: {
        notifications: { resourceSubscriptions: uris },
        _meta: {
          "io.modelcontextprotocol/protocolVersion": MODERN,
          "io.modelcontextprotocol/clientInfo": { name: "listen-test", version: "1" },
          "io.modelcontextprotocol/clientCapabilities": {},
        },
      },
    }),
  });
  assert.match(res.headers.get("content-type") ?? "", /text\/event-stream/);
  const stream: Stream = { messages: [], close: () => abort.abort() };
  void (async () => {
    const decoder = new TextDecoder();
    let buffered = "";
    try {
      for await (const chunk of res.body!) {
        buffered += decoder.decode(chunk, { stream: true });
        const lines = buffered.split("\n");
        buffered = lines.pop()!;
        for (const line of lines) {
          if (line.startsWith("data:")) stream.messages.push(JSON.parse(line.slice(5)));
        }
      }
    } catch { /* aborted by close() */ }
  })();
  return stream;
}

describe("resources/updated on subscriptions/listen", () => {
  let gw: TestGateway;
  let legacy: Client;
  useGateway(`servers:\n  changing: ${nodeServer("changing.mjs")}\n`, (g, c) => {
    gw = g;
    legacy = c;
  });
  const upstreamSubscriptions = async () =>
    JSON.parse(textOf(await legacy.callTool({ name: "changing__subscriptions", arguments: {} })));
  const touch = (uri: string) => legacy.callTool({ name: "changing__touch", arguments: { uri } });

  it("delivers the upstream's updates for the URIs the stream asked for, and only those", async () => {
    const stream = await listen(gw.url, ["changing://watched"]);
    try {
      await waitFor(() => stream.messages.length > 0, 5000, "the acknowledgement");
      assert.equal(stream.messages[0]!.method, "notifications/subscriptions/acknowledged");
      assert.ok((await upstreamSubscriptions()).includes("changing://watched"));
      await touch("changing://elsewhere");
      await touch("changing://watched");
      const updated = () =>
        stream.messages.filter((m) => m.method === "notifications/resources/updated");
      await waitFor(() => updated().length > 0, 5000, "the update");
      assert.deepEqual(updated().map((m) => m.params?.uri), ["changing://watched"]);
    } finally {
      stream.close();
    }
  });

  it("drops the upstream subscription when the last stream for the URI goes away", async () => {
    const [a, b] = [
      await listen(gw.url, ["changing://shared"]),
      await listen(gw.url, ["changing://shared"]),
    ];
    await waitFor(() => a.messages.length > 0 && b.messages.length > 0, 5000, "both acks");
    a.close();
    await new Promise((r) => setTimeout(r, 200));
    assert.ok((await upstreamSubscriptions()).includes("changing://shared"));
    b.close();
    await waitFor(
      async () => !(await upstreamSubscriptions()).includes("changing://shared"),
      5000,
      "the upstream unsubscribe",
    );
  });
});
