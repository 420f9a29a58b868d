/**
 * One call context from the gateway core down to the leg: what a door puts in it reaches the
 * upstream request as it was, through `Gateway.callTool`, `Upstream.request` and the frame.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { parseConfig } from "../../src/config/mod.ts";
import { Gateway } from "../../src/gateway/gateway.ts";
import { LOCAL_CALLER } from "../../src/gateway/types.ts";
import { NO_CONTEXT, type Progress } from "../../src/shared/call-context.ts";
import { reasonOf } from "../../src/upstream/call-errors.ts";
import { createLogger } from "../../src/shared/log.ts";
import { nodeServer, textOf } from "../_helpers/gateway.ts";

// The server's own timeout is long: only the context's can end these calls early.
const YAML = `servers:\n  fx: ${nodeServer("echo.mjs", "timeout: 30s")}\n`;

describe("the call context reaches the leg unchanged", () => {
  let gateway: Gateway;
  before(async () => {
    gateway = new Gateway(parseConfig(YAML), createLogger("test"));
    await gateway.start();
  });
  after(() => gateway.stop());

  it("a context's timeout ends an upstream request, not the server's", async () => {
    const upstream = gateway.pool.get("fx")!;
    const err = await upstream.callTool("slow", { ms: 3000 }, { ...NO_CONTEXT, timeoutMs: 200 })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    assert.equal(reasonOf(err), "timeout");
  });

  it("Gateway.callTool hands the caller's context down: its timeout and its trace _meta", async () => {
    const timedOut = await gateway.callTool("fx__slow", { ms: 3000 }, {
      caller: LOCAL_CALLER,
      timeoutMs: 200,
    });
    assert.equal(timedOut.isError, true);
    assert.equal(textOf(timedOut), `server "fx" did not answer within 200ms`);
    const meta = await gateway.callTool("fx__meta", {}, {
      caller: LOCAL_CALLER,
      meta: { traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01" },
    });
    assert.equal(
      JSON.parse(textOf(meta)).traceparent,
      "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
    );
  });

  it("progress keeps a call alive past its timeout when the context says so", async () => {
    const reports: Progress[] = [];
    const result = await gateway.callTool("fx__slow", { ms: 1500, steps: 15 }, {
      caller: LOCAL_CALLER,
      timeoutMs: 600,
      resetTimeoutOnProgress: true,
      onprogress: (p) => reports.push(p),
    });
    assert.equal(textOf(result), "slept 1500ms");
    assert.equal(reports.length, 15);
  });
});
