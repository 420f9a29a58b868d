/**
 * The views clients listed lately are prepared again after a rebuild, off the request path: each
 * of their pages encoded, one per turn of the event loop, the most recent view first; a newer
 * rebuild or the gateway's stop makes a preparation under way give up; a view that can no
 * longer be listed is skipped; what is kept of a caller is its view, not its session or token.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { GatewayConfig } from "../../src/config/mod.ts";
import type { Catalog } from "../../src/gateway/catalog.ts";
import { DEFAULT_PAGE_SIZE } from "../../src/gateway/paging.ts";
import { PreparedList, PreparedLists } from "../../src/gateway/prepared-lists.ts";
import type { Caller, LocalTool } from "../../src/gateway/types.ts";
import type { Tool } from "../../src/shared/protocol.ts";

const tools = (n: number, prefix = "t"): Tool[] =>
  Array.from({ length: n }, (_, i) => ({ name: `${prefix}${i}`, inputSchema: { type: "object" } }));

const caller = (tokenName: string, extra: Partial<Caller> = {}): Caller => ({
  sessionId: `session-of-${tokenName}`,
  tokenName,
  toolGlobs: null,
  profile: null,
  ...extra,
});

/** A prepared list that records which pages were asked for. */
class Recorded extends PreparedList {
  readonly asked: (string | undefined)[] = [];
  override pageBytes(cursor: string | undefined, size: number): Uint8Array {
    this.asked.push(cursor);
    return super.pageBytes(cursor, size);
  }
}

/** Resolves once every turn queued so far, and `n` more, have run. */
async function turns(n: number): Promise<void> {
  for (let i = 0; i < n; i++) await new Promise((r) => setTimeout(r, 0));
}

const local = new Map<string, LocalTool>();
const config = {} as GatewayConfig;
/** Stand-ins for two catalogs: the lists hang off the object, nothing else is read. */
const before = {} as Catalog;
const after = {} as Catalog;

describe("a prepared list's cursors", () => {
  it("name every page the gateway hands out, the first with none", () => {
    const at = (n: number, size: number) => [...new PreparedList(tools(n)).cursors(size)];
    assert.deepEqual(at(5, 2), [undefined, btoa("2"), btoa("4")]);
    assert.deepEqual(at(4, 2), [undefined, btoa("2")]);
    assert.deepEqual(at(0, 2), [undefined]);
    // Following the lists' own next cursors reaches the same pages.
    const list = new PreparedList(tools(5));
    const followed: (string | undefined)[] = [];
    let cursor: string | undefined;
    do {
      followed.push(cursor);
      cursor = JSON.parse(new TextDecoder().decode(list.pageBytes(cursor, 2))).nextCursor;
    } while (cursor);
    assert.deepEqual(followed, at(5, 2));
  });
});

describe("lists prepared again after a rebuild", () => {
  it("encodes every page of the views listed lately, the most recent first", async () => {
    const lists = new PreparedLists();
    const many = tools(DEFAULT_PAGE_SIZE * 2 + 1);
    lists.get(before, caller("a"), false, local, config, () => many);
    lists.get(before, caller("b", { profile: "p" }), false, local, config, () => tools(3, "p"));
    const made: { caller: Caller; list: Recorded }[] = [];
    lists.prepareAgain((c, apps) => {
      const list = new Recorded(c.profile === "p" ? tools(3, "p") : many);
      made.push({ caller: c, list });
      assert.equal(apps, false);
      return lists.get(after, c, apps, local, config, () => list.tools as Tool[]) && list;
    });
    assert.equal(made.length, 0, "nothing is done on the rebuild's own turn");
    await turns(10);
    assert.deepEqual(made.map((m) => m.caller.profile), ["p", null]);
    assert.deepEqual(made[0]!.list.asked, [undefined]);
    assert.deepEqual(made[1]!.list.asked, [undefined, btoa("1000"), btoa("2000")]);
    assert.equal(made[1]!.list.keptPages, 3);
    // What is kept of a caller is its view: no session, no subject token.
    for (const { caller: c } of made) {
      assert.equal(c.sessionId, null);
      assert.equal(c.subjectToken, undefined);
    }
  });

  it("gives up when another rebuild comes, and on stop", async () => {
    const lists = new PreparedLists();
    lists.get(before, caller("a"), false, local, config, () => tools(DEFAULT_PAGE_SIZE * 5));
    const first = new Recorded(tools(DEFAULT_PAGE_SIZE * 5));
    lists.prepareAgain(() => first);
    await turns(3);
    const second = new Recorded(tools(DEFAULT_PAGE_SIZE * 5));
    lists.prepareAgain(() => second);
    const asked = first.asked.length;
    assert.ok(asked > 0 && asked < 5, `the first run asked for ${asked} pages`);
    await turns(10);
    assert.equal(first.asked.length, asked, "the first run went on after the second rebuild");
    assert.equal(second.asked.length, 5);
    const third = new Recorded(tools(DEFAULT_PAGE_SIZE * 5));
    lists.prepareAgain(() => third);
    await turns(2);
    lists.stop();
    const stoppedAt = third.asked.length;
    await turns(10);
    assert.equal(third.asked.length, stoppedAt);
    assert.ok(stoppedAt < 5);
    // Stopped: nothing is remembered to prepare again.
    let called = false;
    lists.prepareAgain(() => (called = true) && third);
    await turns(5);
    assert.equal(called, false);
  });

  it("skips a view that can no longer be listed, and a preparation's own listing is no client's", async () => {
    const lists = new PreparedLists();
    lists.get(before, caller("gone", { profile: "removed" }), false, local, config, () => []);
    lists.get(before, caller("kept"), true, local, config, () => tools(2));
    const kept = new Recorded(tools(2));
    let own = 0;
    const list = (c: Caller, apps: boolean) => {
      if (c.profile === "removed") throw new Error("no such profile");
      own++;
      return lists.get(after, c, apps, local, config, () => kept.tools as Tool[]) && kept;
    };
    lists.prepareAgain(list);
    await turns(10);
    assert.deepEqual(kept.asked, [undefined]);
    // Listing as the preparation did changed nothing of what clients listed lately: the next
    // rebuild prepares the same two views, the failing one included, in the same order.
    const order: (string | null)[] = [];
    lists.prepareAgain((c, apps) => {
      order.push(c.profile);
      return list(c, apps);
    });
    await turns(10);
    assert.deepEqual(order, [null, "removed"]);
    assert.equal(own, 2);
  });
});
