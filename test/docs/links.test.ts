/**
 * The README and every page under docs/ link to each other by relative path and `#anchor`. A page
 * that moves or a heading that is renamed breaks those links silently on GitHub; this test reads
 * the Markdown as GitHub does (marked's lexer for the links, github-slugger for the anchors a
 * heading gets) and fails on every link whose file or heading is not there. A path of the
 * repository a page names in backticks (a test, a source file, a fixture) must exist too.
 */
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, it } from "node:test";
import GithubSlugger from "github-slugger";
import { marked, type Token } from "marked";
import { ROOT } from "../_helpers/gateway.ts";

/** The Markdown files whose links are checked: the README and docs/*.md. */
function pages(): string[] {
  const docs = readdirSync(join(ROOT, "docs")).filter((f) => f.endsWith(".md"));
  return [join(ROOT, "README.md"), ...docs.map((f) => join(ROOT, "docs", f))];
}

/** Every token of a document, depth first (lists, tables and inline content included). */
function* walk(tokens: readonly Token[]): Generator<Token> {
  for (const token of tokens) {
    yield token;
    const t = token as Token & {
      tokens?: Token[];
      items?: Token[];
      header?: { tokens: Token[] }[];
      rows?: { tokens: Token[] }[][];
    };
    if (t.tokens) yield* walk(t.tokens);
    if (t.items) yield* walk(t.items);
    for (const cell of t.header ?? []) yield* walk(cell.tokens);
    for (const row of t.rows ?? []) for (const cell of row) yield* walk(cell.tokens);
  }
}

/** The anchors GitHub gives the headings of a Markdown text. */
function anchorsOf(markdown: string): Set<string> {
  const slugger = new GithubSlugger();
  const anchors = new Set<string>();
  for (const token of walk(marked.lexer(markdown))) {
    if (token.type === "heading") anchors.add(slugger.slug((token as { text: string }).text));
  }
  return anchors;
}

/** The relative links of a Markdown text (web addresses and mail links left out). */
function linksOf(markdown: string): string[] {
  const links: string[] = [];
  for (const token of walk(marked.lexer(markdown))) {
    if (token.type !== "link" && token.type !== "image") continue;
    const href = (token as { href: string }).href;
    if (!/^[a-z][a-z0-9+.-]*:/i.test(href)) links.push(href);
  }
  return links;
}

/** Each broken link of the page at `file` (read from `text`), as "file: link — why". */
export function brokenLinks(file: string, text: string, read = readOrNull): string[] {
  const broken: string[] = [];
  const name = relative(ROOT, file);
  for (const link of linksOf(text)) {
    const hash = link.indexOf("#");
    const path = decodeURIComponent(hash < 0 ? link : link.slice(0, hash));
    const anchor = hash < 0 ? null : decodeURIComponent(link.slice(hash + 1));
    const target = path === "" ? file : resolve(dirname(file), path);
    const targetText = path === "" ? text : read(target);
    if (targetText === null) {
      broken.push(`${name}: ${link} — no file ${relative(ROOT, target)}`);
    } else if (anchor !== null && target.endsWith(".md") && !anchorsOf(targetText).has(anchor)) {
      broken.push(`${name}: ${link} — ${relative(ROOT, target)} has no heading #${anchor}`);
    }
  }
  return broken;
}

/** A file's text; "" for a folder (it exists, with no headings); null when nothing is there. */
function readOrNull(path: string): string | null {
  if (!existsSync(path)) return null;
  return statSync(path).isDirectory() ? "" : readFileSync(path, "utf8");
}

describe("docs: every relative link and anchor resolves", () => {
  it("the checker finds a missing file, a missing heading and a good link", () => {
    const file = join(ROOT, "docs", "PAGE.md");
    const text = [
      "# Page",
      "## Code mode (`execute`)",
      "[good](#code-mode-execute) [gone](GONE.md) [bad anchor](#nowhere)",
      "| a | b |\n| - | - |\n| [in a table](OTHER.md#missing) | x |",
      "`[in code](NOT-A-LINK.md)`",
    ].join("\n\n");
    const read = (p: string) => p.endsWith("OTHER.md") ? "# Other\n" : null;
    assert.deepEqual(brokenLinks(file, text, read), [
      "docs/PAGE.md: GONE.md — no file docs/GONE.md",
      "docs/PAGE.md: #nowhere — docs/PAGE.md has no heading #nowhere",
      "docs/PAGE.md: OTHER.md#missing — docs/OTHER.md has no heading #missing",
    ]);
  });

  for (const file of pages()) {
    it(relative(ROOT, file), () => {
      assert.deepEqual(brokenLinks(file, readFileSync(file, "utf8")), []);
    });
  }
});

/** Top folders of the repository whose files the pages name as `folder/…` in backticks. */
const NAMED = /`((?:test|src|bench|deploy|packaging|scripts|examples|macros)\/[^`\s*<>{}…]+)`/g;

describe("docs: every repository path a page names exists", () => {
  for (const file of pages()) {
    it(relative(ROOT, file), () => {
      const named = [...readFileSync(file, "utf8").matchAll(NAMED)].map((m) => m[1]!);
      assert.deepEqual(named.filter((path) => !existsSync(join(ROOT, path))), []);
    });
  }
});
