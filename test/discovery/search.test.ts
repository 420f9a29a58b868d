import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { buildSearchIndex } from "../../src/discovery/mod.ts";
import type { ToolDescriptor } from "../../src/discovery/mod.ts";
import { CATALOG, names } from "./_catalog.ts";

const index = buildSearchIndex(CATALOG);

function tool(
  name: string,
  description: string,
  extra: Partial<ToolDescriptor> = {},
): ToolDescriptor {
  const cut = name.indexOf("__");
  return {
    name,
    server: cut > 0 ? name.slice(0, cut) : null,
    description,
    inputSchema: { type: "object" },
    ...extra,
  };
}

describe("tool search ranking", () => {
  test("'read file' ranks filesystem__read_file above write_file and memory__read_graph", () => {
    const ranked = names(index.search("read file", { limit: 100 }));
    assert.equal(ranked[0], "filesystem__read_file");
    assert.ok(ranked.indexOf("filesystem__write_file") > 0);
    assert.ok(ranked.indexOf("memory__read_graph") > 0);
  });

  test("a tool matching every query word outranks one matching a single word", () => {
    const ranked = names(index.search("create file"));
    assert.equal(ranked[0], "filesystem__write_file");
    assert.ok(ranked.indexOf("filesystem__create_directory") > 0);
  });

  test("a word found only in keywords finds the tool", () => {
    assert.deepEqual(names(index.search("hello")), ["greet"]);
  });

  test("a keyword match outranks the same word in another tool's description", () => {
    const small = buildSearchIndex([
      tool("a__notes", "Store notes; can also create a ticket"),
      tool("b__notes", "Store notes", { keywords: ["ticket"] }),
    ]);
    assert.deepEqual(names(small.search("ticket")), ["b__notes", "a__notes"]);
  });

  test("parameter names are searchable", () => {
    assert.deepEqual(names(index.search("sortBy")), ["filesystem__list_directory_with_sizes"]);
    assert.ok(names(index.search("entityNames")).includes("memory__delete_entities"));
  });

  test("plural and -ing forms match their base word", () => {
    assert.equal(names(index.search("searching issues"))[0], "github__search_issues");
  });

  test("a partial word matches by prefix", () => {
    const ranked = names(index.search("direc"));
    assert.ok(ranked.length > 0);
    assert.ok(ranked.every((n) => n.includes("director") || n.includes("file")), ranked.join());
  });

  test("a whole-word match outranks a prefix-only match", () => {
    const small = buildSearchIndex([
      tool("x__listbox", "Show listbox"),
      tool("x__list", "Show list"),
    ]);
    assert.deepEqual(names(small.search("list")), ["x__list", "x__listbox"]);
  });

  test("an exact full-name match comes first even when another tool scores higher lexically", () => {
    const small = buildSearchIndex([
      tool("y__x_get", "x get x get", { keywords: ["x", "get"] }),
      tool("x__get", "Fetch things"),
    ]);
    assert.equal(names(small.search("x get"))[0], "y__x_get");
    const exact = small.search("x__get");
    assert.equal(exact.items[0]?.name, "x__get");
    assert.ok((exact.items[0]?.score ?? 0) > (exact.items[1]?.score ?? 0));
  });

  test("a name is matched exactly regardless of case", () => {
    assert.equal(names(index.search("FILESYSTEM__Move_File"))[0], "filesystem__move_file");
  });

  test("the name without its server prefix counts as an exact match", () => {
    assert.equal(names(index.search("read_graph"))[0], "memory__read_graph");
  });

  test("equal scores are ordered by name", () => {
    const small = buildSearchIndex([
      tool("beta__echo", "Echo text back"),
      tool("alpha__echo", "Echo text back"),
    ]);
    const result = small.search("text");
    assert.deepEqual(names(result), ["alpha__echo", "beta__echo"]);
    assert.equal(result.items[0]?.score, result.items[1]?.score);
  });

  test("scores are rounded to three decimals", () => {
    for (const item of index.search("create new file", { limit: 100 }).items) {
      assert.equal(Math.round(item.score * 1000) / 1000, item.score);
      assert.ok(item.score > 0);
    }
  });

  test("search results carry name, server, description and score only", () => {
    const item = index.search("post message").items[0];
    assert.deepEqual(Object.keys(item ?? {}).sort(), ["description", "name", "score", "server"]);
    assert.equal(item?.server, "slack");
  });

  test("repeated queries give identical results", () => {
    assert.deepEqual(index.search("graph entities"), index.search("graph entities"));
  });
});

describe("tool search filters and paging", () => {
  test("a server filter keeps only that server's tools", () => {
    const result = index.search("file", { server: "github", limit: 100 });
    assert.deepEqual(names(result), ["github__get_file_contents"]);
    assert.equal(result.total, 1);
  });

  test("an unknown server matches nothing", () => {
    assert.deepEqual(index.search("", { server: "nope" }), {
      items: [],
      total: 0,
      has_more: false,
    });
  });

  test("total counts every match while the page holds at most limit items", () => {
    const result = index.search("file", { limit: 3 });
    assert.equal(result.items.length, 3);
    assert.ok(result.total > 3);
    assert.equal(result.has_more, true);
    assert.equal(result.next_offset, 3);
  });

  test("pages follow each other without gaps or repeats", () => {
    const all = names(index.search("file directory", { limit: 100 }));
    const paged: string[] = [];
    for (let offset = 0;;) {
      const page = index.search("file directory", { limit: 4, offset });
      paged.push(...names(page));
      if (!page.has_more) {
        assert.equal(page.next_offset, undefined);
        break;
      }
      offset = page.next_offset ?? Number.NaN;
    }
    assert.deepEqual(paged, all);
  });

  test("an offset past the end gives an empty page with the true total", () => {
    const result = index.search("file", { offset: 1000 });
    assert.deepEqual(result.items, []);
    assert.ok(result.total > 0);
    assert.equal(result.has_more, false);
  });

  test("limit defaults to 10 and is capped at 100", () => {
    const many = buildSearchIndex(
      Array.from({ length: 150 }, (_, i) => tool(`t__tool_${i}`, "A tool")),
    );
    assert.equal(many.search("tool").items.length, 10);
    assert.equal(many.search("tool", { limit: 500 }).items.length, 100);
    assert.equal(many.search("tool", { limit: 0 }).items.length, 1);
  });

  test("an empty query lists every tool alphabetically with score 0", () => {
    const result = index.search("  ", { limit: 100 });
    const expected = CATALOG.map((t) => t.name).sort();
    assert.deepEqual(names(result), expected);
    assert.equal(result.total, CATALOG.length);
    assert.ok(result.items.every((i) => i.score === 0));
  });

  test("an empty query with a server filter lists that server alphabetically", () => {
    const result = index.search("", { server: "memory", limit: 3, offset: 3 });
    assert.deepEqual(names(result), [
      "memory__delete_entities",
      "memory__delete_observations",
      "memory__delete_relations",
    ]);
    assert.equal(result.total, 9);
    assert.equal(result.next_offset, 6);
  });

  test("a query without any match returns an empty page", () => {
    assert.deepEqual(index.search("zzyzx quux"), { items: [], total: 0, has_more: false });
  });
});

describe("tool search input robustness", () => {
  test("unicode, emoji and punctuation in a query do not throw", () => {
    for (
      const q of [
        "¿qué? 🔥 read—file!!!",
        "../../etc/passwd",
        "\u0000\uffff",
        "(((",
        "\\u{1F600}",
        "ﬁle",
        "𝔣𝔦𝔩𝔢",
      ]
    ) {
      assert.doesNotThrow(() => index.search(q));
    }
    assert.equal(names(index.search("«read» — “file”!"))[0], "filesystem__read_file");
  });

  test("a query of only punctuation or stopwords matches nothing", () => {
    assert.equal(index.search("!!! ??? ...").total, 0);
    assert.equal(index.search("the of and").total, 0);
  });

  test("accented letters match their plain form", () => {
    const small = buildSearchIndex([tool("cafe__menu", "Café menu")]);
    assert.equal(small.search("CAFÉ").total, 1);
    assert.equal(small.search("cafe").total, 1);
  });

  test("words of a very long query beyond the first 64 are ignored", () => {
    const noise = Array.from({ length: 5000 }, (_, i) => `word${i}`).join(" ");
    assert.equal(names(index.search(`read file ${noise}`))[0], "filesystem__read_file");
    assert.equal(index.search(`${noise} read file`).total, 0);
  });

  test("an empty catalog answers every query with nothing", () => {
    const empty = buildSearchIndex([]);
    assert.deepEqual(empty.search("read"), { items: [], total: 0, has_more: false });
    assert.deepEqual(empty.search(""), { items: [], total: 0, has_more: false });
  });

  test("a tool without description or properties is still indexed by name", () => {
    const small = buildSearchIndex([{
      name: "ops__restart_worker",
      server: "ops",
      inputSchema: {},
    }]);
    assert.deepEqual(small.search("restart").items, [
      {
        name: "ops__restart_worker",
        server: "ops",
        description: "",
        score: small.search("restart").items[0]?.score ?? -1,
      },
    ]);
  });
});
