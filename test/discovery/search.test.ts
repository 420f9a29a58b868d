import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { buildSearchIndex } from "../../src/discovery/mod.ts";
import type { ToolDescriptor } from "../../src/discovery/mod.ts";
import { CATALOG, names } from "./_catalog.ts";
import captured from "./fixtures/name-structure.json" with { type: "json" };
import joinedFixture from "./fixtures/joined-words.json" with { type: "json" };

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

  test("extra words of a natural request do not outweigh the words that name the tool", () => {
    const small = buildSearchIndex([
      tool("gh__list_commits", "List commits of a branch in a repository"),
      tool("gh__get_repository", "Get a repository: its owner, branch, settings and details"),
      tool("gh__get_branch", "Get a branch of a repository with its latest details"),
      tool("gh__list_tags", "List tags of a repository"),
    ]);
    const ranked = names(small.search("could you show me the latest commits on the main branch"));
    assert.equal(ranked[0], "gh__list_commits");
  });

  test("question words and request filler match nothing", () => {
    const small = buildSearchIndex([
      tool("a__how_to", "How to use this server"),
      tool("b__count_issues", "Count open issues"),
    ]);
    assert.deepEqual(names(small.search("how many open issues")), ["b__count_issues"]);
    assert.equal(small.search("what can you do").total, 0);
  });

  test("a camelCase word the catalog knows is one word; an unknown one is read as its parts", () => {
    const small = buildSearchIndex([
      tool("gitlab__list_projects", "List projects on GitLab"),
      tool("git__log", "Show the git log"),
      tool("lab__results", "Lab results"),
      tool("fs__read_file", "Read a file"),
    ]);
    assert.deepEqual(names(small.search("GitLab")), ["gitlab__list_projects"]);
    assert.equal(names(small.search("readFile"))[0], "fs__read_file");
  });

  test("titles and enum values are searchable", () => {
    const small = buildSearchIndex([
      tool("x__op", "Run an operation", { title: "Archive Mailbox" }),
      tool("y__run", "Run a job", {
        inputSchema: {
          type: "object",
          properties: { mode: { type: "string", enum: ["rollback", "deploy"] } },
        },
      }),
    ]);
    assert.deepEqual(names(small.search("archive mailbox")), ["x__op"]);
    // A title adds only words its name lacks: restating the name does not count it twice.
    const titled = buildSearchIndex([
      tool("f__read_file", "Read a file", { title: "Read File (Deprecated)" }),
      tool("f__read_text_file", "Read a text file", { title: "Read Text File" }),
    ]);
    assert.equal(names(titled.search("read text file"))[0], "f__read_text_file");
    assert.deepEqual(names(titled.search("deprecated")), ["f__read_file"]);
    assert.deepEqual(names(small.search("rollback")), ["y__run"]);
  });

  test("an abbreviation of a phrase that names the catalog's tools finds them", () => {
    const small = buildSearchIndex([
      tool("gh__create_pull_request", "Open a new one from a head branch"),
      tool("gh__merge_pull_request", "Merge a head branch into its base"),
      tool("gh__list_pull_requests", "List them for a repository"),
      tool("gh__merge_branches", "Merge two branches"),
      tool("gh__create_issue", "Create an issue"),
      tool("gh__list_issues", "List issues"),
    ]);
    assert.equal(names(small.search("merge PR"))[0], "gh__merge_pull_request");
    assert.equal(names(small.search("open prs"))[0], "gh__create_pull_request");
  });

  test("a server's name is a weak field: it leans toward its tools, the action still decides", () => {
    const small = buildSearchIndex([
      tool("slack__post_message", "Post a message to a channel"),
      tool("slack__list_channels", "List channels"),
      tool("teams__post_message", "Post a message to a chat"),
    ]);
    assert.equal(names(small.search("post a message on slack"))[0], "slack__post_message");
    assert.equal(names(small.search("slack channels"))[0], "slack__list_channels");
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

describe("the names' structure reranks the best candidates", () => {
  // Real definitions (GitLab, Microsoft 365, Linear) as their servers list them, parameters
  // trimmed to names and types; tool names carry the server prefix as the gateway gives them.
  const real = buildSearchIndex(captured.map((t) => ({ ...t, name: `${t.server}__${t.name}` })));

  test("a name the request accounts for wholly outranks one with words it did not ask for", () => {
    const ranked = names(real.search("create a GitLab merge request"));
    assert.equal(ranked[0], "gitlab__create_merge_request");
  });

  test("query words side by side in a name count as a phrase", () => {
    // `create_note` holds two of the words; the phrase "merge request note" names the tool.
    const ranked = names(real.search("create a merge request note"));
    assert.equal(ranked[0], "gitlab__create_merge_request_note");
  });

  test("a server's own name in its tool names does not count against them", () => {
    // Alike but for the words the request left out: `comment`, and the server's own `linear`.
    const small = buildSearchIndex([
      tool("linear__linear_create_issue", "Create an issue", { localName: "linear_create_issue" }),
      tool("github__create_issue_comment", "Create an issue"),
      tool("github__list_issues", "List issues"),
    ]);
    assert.equal(names(small.search("create an issue"))[0], "linear__linear_create_issue");
  });
});

describe("words of the same root", () => {
  const roots = buildSearchIndex([
    tool("calendar__respond", "Answer an invitation to a meeting"),
    tool("calendar__invite_attendee", "Send an invitation to a person"),
    tool("flags__evaluate_flag", "Evaluate a feature flag for a context"),
    tool("flags__get_evaluation", "Get the evaluation of a feature flag"),
  ]);

  test("a request's word finds the catalog's words of its root", () => {
    // "invite" is no prefix of "invitation": only the shared root links them.
    assert.ok(names(roots.search("answer the invite")).includes("calendar__respond"));
    assert.ok(names(roots.search("evaluation")).includes("flags__evaluate_flag"));
  });

  test("the word as written outranks a word of its root", () => {
    assert.deepEqual(names(roots.search("evaluation")), [
      "flags__get_evaluation",
      "flags__evaluate_flag",
    ]);
  });

  test("a rare form of a common word counts for no more than the word itself", () => {
    // Alike but for one parameter: the common word `invitation` itself, or its rare form
    // `invited` (which the word is no prefix of).
    const param = (name: string) => ({
      inputSchema: { type: "object", properties: { [name]: { type: "string" } } },
    });
    const index = buildSearchIndex([
      tool("kb__send_invitation", "Send an invitation"),
      tool("kb__list_invitations", "List invitations"),
      tool("kb__revoke_invitation", "Revoke an invitation"),
      tool("kb__get_note", "Get a note", param("invited")),
      tool("kb__find_note", "Find a note", param("invitation")),
    ]);
    const ranked = names(index.search("invitation note"));
    assert.ok(ranked.indexOf("kb__find_note") < ranked.indexOf("kb__get_note"), ranked.join());
  });
});

describe("a description's first sentence", () => {
  test("a word in the first sentence counts more than the same word later", () => {
    // Equal words and lengths; by name order `a_tool` would come first.
    const index = buildSearchIndex([
      tool("s__a_tool", "Lists the folders of a drive. Can also archive them."),
      tool("s__b_tool", "Can also archive them. Lists the folders of a drive."),
    ]);
    assert.deepEqual(names(index.search("archive")), ["s__b_tool", "s__a_tool"]);
  });
});

describe("words a request writes apart and the catalog writes together", () => {
  // Real definitions (GitLab, Microsoft 365, MongoDB, Linear) as their servers list them,
  // parameters trimmed to names and types, named as the gateway names them.
  const joined = buildSearchIndex(
    (joinedFixture as { server: string; name: string }[]).map((t) => ({
      ...t,
      name: `${t.server}__${t.name}`,
      localName: t.name,
    })) as ToolDescriptor[],
  );

  test("a run of stopwords the catalog holds as one word is a word of the request", () => {
    // "who am I" is three stopwords; `whoami` is one word of the catalog.
    assert.equal(names(joined.search("who am I logged in as?"))[0], "gitlab__whoami");
  });

  test("a word with its neighbours, written together, is another spelling of it", () => {
    // "to-do" is `todo` in every To Do tool's name: read as one word, the request's other words
    // ("create a task") decide between creating a task and creating a task list.
    assert.equal(
      names(joined.search("create a task on my to-do list"))[0],
      "ms365__create-todo-task",
    );
  });
});

describe("one entry per definition", () => {
  const copy = (server: string, description = "Search issues in a repository"): ToolDescriptor => ({
    name: `${server}__search_issues`,
    server,
    localName: "search_issues",
    description,
    inputSchema: { type: "object", properties: { q: { type: "string" } } },
  });

  test("the same definition on several servers is one hit listing every server", () => {
    const small = buildSearchIndex([copy("team_a"), copy("team_b"), copy("team_c")]);
    const result = small.search("search issues");
    assert.equal(result.total, 1);
    assert.deepEqual(result.items[0]?.servers, ["team_a", "team_b", "team_c"]);
    assert.equal(result.items[0]?.name, "team_a__search_issues");
    assert.deepEqual(small.copiesOf("team_b__search_issues"), [
      "team_a__search_issues",
      "team_b__search_issues",
      "team_c__search_issues",
    ]);
  });

  test("a server filter names that server's copy", () => {
    const small = buildSearchIndex([copy("team_a"), copy("team_b")]);
    assert.deepEqual(names(small.search("issues", { server: "team_b" })), [
      "team_b__search_issues",
    ]);
    assert.equal(small.search("", { server: "team_b" }).items[0]?.name, "team_b__search_issues");
  });

  test("a different description or schema keeps the copies apart", () => {
    const other = { ...copy("team_b"), inputSchema: { type: "object" } };
    const small = buildSearchIndex([copy("team_a"), copy("team_c", "Search tickets"), other]);
    assert.equal(small.search("search").total, 3);
    assert.ok(small.search("search").items.every((i) => i.servers === undefined));
  });

  test("with every server repeated five times the first page holds distinct tools", () => {
    const base = CATALOG.filter((t) => t.server !== null && t.server !== "macros");
    const repeated = [1, 2, 3, 4, 5].flatMap((k) =>
      base.map((t) => ({
        ...t,
        name: `${t.server}${k}__${t.name.slice(t.name.indexOf("__") + 2)}`,
        server: `${t.server}${k}`,
        localName: t.name.slice(t.name.indexOf("__") + 2),
      }))
    );
    const big = buildSearchIndex(repeated);
    assert.equal(big.size, base.length);
    const page = names(big.search("read file"));
    assert.equal(new Set(page.map((n) => n.slice(n.indexOf("__")))).size, page.length);
    assert.equal(page[0], "filesystem1__read_file");
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
