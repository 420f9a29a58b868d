import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { suggestNames } from "../../src/discovery/mod.ts";
import { CATALOG } from "./_catalog.ts";

const ALL = CATALOG.map((t) => t.name);

describe("tool name suggestions", () => {
  test("a typo suggests the intended name first", () => {
    assert.equal(suggestNames("filesystem__raed_file", ALL)[0], "filesystem__read_file");
  });

  test("a name missing its server prefix suggests the prefixed name first", () => {
    assert.equal(suggestNames("read_graph", ALL)[0], "memory__read_graph");
  });

  test("a name in the wrong case suggests the real spelling first", () => {
    assert.equal(suggestNames("GitHub__Search_Issues", ALL)[0], "github__search_issues");
  });

  test("a misspelt word in a short name still finds its tool", () => {
    assert.ok(suggestNames("serch_nodes", ALL).includes("memory__search_nodes"));
  });

  test("a name like nothing in the catalog gets no suggestions", () => {
    assert.deepEqual(suggestNames("qqqq_zzzz", ALL), []);
    assert.deepEqual(suggestNames("", ALL), []);
  });

  test("at most three names are suggested by default and max is respected", () => {
    assert.equal(suggestNames("filesystem__read", ALL).length, 3);
    assert.equal(suggestNames("filesystem__read", ALL, 1).length, 1);
    assert.deepEqual(suggestNames("filesystem__read", ALL, 0), []);
  });

  test("equally close names are suggested in name order", () => {
    assert.deepEqual(suggestNames("x__tool", ["z__tool", "y__tool"], 2), ["y__tool", "z__tool"]);
  });

  test("duplicate candidates are suggested once", () => {
    assert.deepEqual(suggestNames("echo", ["a__echo", "a__echo"]), ["a__echo"]);
  });
});
