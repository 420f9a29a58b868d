/**
 * Every document the OAuth client fetches is bounded: a hostile protected server's
 * `resource_metadata` may name a `file:` URL, redirect there, or serve a 256 MiB document — the
 * gateway reads none of the file (the authorization server it names is never asked) and at most
 * its byte bound of the rest, and no login starts.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { fixture } from "../../_helpers/gateway.ts";
import { type Child, spawnNode } from "../../_helpers/oauth.ts";
import type { RunningGateway } from "../../../src/cli/mod.ts";
import { configFile, startFromFile } from "./_setup.ts";

interface Seen {
  sent: number;
  asked: string[];
}

/** A gateway in front of the hostile server in `mode`; what `/oauth/connect` answered. */
async function connectTo(mode: string): Promise<{ status: number; text: string; seen: Seen }> {
  const upstream: Child = await spawnNode([fixture("hostile-metadata.mjs")], { MODE: mode });
  const base = `http://127.0.0.1:${upstream.line.replace("PORT=", "")}`;
  let gw: RunningGateway | undefined;
  try {
    const file = configFile(
      "mcpgw-documents-",
      `servers:\n  hostile: { url: "${base}/mcp", oauth: { mode: shared } }\n`,
    );
    const started = await startFromFile(file);
    gw = started.gw;
    await gw.settled;
    const res = await fetch(`${started.base}/oauth/connect/hostile`, {
      redirect: "manual",
      signal: AbortSignal.timeout(30_000),
    });
    const text = await res.text();
    const seen = await (await fetch(`${base}/__seen`)).json() as Seen;
    return { status: res.status, text, seen };
  } finally {
    await gw?.stop();
    await upstream.stop();
  }
}

describe("documents the OAuth client fetches", () => {
  it("a file: resource_metadata is refused, and the file's authorization server never asked", async () => {
    const { status, text, seen } = await connectTo("file");
    assert.notEqual(status, 303, `no login started from a file: ${text}`);
    assert.deepEqual(seen.asked.filter((p) => p.includes("from-file")), []);
  });

  it("a redirect to a file: URL is refused the same way", async () => {
    const { status, text, seen } = await connectTo("redirect");
    assert.notEqual(status, 303, text);
    assert.ok(seen.asked.includes("/moved"));
    assert.deepEqual(seen.asked.filter((p) => p.includes("from-file")), []);
  });

  it("a 256 MiB resource metadata document is cut at the byte bound", async () => {
    const { status, text, seen } = await connectTo("huge-resource");
    // The SDK falls back from unreadable resource metadata to the server's own origin (which
    // serves none here), so no login starts.
    assert.notEqual(status, 303, text);
    // The server stopped being read soon after the bound (socket buffers hold a few MiB).
    assert.ok(seen.sent < 32 * 1024 * 1024, `${seen.sent} bytes were sent`);
  });

  it("a 256 MiB authorization-server metadata document is cut at the byte bound", async () => {
    const { status, text, seen } = await connectTo("huge-as");
    assert.notEqual(status, 303);
    assert.match(text, /document over 1048576 bytes/);
    assert.ok(seen.sent < 32 * 1024 * 1024, `${seen.sent} bytes were sent`);
  });
});
