/**
 * A token narrower than another is held to its own globs on every road: two configured tokens
 * per road, one that may call everything and one limited to a few tools. The narrow one calls
 * what its globs allow and is refused what only the wide one may call — by name, in a batch,
 * as a task on either era, inside a script or a macro, by upstream name and on a profile's
 * endpoint — and it cannot borrow the wide token's session to get more.
 */
import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import type { TestGateway } from "../_helpers/gateway.ts";
import { bearer } from "../security/_http.ts";
import { openRawSse, postMessage } from "../security/_streams.ts";
import { newTrace, serveRoads } from "./_gateway.ts";
import { narrowOf, ROADS, wideOf } from "./_roads.ts";
import { callMessage, openOn, postOn, token } from "./_wire.ts";

describe("a narrow token is held to its own globs on every road", () => {
  const gateway = serveRoads();
  let gw: TestGateway;
  before(() => void (gw = gateway()));

  ROADS.forEach((road, i) => {
    it(road.name, { timeout: 60_000 }, async () => {
      const tp = () => newTrace().traceparent;
      const wide = await road.call(gw.url, wideOf(i), road.forbidden, tp());
      assert.equal(wide.ok, true, `the wide token calls ${road.forbidden}: ${wide.message}`);
      const own = await road.call(gw.url, narrowOf(i), road.tool, tp());
      assert.equal(own.ok, true, `the narrow token calls ${road.tool}: ${own.message}`);
      const refused = await road.call(gw.url, narrowOf(i), road.forbidden, tp());
      assert.equal(refused.ok, false, `the narrow token reached ${road.forbidden}`);
      // By upstream name, a tool outside the token's globs is no tool at all (nothing to name).
      assert.match(
        refused.message,
        road.tool === "slow"
          ? new RegExp(`unknown tool "${road.forbidden}"`)
          : new RegExp(`tool "${road.forbidden}" is not allowed for token "${narrowOf(i)}"`),
      );
    });
  });

  // One session per path: every session road on it shares the door that refuses a borrower.
  const paths = [...new Set(ROADS.flatMap((r) => r.session ?? []))];
  paths.forEach((path) => {
    const i = ROADS.findIndex((r) => r.session === path);
    const road = ROADS[i]!;
    it(`a 2025 session on ${path} refuses the narrow token, batches too`, async () => {
      const sid = await openOn(gw.url, path, wideOf(i));
      const call = callMessage(3, road.forbidden, {});
      const borrowed = await postOn(gw.url, path, narrowOf(i), sid, call);
      assert.equal(borrowed.status, 403);
      const batch = await postOn(gw.url, path, narrowOf(i), sid, [call]);
      assert.equal(batch.status, 403);
      // The session is still its opener's.
      const answered = await postOn(gw.url, path, wideOf(i), sid, call);
      assert.equal(answered.status, 200);
    });
  });

  it("a legacy SSE session refuses a message the narrow token posts to it", async () => {
    const i = ROADS.findIndex((r) => r.name.includes("legacy SSE"));
    const { stream, messageUrl } = await openRawSse(gw.url, bearer(token(wideOf(i))));
    try {
      const status = await postMessage(
        messageUrl,
        callMessage(4, "echo__meta", {}),
        bearer(token(narrowOf(i))),
      );
      assert.equal(status, 403);
    } finally {
      await stream.cancel();
    }
  });
});
