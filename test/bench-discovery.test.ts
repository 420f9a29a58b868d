/**
 * The discovery benchmark end to end on its tiny slice (four replayed servers, three queries of
 * each class, one multi-step task, small repeated and scaled catalogs): the real gateway, replay
 * servers and an MCP client. Nothing here is timed or judged against the goals; it checks that
 * every figure of the report is measured and that the report renders every goal.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { runDiscovery } from "../bench/discovery.ts";
import { loadCatalog } from "../bench/discovery/catalog.ts";
import { firstCorrectRank, rankedNames, scoreRanks } from "../bench/discovery/measure.ts";
import { loadQueries, queryHalf } from "../bench/discovery/ranking.ts";
import {
  type DiscoveryReport,
  goalLines,
  renderDiscovery,
  replaceSection,
  SECTION_END,
  SECTION_START,
} from "../bench/discovery/report.ts";

const positive = (value: number, what: string) =>
  assert.ok(Number.isFinite(value) && value > 0, `${what} should be a positive number: ${value}`);

/** The whole run is measured inside the first test that asks for it. */
const SLOW = { timeout: 300_000 };

describe("the discovery benchmark's data", () => {
  it("names only tools the captured catalog has, in at least 150 queries of every class", () => {
    const tools = new Set(
      loadCatalog().flatMap((s) => s.tools.map((t) => `${s.name}/${t.name}`)),
    );
    const queries = loadQueries();
    assert.ok(queries.length >= 150, `${queries.length} queries`);
    for (const q of queries) {
      for (const c of q.correct) {
        assert.ok(tools.has(`${c.server}/${c.tool}`), `${q.id}: ${c.server}/${c.tool}`);
      }
    }
    const ambiguous = queries.filter((q) => q.class === "ambiguous");
    assert.ok(ambiguous.length > 0 && ambiguous.every((q) => q.correct.length > 1));
    assert.ok(new Set(loadCatalog().map((s) => s.package)).size >= 25, "25 npm packages");
    // Each half holds at least a third of the queries, of every class.
    for (const c of ["easy", "reworded", "ambiguous"] as const) {
      const of = queries.filter((q) => q.class === c);
      const tuning = of.filter((q) => queryHalf(q.query) === "tuning").length;
      assert.ok(tuning > of.length / 3 && tuning < (of.length * 2) / 3, `${c}: ${tuning}`);
    }
  });
});

describe("the discovery benchmark's ranking measures", () => {
  it("finds the first correct hit among grouped and plain hits, copies mapped to their server", () => {
    const ranked = rankedNames({
      structuredContent: {
        items: [
          { name: "gitlab-1__create_issue" },
          { name: "github-2__get_issue", servers: ["github-3"] },
          { name: "github-1__create_issue" },
        ],
      },
    });
    const base = (s: string) => s.replace(/-\d+$/, "");
    assert.equal(firstCorrectRank(ranked, [{ server: "github", tool: "create_issue" }], base), 3);
    assert.equal(firstCorrectRank(ranked, [{ server: "github", tool: "get_issue" }], base), 2);
    assert.equal(firstCorrectRank(ranked, [{ server: "slack", tool: "get_issue" }], base), null);
    assert.deepEqual(scoreRanks([1, 3, null, 7]), {
      queries: 4,
      recall1: 0.25,
      recall5: 0.5,
      recall10: 0.75,
      mrr: (1 + 1 / 3 + 1 / 7) / 4,
    });
  });
});

describe("the discovery benchmark on its tiny slice", () => {
  // Run once, by the first test that needs it: a test's own timeout bounds it (a before hook
  // would be bounded by the runner's per-test timeout, too short for a loaded machine).
  let running: Promise<DiscoveryReport> | undefined;
  const measured = () => running ??= runDiscovery({ size: "tiny", progress: () => {} });

  it("ranks every query of every class through the real gateway", SLOW, async () => {
    const report = await measured();
    assert.equal(report.servers, 4);
    assert.equal(report.queries, 9);
    for (const c of ["easy", "reworded", "ambiguous"] as const) {
      assert.equal(report.ranking.byClass[c].queries, 3, c);
      assert.equal(report.repeated.byClass[c].queries, 3, `repeated ${c}`);
    }
    const { byHalf } = report.ranking;
    assert.equal(byHalf.tuning.queries + byHalf["held-out"].queries, report.queries);
    assert.ok(report.ranking.all.recall10 > 0, "some query finds its tool");
    positive(report.searchMs.median, "search round trip");
  });

  it(
    "counts tokens of tools/list, search answers, describes and both ways of doing a task",
    SLOW,
    async () => {
      const report = await measured();
      positive(report.listTokens.search, "tools/list in search mode");
      assert.ok(report.listTokens.all > report.listTokens.search, "exposure: all lists more");
      positive(report.searchTokens.median, "tool_search answer");
      positive(report.describeTokens.median, "tool_describe answer");
      assert.equal(report.tasks.length, 1);
      const [task] = report.tasks;
      positive(task!.discovery, "discovery tokens");
      positive(task!.doing, "doing tokens");
      positive(task!.execute, "execute tokens");
      assert.ok(task!.executeOk, "the execute script ran");
    },
  );

  it(
    "measures the repeated catalog, the scaled search and the first search's memory",
    SLOW,
    async () => {
      const report = await measured();
      assert.ok(report.repeated.tools > report.tools, "copies add tools");
      assert.ok(report.scale.tools >= 1000, `${report.scale.tools} tools at scale`);
      positive(report.scale.medianMs, "in-process search");
      positive(report.scale.roundTripMs, "search over MCP at scale");
      positive(report.scale.firstSearchMs, "first search");
      assert.ok(Number.isFinite(report.scale.rssJumpBytes), "RSS read from /proc");
    },
  );

  it("prints every goal as met or missed and renders a replaceable section", SLOW, async () => {
    const report = await measured();
    const lines = goalLines(report);
    assert.equal(lines.length, 11);
    for (const line of lines) assert.match(line, /^(MET|MISSED) /);
    const section = renderDiscovery(report);
    assert.ok(section.startsWith(SECTION_START) && section.endsWith(SECTION_END));
    const once = replaceSection("# Results\n", section);
    assert.equal(replaceSection(once, section), once);
  });
});
