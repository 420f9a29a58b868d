/**
 * A door's whole contract with the core is one `ClientChannel`: a channel written here (as a
 * new door would write it) is all the core is given, and what an upstream asks during a call
 * reaches it — with the asking server named — and its answer goes back; the channel keys the
 * call's own process of an `isolation: session` server, so another channel gets another one.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { parseConfig } from "../../src/config/mod.ts";
import { Gateway } from "../../src/gateway/gateway.ts";
import { type ClientChannel, LOCAL_CALLER } from "../../src/gateway/types.ts";
import { createLogger } from "../../src/shared/log.ts";
import { nodeServer, textOf } from "../_helpers/gateway.ts";

const YAML = `servers:\n  rooted: ${
  nodeServer("changing.mjs", "isolation: session, roots: client")
}\n`;

/** A channel whose client answers `roots/list` with one root named for `who`. */
function channelOf(who: string, asked: { method: string; server: string }[]): ClientChannel {
  return {
    era: "modern",
    askable: true,
    closed: false,
    lasting: false,
    capabilities: { roots: {} },
    request(method, _params, options) {
      asked.push({ method, server: options?.server ?? "" });
      return Promise.resolve({ roots: [{ uri: `file:///roots/${who}`, name: who }] });
    },
    notify() {},
  };
}

describe("the client channel is the core's one way to a call's client", () => {
  let gateway: Gateway;
  before(async () => {
    gateway = new Gateway(parseConfig(YAML), createLogger("test"));
    await gateway.start();
  });
  after(() => gateway.stop());

  it("an upstream's request during a call reaches the call's channel, and its answer returns", async () => {
    const asked: { method: string; server: string }[] = [];
    const r = await gateway.callTool("rooted__roots", {}, {
      caller: LOCAL_CALLER,
      client: channelOf("one", asked),
    });
    assert.match(textOf(r), /file:\/\/\/roots\/one/);
    assert.deepEqual(asked, [{ method: "roots/list", server: "rooted" }]);
  });

  it("each channel has its own process of an isolated server, asked its own roots", async () => {
    const a: { method: string; server: string }[] = [];
    const b: { method: string; server: string }[] = [];
    const [ra, rb] = await Promise.all([
      gateway.callTool("rooted__roots", {}, { caller: LOCAL_CALLER, client: channelOf("a", a) }),
      gateway.callTool("rooted__roots", {}, { caller: LOCAL_CALLER, client: channelOf("b", b) }),
    ]);
    assert.match(textOf(ra), /file:\/\/\/roots\/a/);
    assert.match(textOf(rb), /file:\/\/\/roots\/b/);
    assert.equal(a.length, 1);
    assert.equal(b.length, 1);
  });
});
