/**
 * An upstream's requests in flight (`src/upstream/requests.ts`): counted from the send until they
 * settle, whichever way; a failure under a credential that needs a login is told as that login.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { NO_CONTEXT } from "../../src/shared/call-context.ts";
import { GatewayError } from "../../src/shared/errors.ts";
import type { UpstreamCaller } from "../../src/upstream/caller.ts";
import type { Connection } from "../../src/upstream/connect.ts";
import { Requests } from "../../src/upstream/requests.ts";
import type { Line } from "../../src/upstream/resend.ts";
import type { UpstreamCore } from "../../src/upstream/upstream-core.ts";

/** A stdio line whose caller answers each request with what `answer` says, when told to. */
function harness(credential?: { needsLogin: string | null; loginError(): Error }) {
  const waiting: { ok(v: unknown): void; fail(e: unknown): void }[] = [];
  const caller: UpstreamCaller = {
    kind: "test",
    call: () => new Promise((ok, fail) => waiting.push({ ok, fail })),
  };
  const line: Line = {
    current: () => ({ caller } as unknown as Connection),
    http: () => false,
    reconnect: () => Promise.resolve(undefined),
    lose: () => {},
    down: () => new GatewayError("UPSTREAM_UNAVAILABLE", "down"),
  };
  // The requests read the core's stream table and credential alone.
  const core = { streams: undefined, credential } as unknown as UpstreamCore;
  return { requests: new Requests(core, line), waiting };
}

const TERMS = { timeoutMs: 1000 };

describe("an upstream's requests in flight", () => {
  it("counts a request until its answer, and hands the answer on", async () => {
    const { requests, waiting } = harness();
    const a = requests.send("tools/call", {}, NO_CONTEXT, TERMS);
    const b = requests.send("tools/call", {}, NO_CONTEXT, TERMS);
    assert.equal(requests.inFlight, 2);
    waiting[0]!.ok({ content: [] });
    assert.deepEqual(await a, { content: [] });
    assert.equal(requests.inFlight, 1);
    waiting[1]!.fail(new GatewayError("UPSTREAM_TIMEOUT", "slow"));
    await assert.rejects(b, /slow/);
    assert.equal(requests.inFlight, 0);
  });

  it("tells a failure under a credential that needs a login as that login", async () => {
    const login = new GatewayError("UPSTREAM_UNAVAILABLE", "log in with mcp-gateway login s");
    const credential = { needsLogin: null as string | null, loginError: () => login };
    const { requests, waiting } = harness(credential);
    const first = requests.send("tools/call", {}, NO_CONTEXT, TERMS);
    waiting[0]!.fail(new GatewayError("UPSTREAM_ERROR", "401"));
    await assert.rejects(first, /401/);
    credential.needsLogin = "the refresh was refused";
    const second = requests.send("tools/call", {}, NO_CONTEXT, TERMS);
    waiting[1]!.fail(new GatewayError("UPSTREAM_ERROR", "401"));
    assert.equal(await second.catch((e) => e), login);
    assert.equal(requests.inFlight, 0);
  });

  it("counts nothing left over when the line is down before the send", async () => {
    const down = new Requests({ streams: undefined } as unknown as UpstreamCore, {
      current: () => undefined,
      http: () => false,
      reconnect: () => Promise.resolve(undefined),
      lose: () => {},
      down: () => new GatewayError("UPSTREAM_UNAVAILABLE", "is down"),
    });
    await assert.rejects(down.send("tools/call", {}, NO_CONTEXT, TERMS), /is down/);
    assert.equal(down.inFlight, 0);
  });
});
