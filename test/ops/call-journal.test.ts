/**
 * The call journal behind the status page's recent calls keeps what the page shows and never a
 * call's arguments or result: it used to hold the whole record, so the last 50 results (8 MB
 * each, under large payloads) and any secret in arguments stayed in memory.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { CallRecord } from "../../src/gateway/mod.ts";
import { CallJournal } from "../../src/ops/call-journal.ts";
import { createLogger, setLogLevel } from "../../src/shared/log.ts";

setLogLevel("silent");

const call = (i: number, extra: Partial<CallRecord> = {}): CallRecord => ({
  kind: "tool",
  name: `srv__tool${i}`,
  server: "srv",
  tokenName: "alice",
  sessionId: "s-1",
  profile: null,
  era: "legacy",
  scriptDepth: 0,
  durationMs: 1.5,
  outcome: "ok",
  at: 1_700_000_000_000 + i,
  args: { password: "hunter2" },
  result: { content: [{ type: "text", text: "x".repeat(1_000_000) }] },
  filters: [],
  ...extra,
});

describe("call journal", () => {
  it("keeps each call's metadata, newest first, without its arguments or result", () => {
    const journal = new CallJournal(createLogger("calls"), 3);
    for (let i = 1; i <= 5; i++) journal.record(call(i));
    const recent = journal.recent();
    assert.deepEqual(recent.map((c) => c.name), ["srv__tool5", "srv__tool4", "srv__tool3"]);
    for (const c of recent) {
      assert.ok(!("args" in c), "no arguments kept");
      assert.ok(!("result" in c), "no result kept");
      assert.doesNotMatch(JSON.stringify(c), /hunter2|xxxx/);
    }
    const { args: _a, result: _r, ...rest } = call(5);
    assert.deepEqual(recent[0], rest);
  });

  it("keeps every other member of the record, optional ones included", () => {
    // `Required<CallRecord>`: a member added to the record later must be added here (tsc fails
    // otherwise), and the journal, which copies members by name, must then keep it.
    const full: Required<CallRecord> = {
      ...call(7),
      outcome: "error",
      error: "boom",
      code: "UPSTREAM_UNAVAILABLE",
      args: { password: "hunter2" },
      result: { content: [] },
      filters: ["secrets"],
    };
    const journal = new CallJournal(createLogger("calls"));
    journal.record(full);
    const { args: _a, result: _r, ...rest } = full;
    assert.deepEqual(journal.recent()[0], rest);
  });

  it("keeps a failed call's error and code", () => {
    const journal = new CallJournal(createLogger("calls"));
    journal.record(call(1, { outcome: "error", error: "boom", code: "UPSTREAM_UNAVAILABLE" }));
    const [c] = journal.recent();
    assert.equal(c!.error, "boom");
    assert.equal(c!.code, "UPSTREAM_UNAVAILABLE");
    assert.equal(c!.outcome, "error");
  });
});
