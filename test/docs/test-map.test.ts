/**
 * docs/TESTS.md says, for every folder of `src/`, where its tests are. A folder added to `src/`
 * without a row there would leave a newcomer searching; this test names every such folder. (That
 * the test paths a row names exist is the documentation links test's job.)
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, it } from "node:test";
import { ROOT } from "../_helpers/gateway.ts";

/** Every folder under `src/` that holds at least one source file, as `src/…`. */
function sourceFolders(dir = join(ROOT, "src")): string[] {
  const entries = readdirSync(dir, { withFileTypes: true });
  const own = entries.some((e) => e.isFile() && e.name.endsWith(".ts"))
    ? [relative(ROOT, dir).split("\\").join("/")]
    : [];
  return [
    ...own,
    ...entries.filter((e) => e.isDirectory()).flatMap((e) => sourceFolders(join(dir, e.name))),
  ];
}

/** The `src/` folders the map's first column names. */
function mapped(): Set<string> {
  const page = readFileSync(join(ROOT, "docs/TESTS.md"), "utf8");
  return new Set([...page.matchAll(/^\|\s*`(src\/[^`]+)`\s*\|/gm)].map((m) => m[1]!));
}

describe("docs/TESTS.md", () => {
  it("names every folder of src/ and no folder that is gone", () => {
    const folders = sourceFolders().filter((f) => f !== "src");
    const rows = mapped();
    assert.deepEqual(folders.filter((f) => !rows.has(f)), [], "folders without a row");
    assert.deepEqual([...rows].filter((r) => !folders.includes(r)), [], "rows without a folder");
  });
});
