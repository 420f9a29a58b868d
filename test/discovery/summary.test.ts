import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { MAX_SUMMARY, summarize } from "../../src/discovery/mod.ts";

describe("one-line summaries of descriptions", () => {
  test("the first sentence is kept, the rest dropped", () => {
    assert.equal(
      summarize("Read a file. Handles encodings. Use head for the first lines."),
      "Read a file.",
    );
  });

  test("abbreviations and version numbers do not end a sentence", () => {
    assert.equal(
      summarize("Search files, e.g. by glob or v1.2 syntax. More text."),
      "Search files, e.g. by glob or v1.2 syntax.",
    );
  });

  test("only the first non-empty line counts, without its Markdown markers", () => {
    assert.equal(summarize("\n\n## Create issue\nOpens a new issue."), "Create issue");
    assert.equal(summarize("- List pods\n- in a namespace"), "List pods");
  });

  test("a long sentence is cut at a word boundary with an ellipsis", () => {
    const long = `Fetch ${"the remote page content ".repeat(20)}now.`;
    const s = summarize(long);
    assert.ok(s.length <= MAX_SUMMARY, `${s.length}`);
    assert.ok(s.endsWith("…"));
    assert.ok(long.startsWith(s.slice(0, -1)));
    assert.ok(!s.slice(0, -1).endsWith(" "));
  });

  test("a missing or blank description summarises as empty", () => {
    assert.equal(summarize(undefined), "");
    assert.equal(summarize("  \n "), "");
  });
});
