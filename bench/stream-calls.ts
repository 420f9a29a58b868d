/**
 * What knowing each call's stream costs a 2025 streamable HTTP call: `bun bench/stream-calls.ts`
 * reads, in this process, an SSE answer to a `tools/call` POST (a text result of 1 KB, 100 KB and
 * 1 MB in one event, and one sampling request before it) through the fetch a shared 2025
 * connection uses (src/upstream/stream-calls.ts) and through the plain fetch, and prints the
 * median time to read each whole body, beside what the SDK's own reading of it costs (decode,
 * split into events, parse each one's JSON — what every such call already pays), with the
 * machine's load. The upstream is an in-process
 * `fetch` answering from memory, so the figure is the reading alone, no network.
 *
 * Every loop is bounded by a count and a time.
 */
import { EventSourceParserStream } from "eventsource-parser/stream";
import type { CallContext } from "../src/shared/call-context.ts";
import { sendingFor, StreamCalls } from "../src/upstream/stream-calls.ts";
import { loadNow } from "./machine.ts";
import { fmt, table, timeMedian as time } from "./stats.ts";

const ASK = JSON.stringify({
  jsonrpc: "2.0",
  id: 0,
  method: "sampling/createMessage",
  params: { messages: [{ role: "user", content: { type: "text", text: "Say hi" } }] },
});

/** An SSE body: the server's question, then the call's result of about `bytes`. */
function sse(bytes: number): string {
  const text = "x".repeat(bytes);
  const result = JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    result: { content: [{ type: "text", text }] },
  });
  return `event: message\ndata: ${ASK}\n\nevent: message\ndata: ${result}\n\n`;
}

const INIT: RequestInit = {
  method: "POST",
  headers: { "mcp-session-id": "bench", "content-type": "application/json" },
  body: JSON.stringify({ method: "tools/call", params: { name: "t" }, jsonrpc: "2.0", id: 1 }),
};

const loadBefore = loadNow();
const rows: string[][] = [];
const call = { client: {} } as unknown as CallContext;
for (
  const [label, bytes, count] of [["1 KB", 1024, 3000], ["100 KB", 100 * 1024, 1000], [
    "1 MB",
    1024 * 1024,
    200,
  ]] as const
) {
  const body = new TextEncoder().encode(sse(bytes));
  const upstream = () =>
    Promise.resolve(
      new Response(body, { headers: { "content-type": "text/event-stream" } }),
    );
  const streams = new StreamCalls();
  const tagged = streams.fetch(upstream);
  const plain = await time(async () => await (await upstream()).arrayBuffer(), count, 5000);
  const read = await time(
    async () => {
      const r = await sendingFor(call, "tools/call", () => tagged("http://bench/mcp", INIT));
      await r.arrayBuffer();
      if (streams.take(0) !== call) throw new Error("the question was not known as the call's");
    },
    count,
    5000,
  );
  const sdk = await time(
    async () => {
      const events = (await upstream()).body!.pipeThrough(new TextDecoderStream())
        .pipeThrough(new EventSourceParserStream());
      for await (const event of events) JSON.parse(event.data);
    },
    count,
    5000,
  );
  rows.push([label, fmt(plain, 3), fmt(read - plain, 3), fmt(sdk - plain, 3)]);
}
console.log(
  table(
    ["result", "body alone (ms)", "added: call's stream read (ms)", "SDK's own read (ms)"],
    rows,
  ),
);
console.log(`\nload before ${loadBefore}, after ${loadNow()}`);
