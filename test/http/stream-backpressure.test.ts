/**
 * A client that stops reading its event stream while an upstream floods: the gateway (its own
 * process, so its RSS is its own) keeps at most `gateway.limits.streamBuffer` queued per stream —
 * it drops the oldest log messages, or closes a stream with nothing droppable — counts both in
 * `/metrics`, and keeps serving everyone else. The flood comes from a real stdio server
 * (`log-flood.mjs`); the stuck client is a raw socket that stops reading.
 */
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { selfCommand } from "../../src/runtime/mod.ts";
import { memBytes } from "../../bench/procs.ts";
import { nodeServer, ROOT, waitFor } from "../_helpers/gateway.ts";
import { type GatewayProcess, startGatewayProcess, stopProcess } from "../_helpers/process.ts";
import { MCP_HEADERS, openSession } from "../_helpers/raw-session.ts";
import { getStreamBytes, listenBytes, type RawStream, rawStream } from "./_streams.ts";

const MiB = 1024 * 1024;
/**
 * The flood: 8000 log messages of 64 KiB (500 MiB), far past the 2 MiB stream buffer. Measured
 * on this suite's machine, a gateway holding the flood grew by about 1.2 (Bun) to 1.8 (Deno)
 * times the flood; one dropping it levels off far below (the replay store's share of log messages
 * and the garbage of parsing them, which the engine returns to the system late).
 */
const COUNT = 8000;
const BYTES = 64 * 1024;
const FLOOD_MIB = (COUNT * BYTES) / MiB;

/** One `tools/call` on a 2025 session; its result text. */
async function call(url: string, sid: string, name: string, args: unknown): Promise<string> {
  const res = await fetch(`${url}/mcp`, {
    method: "POST",
    headers: { ...MCP_HEADERS, "mcp-session-id": sid },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: Math.floor(Math.random() * 1e9),
      method: "tools/call",
      params: { name, arguments: args },
    }),
  });
  const text = await res.text();
  assert.equal(res.status, 200, text);
  return text;
}

/** How many notifications the flood server has sent so far. */
async function sent(url: string, sid: string): Promise<number> {
  const text = await call(url, sid, "flood__sent", {});
  return Number(/"text":"(\d+)"/.exec(text)![1]);
}

/** The value of one sample of `/metrics`, 0 when absent. */
async function metric(url: string, series: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const line = text.split("\n").find((l) => l.startsWith(series + " "));
  return line ? Number(line.slice(series.length + 1)) : 0;
}

describe("a client that stops reading its event stream", () => {
  let gw: GatewayProcess;
  let port: number;
  const streams: RawStream[] = [];
  before(async () => {
    const dir = mkdtempSync(join(tmpdir(), "mcpgw-backpressure-"));
    writeFileSync(
      join(dir, "gateway.yaml"),
      `gateway:\n  limits: { streamBuffer: 2MiB }\nservers:\n  flood: ${
        nodeServer("log-flood.mjs")
      }\n`,
    );
    const [cmd, ...args] = selfCommand();
    gw = await startGatewayProcess(cmd!, [
      ...args,
      "--config",
      join(dir, "gateway.yaml"),
      "--listen",
      "127.0.0.1:0",
      "--log-level",
      "info",
    ], { cwd: ROOT, ready: true, timeoutMs: 60_000 });
    port = Number(new URL(gw.url).port);
  });
  after(async () => {
    for (const s of streams) s.close();
    await stopProcess(gw?.child);
  });

  it("drops the oldest log messages of its GET stream; the gateway stays bounded and serves others", async () => {
    const stuck = await openSession(gw.url);
    const other = await openSession(gw.url);
    const stream = rawStream(port, getStreamBytes(stuck));
    streams.push(stream);
    await new Promise((r) => setTimeout(r, 300));
    stream.pause();
    const pid = gw.child.pid!;
    const before = memBytes(pid, "VmRSS");
    await call(gw.url, other, "flood__flood", { count: COUNT, bytes: BYTES });
    // Every message past what the buffer and the sockets hold is dropped for the stuck stream.
    const dropped = 'mcp_gateway_stream_events_dropped_total{stream="get"}';
    let queued = 0;
    await waitFor(
      async () => {
        await new Promise((r) => setTimeout(r, 100));
        queued = Math.max(queued, await metric(gw.url, "mcp_gateway_stream_queued_bytes"));
        return await sent(gw.url, other) >= COUNT && await metric(gw.url, dropped) >= COUNT * 0.8;
      },
      120_000,
      "the stuck stream's drops",
    );
    // The other session is served while the stuck one holds its stream open.
    assert.match(await call(gw.url, other, "flood__echo", { still: "here" }), /still/);
    // What the gateway holds for the stuck stream: its 2 MiB bound and at most one message more.
    assert.ok(queued <= 2 * MiB + 2 * BYTES, `${queued} bytes queued`);
    // After the flood the gateway holds its bound (and the 32 MiB replay store), not the flood.
    await new Promise((r) => setTimeout(r, 1_000));
    const grew = (memBytes(pid, "VmRSS") - before) / MiB;
    const bound = FLOOD_MIB * 0.8;
    assert.ok(grew < bound, `RSS grew by ${grew.toFixed(0)} MiB after a ${FLOOD_MIB} MiB flood`);
    const closed = 'mcp_gateway_streams_closed_total{stream="get",reason="slow"}';
    assert.equal(await metric(gw.url, closed), 0);
    // The stream is still open: a client that reads again gets the newest messages.
    assert.equal(await stream.ended(1_000), false);
  });

  it("closes a subscriptions/listen stream once nothing on it can be dropped", async () => {
    const stream = rawStream(port, listenBytes(["flood://feed"]));
    streams.push(stream);
    await waitFor(() => stream.text.includes("acknowledged"), 30_000, "the acknowledgement");
    stream.pause();
    const sid = await openSession(gw.url);
    // Resource updates are state a client must not lose silently: the stream ends instead.
    await call(gw.url, sid, "flood__touch", { uri: "flood://feed", count: 60_000 });
    const closed = 'mcp_gateway_streams_closed_total{stream="listen",reason="slow"}';
    await waitFor(async () => await metric(gw.url, closed) >= 1, 120_000, "the listen closure");
    assert.equal(await stream.ended(30_000), true, "the listen stream ended");
    assert.match(await call(gw.url, sid, "flood__echo", { after: "close" }), /after/);
  });

  it("replays the newest log messages of a flood that fit the stream buffer, in order", async () => {
    const sid = await openSession(gw.url);
    // One message read live gives the client an event id to resume from.
    // Some runtimes' fetch resolves only with the first event: it is sent after the request.
    const live = fetch(`${gw.url}/mcp`, {
      headers: { accept: "text/event-stream", "mcp-session-id": sid },
    });
    await new Promise((r) => setTimeout(r, 300));
    await call(gw.url, sid, "flood__flood", { count: 1, bytes: 10 });
    const reader = (await live).body!.getReader();
    let head = "";
    while (!/^id: (\S+)$/m.test(head)) {
      head += new TextDecoder().decode((await reader.read()).value);
    }
    const lastId = /^id: (\S+)$/m.exec(head)![1]!;
    await reader.cancel();
    // 40 messages of 128 KiB (5 MiB) are sent meanwhile: the replay store keeps as many log
    // messages as the 2 MiB buffer a live stream may queue, the newest.
    await call(gw.url, sid, "flood__flood", { count: 40, bytes: 128 * 1024 });
    await new Promise((r) => setTimeout(r, 2_000));
    const resumed = await fetch(`${gw.url}/mcp`, {
      headers: { accept: "text/event-stream", "mcp-session-id": sid, "last-event-id": lastId },
    });
    const body = resumed.body!.getReader();
    let text = "";
    const end = Date.now() + 30_000;
    while (!/"data":"39 /.test(text) && Date.now() < end) {
      text += new TextDecoder().decode((await body.read()).value);
    }
    await body.cancel();
    const numbers = [...text.matchAll(/"data":"(\d+) /g)].map((m) => Number(m[1]));
    const first = 40 - numbers.length;
    assert.deepEqual(numbers, [...Array(numbers.length).keys()].map((k) => first + k), "in order");
    // 2 MiB holds fifteen 128 KiB messages and their envelopes.
    assert.ok(numbers.length >= 12 && numbers.length <= 16, `${numbers.length} replayed`);
  });
});
