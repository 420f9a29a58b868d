/**
 * A silent server holds no client at the door: with one server that never answers the
 * handshake, one that answers and one that starts speaking only after ~7 s, a 2025 session and
 * a 2026-07-28 client are each answered within `gateway.startWait` with the good server's
 * tools; a call to the silent one answers at once that it is starting; the slow one joins with
 * `tools/list_changed` on both eras; and the silent one's whole start (era probe included)
 * ends at its `connectTimeout`. `--stdio` serves as soon, too. Bounds are generous (well under
 * the old 12 s of a 9 s connectTimeout plus its 3 s probe), never tight timings.
 */
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import {
  Client as V2Client,
  StreamableHTTPClientTransport as V2Transport,
} from "@modelcontextprotocol/client";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import {
  nodeServer,
  startTestGateway,
  stdioClient,
  type TestGateway,
  textOf,
  waitFor,
} from "../_helpers/gateway.ts";

/** Well under the old wait (12 s here), well over startWait (3 s here) on a busy machine. */
const BOUND_MS = 8_000;
const CONNECT_TIMEOUT_MS = 9_000;

const servers = (connectTimeout: string) => `
  silent: ${
  nodeServer("no-handshake.mjs", `connectTimeout: ${connectTimeout}, restart: { maxRestarts: 0 }`)
}
  good: ${nodeServer("echo.mjs")}
  slow: ${nodeServer("slow-start.mjs", "protocol: legacy, env: { SLOW_START_MS: '7000' }")}
`;
const YAML = `
gateway:
  startWait: 3s
servers:${servers("9s")}`;
/** For --stdio, whose clock also counts starting the gateway itself: the old wait was 25 s. */
const STDIO_YAML = `
gateway:
  startWait: 3s
servers:${servers("20s")}`;
const STDIO_BOUND_MS = 12_000;

describe("start: a silent server holds no one at the door", () => {
  let gw: TestGateway;
  let t0: number;
  let ready: number;
  let legacy: Client;
  let modern: V2Client;
  let legacyChanges = 0;
  let modernChanges = 0;
  let firstLegacy: string[];
  let firstModern: string[];
  /** When the good server came up, as seen right after the first lists (0: not yet). */
  let goodUpAt = 0;
  let listedAt = 0;
  before(async () => {
    t0 = Date.now();
    gw = await startTestGateway(YAML, { settle: false });
    legacy = new Client({ name: "legacy", version: "1.0.0" });
    legacy.setNotificationHandler(ToolListChangedNotificationSchema, () => void legacyChanges++);
    await legacy.connect(new StreamableHTTPClientTransport(new URL(`${gw.url}/mcp`)));
    listedAt = Date.now();
    firstLegacy = (await legacy.listTools()).tools.map((t) => t.name);
    modern = new V2Client({ name: "modern", version: "1.0.0" }, {
      versionNegotiation: { mode: { pin: "2026-07-28" } },
    });
    modern.setNotificationHandler(
      "notifications/tools/list_changed" as never,
      (() => void modernChanges++) as never,
    );
    await modern.connect(new V2Transport(new URL(`${gw.url}/mcp`)));
    firstModern = (await modern.listTools()).tools.map((t) => t.name);
    ready = Date.now() - t0;
    goodUpAt = gw.running.gateway.pool.get("good")!.upSince ?? 0;
    await modern.listen({ toolsListChanged: true });
  });
  after(async () => {
    await legacy?.close().catch(() => {});
    await modern?.close().catch(() => {});
    await gw?.stop();
  });

  it("answers initialize and the first list within startWait, with the servers that are up", () => {
    assert.ok(ready < BOUND_MS, `both clients listed after ${ready}ms`);
    // The good server is up within startWait unless the machine is very busy (then it joins
    // later, below); when it was up before the lists were asked for, they hold its tools.
    for (const names of [firstLegacy, firstModern]) {
      if (goodUpAt > 0 && goodUpAt < listedAt) {
        assert.ok(names.includes("good__echo"), names.join(","));
      }
      assert.ok(!names.some((n) => n.startsWith("slow__")), names.join(","));
    }
  });

  it("answers a call to the starting server at once, naming it and how long so far", async () => {
    const began = Date.now();
    const result = await legacy.callTool({ name: "silent__anything", arguments: {} });
    const took = Date.now() - began;
    assert.equal(result.isError, true);
    assert.match(textOf(result), /^server "silent" is starting: not up after \d+\.\ds/);
    assert.ok(took < BOUND_MS / 2, `answered after ${took}ms`);
  });

  it("lets the slow server join with tools/list_changed on both eras", async () => {
    // Each server missing from a client's first list joins with one list_changed of its own.
    const joins = (first: string[]) => (first.includes("good__echo") ? 1 : 2);
    await waitFor(
      () => legacyChanges >= joins(firstLegacy),
      20_000,
      "the 2025 session's tools/list_changed",
    );
    await waitFor(
      () => modernChanges >= joins(firstModern),
      20_000,
      "the 2026-07-28 listen stream's list_changed",
    );
    const names = (await legacy.listTools()).tools.map((t) => t.name);
    assert.ok(names.includes("slow__hello") && names.includes("good__echo"), names.join(","));
    const listed = (await modern.listTools()).tools.map((t) => t.name);
    assert.ok(listed.includes("slow__hello") && listed.includes("good__echo"), listed.join(","));
    const hello = await legacy.callTool({ name: "slow__hello", arguments: {} });
    assert.equal(textOf(hello), "hello after a slow start");
  });

  it("ends the silent server's whole start, era probe included, at connectTimeout", async () => {
    const silent = gw.running.gateway.pool.get("silent")!;
    const began = silent.startedAt;
    await waitFor(() => silent.state === "down", 30_000, "the silent server down");
    const took = Date.now() - began;
    // The old clock added the probe (3 s here) to the 9 s; allow 2 s of a busy machine.
    assert.ok(took < CONNECT_TIMEOUT_MS + 2_000, `down after ${took}ms`);
    assert.match(silent.lastError ?? "", /within 9000ms/);
    await gw.running.settled;
  });
});

describe("start over --stdio", () => {
  let client: Client | undefined;
  after(async () => {
    await client?.close().catch(() => {});
  });

  it("answers initialize and tools/list within startWait with a silent server configured", async () => {
    const dir = mkdtempSync(join(tmpdir(), "mcpgw-startwait-"));
    const file = join(dir, "gateway.yaml");
    writeFileSync(file, STDIO_YAML);
    const t0 = Date.now();
    client = await stdioClient(file);
    let changes = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => void changes++);
    const first = (await client.listTools()).tools.map((t) => t.name);
    const took = Date.now() - t0;
    assert.ok(took < STDIO_BOUND_MS, `listed after ${took}ms`);
    // The good server is listed at once, or joins with list_changed if it was slower than
    // startWait on a busy machine.
    if (!first.includes("good__echo")) {
      await waitFor(() => changes > 0, 20_000, "tools/list_changed for the good server");
      const names = (await client.listTools()).tools.map((t) => t.name);
      assert.ok(names.includes("good__echo"), names.join(","));
    }
  });
});
