/**
 * The page-fault tool's readers: a JITDump's code loads are read with their names and found by
 * address, and sampled stacks are counted by their nearest named frames.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { groupStacks, nameAt, readJitDump } from "../bench/faults.ts";

/** A JITDump: a 40-byte header, then one code load per entry and a record of another kind. */
function jitDump(loads: [bigint, bigint, string][]): Uint8Array {
  const records: Uint8Array[] = [];
  const header = new Uint8Array(40);
  new DataView(header.buffer).setUint32(0, 0x4a695444, true);
  new DataView(header.buffer).setUint32(8, 40, true);
  records.push(header);
  for (const [start, size, name] of loads) {
    const text = new TextEncoder().encode(`${name}\0`);
    const record = new Uint8Array(56 + text.length + 4); // 4 bytes of "code" after the name
    const view = new DataView(record.buffer);
    view.setUint32(0, 0, true); // a code load
    view.setUint32(4, record.length, true);
    view.setBigUint64(24, start, true); // vma
    view.setBigUint64(32, start, true);
    view.setBigUint64(40, size, true);
    record.set(text, 56);
    records.push(record);
  }
  const other = new Uint8Array(24); // a code move: skipped
  new DataView(other.buffer).setUint32(0, 1, true);
  new DataView(other.buffer).setUint32(4, 24, true);
  records.push(other);
  const out = new Uint8Array(records.reduce((n, r) => n + r.length, 0));
  let at = 0;
  for (const r of records) {
    out.set(r, at);
    at += r.length;
  }
  return out;
}

describe("the page-fault tool", () => {
  const loads = readJitDump(jitDump([
    [0x7000n, 0x100n, "JSC-DFG: push#Ab"],
    [0x5000n, 0x80n, "JSC-Baseline: joined#Cd"],
  ]));

  it("reads each code load of a JITDump with its address, size and name, in address order", () => {
    assert.deepEqual(loads.map((l) => l.name), ["JSC-Baseline: joined#Cd", "JSC-DFG: push#Ab"]);
    assert.equal(loads[1]!.size, 0x100n);
  });

  it("names an address inside a load and nothing outside every load", () => {
    assert.equal(nameAt(loads, 0x7000n), "JSC-DFG: push#Ab");
    assert.equal(nameAt(loads, 0x70ffn), "JSC-DFG: push#Ab");
    assert.equal(nameAt(loads, 0x7100n), undefined);
    assert.equal(nameAt(loads, 0x5040n), "JSC-Baseline: joined#Cd");
    assert.equal(nameAt(loads, 0x4fffn), undefined);
  });

  it("counts stacks by their nearest named frames, and a stack with none by its native callers", () => {
    const script = [
      "\t16da26\n\t222616e\n\t5010\n\t7010\n",
      "\t16da26\n\t222616e\n\t5011\n\t7012\n",
      "\t16db20\n\t31e59b4\n\t31e3f7b\n\t1843101\n",
    ].join("\n");
    const { samples, groups } = groupStacks(script, loads);
    assert.equal(samples, 3);
    assert.equal(groups.get("JSC-Baseline: joined#Cd < JSC-DFG: push#Ab"), 2);
    assert.equal(groups.get("(no script frame; native 31e59b4 < 31e3f7b)"), 1);
  });

  it("counts a stack under the thread named above it, whatever the name looks like", () => {
    const script = [
      "JSCWarmUp \n\t16da26\n\t5010\n\t7010\n",
      "6 \n\t16da26\n\t5011\n\t7012\n",
      "bun \n\t16db20\n\t31e59b4\n\t31e3f7b\n",
    ].join("\n");
    const { samples, groups } = groupStacks(script, loads);
    assert.equal(samples, 3);
    assert.equal(groups.get("[JSCWarmUp] JSC-Baseline: joined#Cd < JSC-DFG: push#Ab"), 1);
    assert.equal(groups.get("[6] JSC-Baseline: joined#Cd < JSC-DFG: push#Ab"), 1);
    assert.equal(groups.get("[bun] (no script frame; native 31e59b4 < 31e3f7b)"), 1);
  });
});
