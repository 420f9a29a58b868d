import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { rootOf, stem, tokenize } from "../../src/discovery/mod.ts";
import { queryWords } from "../../src/discovery/tokenize.ts";

describe("search tokenizer", () => {
  test("snake, kebab and double-underscore names split into words", () => {
    assert.deepEqual(tokenize("github__search_issues"), ["github", "search", "issue"]);
    assert.deepEqual(tokenize("list-allowed-directories"), ["list", "allowed", "directory"]);
  });

  test("camelCase splits into its parts and keeps the whole word", () => {
    assert.deepEqual(tokenize("searchIssues"), ["searchissue", "search", "issue"]);
    assert.deepEqual(tokenize("parseJSONBody"), ["parsejsonbody", "parse", "json", "body"]);
    assert.deepEqual(tokenize("GitHub"), ["github", "git", "hub"]);
  });

  test("a capitalised word is not treated as camelCase", () => {
    assert.deepEqual(tokenize("Read URLs"), ["read", "url"]);
  });

  test("punctuation separates words and stopwords are dropped", () => {
    assert.deepEqual(tokenize("Read the file (as text), then: stop!"), [
      "read",
      "file",
      "text",
      "then",
      "stop",
    ]);
  });

  test("accents are folded and non-Latin letters are kept", () => {
    assert.deepEqual(tokenize("Café Straße 東京 файл"), ["cafe", "straße", "東京", "файл"]);
  });

  test("emoji and control characters produce no terms", () => {
    assert.deepEqual(tokenize("🔥\u0000\t—"), []);
  });

  test("plurals and -ing forms stem to the base word", () => {
    const cases: [string, string][] = [
      ["files", "file"],
      ["issues", "issue"],
      ["queries", "query"],
      ["matches", "match"],
      ["indexes", "index"],
      ["processes", "process"],
      ["reading", "read"],
      ["mapping", "map"],
      ["filling", "fill"],
    ];
    for (const [word, expected] of cases) assert.equal(stem(word), expected, word);
  });

  test("words that only look plural or -ing are left alone", () => {
    for (const word of ["status", "analysis", "class", "alias", "string", "thing", "bus", "gas"]) {
      assert.equal(stem(word), word);
    }
  });
});

describe("word roots", () => {
  test("forms of one word share a root", () => {
    const groups = [
      ["invite", "invited", "invitation", "invites"],
      ["evaluate", "evaluated", "evaluation"],
      ["review", "reviewer", "reviewers", "reviewed"],
      ["query", "queries", "queried"],
      ["create", "created", "creating"],
    ];
    for (const words of groups) {
      const roots = new Set(words.map(rootOf));
      assert.equal(roots.size, 1, words.join(" "));
    }
  });

  test("different words keep different roots", () => {
    const words = ["file", "field", "list", "listen", "page", "post", "port"];
    assert.equal(new Set(words.map(rootOf)).size, words.length);
  });
});

describe("query words written together", () => {
  const known = (...terms: string[]) => (t: string) => terms.includes(t);

  test("a run the catalog holds as one word is another spelling of its first word", () => {
    const words = queryWords("roll back the release", known("rollback"));
    assert.deepEqual(words.map((w) => [w.term, w.joined]), [
      ["roll", ["rollback"]],
      ["back", []],
      ["release", []],
    ]);
  });

  test("a run of stopwords only becomes a word in its place", () => {
    const words = queryWords("so who am I logged in as", known("whoami"));
    assert.deepEqual(words.map((w) => w.term), ["whoami", "logged"]);
  });

  test("runs the catalog does not hold, or that are too short, are left apart", () => {
    assert.deepEqual(queryWords("who am I", known()), []);
    // Short glued runs are words of a catalog by chance ("doi", "mon", "im").
    assert.deepEqual(queryWords("do I", known("doi")), []);
    assert.deepEqual(queryWords("roll back").map((w) => w.joined), [[], []]);
  });
});
