/**
 * An open 2025 session keeps what it needs while idle, not the request that opened it: the
 * `initialize` request (its headers, body streams and signal) is collectable once answered.
 */
import assert from "node:assert/strict";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { parseConfig } from "../../src/config/mod.ts";
import { Gateway } from "../../src/gateway/mod.ts";
import { SessionRegistry } from "../../src/session/legacy/mod.ts";
import { createLogger } from "../../src/shared/log.ts";

declare const Bun: { gc(force: boolean): void } | undefined;

describe("an idle 2025 session", () => {
  // Only Bun can be made to collect from a test; V8 keeps no more than a closure names anyway.
  it(
    "does not hold the initialize request that opened it",
    { skip: typeof Bun === "undefined" },
    async () => {
      const config = parseConfig("servers: {}\n", { file: join(tmpdir(), "gateway.yaml") });
      const sessions = new SessionRegistry(new Gateway(config, createLogger("test")), {
        maxSessions: 100,
        maxBodyBytes: 1 << 20,
        idleMs: 0,
      });
      after(() => sessions.closeAll());
      const refs: WeakRef<Request>[] = [];
      // Several, so one request the runtime happens to keep for its own reasons cannot pass alone.
      for (let i = 0; i < 8; i++) {
        const req = new Request("http://127.0.0.1/mcp", {
          method: "POST",
          headers: {
            "content-type": "application/json",
            accept: "application/json, text/event-stream",
          },
          body: JSON.stringify({
            jsonrpc: "2.0",
            id: 0,
            method: "initialize",
            params: {
              protocolVersion: "2025-11-25",
              capabilities: {},
              clientInfo: { name: "retention", version: "1" },
            },
          }),
        });
        refs.push(new WeakRef(req));
        const res = await sessions.fetch(req, { tokenName: null, toolGlobs: null });
        await res.text();
        assert.ok(res.headers.get("mcp-session-id"), `initialize answered ${res.status}`);
      }
      assert.equal(sessions.size, refs.length, "each opened its own session");
      // A WeakRef's target stays alive until the job that made it ends: collect after a turn.
      for (let round = 0; round < 5 && refs.some((r) => r.deref()); round++) {
        await new Promise((r) => setTimeout(r, 20));
        Bun!.gc(true);
      }
      const held = refs.filter((r) => r.deref() !== undefined).length;
      assert.equal(held, 0, `${held} of ${refs.length} initialize requests still held`);
    },
  );
});
