/**
 * The ranking of the discovery benchmark alone, in this process, in a second: the captured
 * catalog indexed with the gateway's own search index (descriptors made as the gateway makes
 * them), every task description searched, recall@1/5/10 and MRR per class and per half. For
 * trying a ranking change; `npm run bench:discovery` stays the measure of record (it goes
 * through the real gateway over MCP).
 *
 * `bun bench/discovery-rank.ts [--copies=N] [--misses] [--json] [--ranks]`
 */
import { buildSearchIndex, type ToolDescriptor } from "../src/discovery/mod.ts";
import { fmt } from "./stats.ts";
import { loadCatalog } from "./discovery/catalog.ts";
import { firstCorrectRank, type RankScores, scoreRanks } from "./discovery/measure.ts";
import {
  type BenchQuery,
  loadQueries,
  QUERY_CLASSES,
  QUERY_HALVES,
  queryHalf,
} from "./discovery/ranking.ts";

/** The gateway's separator between a server's name and its tool's. */
const SEPARATOR = "__";

/** Every captured tool, `copies` times (`<server>-<k>` from the second copy on), as descriptors. */
function catalogDescriptors(copies = 1): ToolDescriptor[] {
  const out: ToolDescriptor[] = [];
  for (let k = 1; k <= copies; k++) {
    for (const s of loadCatalog()) {
      const server = k === 1 ? s.name : `${s.name}-${k}`;
      for (const tool of s.tools) {
        const title = tool.title ?? tool.annotations?.title;
        out.push({
          name: `${server}${SEPARATOR}${tool.name}`,
          server,
          description: tool.description ?? "",
          inputSchema: tool.inputSchema,
          localName: tool.name,
          ...(title === undefined ? {} : { title }),
        });
      }
    }
  }
  return out;
}

/** Scores per group ("all", each class, each half, each class within each half). */
function rankQueries(
  tools: readonly ToolDescriptor[],
  queries: readonly BenchQuery[],
): { scores: Map<string, RankScores>; misses: string[]; ranks: string[] } {
  const index = buildSearchIndex(tools);
  const groups = new Map<string, (number | null)[]>();
  const add = (key: string, rank: number | null) => {
    const list = groups.get(key) ?? [];
    list.push(rank);
    groups.set(key, list);
  };
  const misses: string[] = [];
  const ranks: string[] = [];
  const base = (server: string) => server.replace(/-\d+$/, "");
  for (const q of queries) {
    const result = index.search(q.query, { limit: 10 });
    const ranked = result.items.map((item) => [
      item.name,
      ...(item.servers ?? []).map((s) => `${s}${SEPARATOR}${item.name.split(SEPARATOR)[1]}`),
    ]);
    const rank = firstCorrectRank(ranked, q.correct, base);
    const half = queryHalf(q.query);
    for (const key of ["all", q.class, half, `${q.class}/${half}`]) add(key, rank);
    ranks.push(`${q.id} ${rank ?? "-"} "${q.query}"`);
    if (rank === null || rank > 5) {
      const want = q.correct.map((c) => c.tool).join("|");
      const top = result.items.slice(0, 3).map((i) => i.name).join(", ");
      misses.push(`${q.id} ${half} r=${rank ?? "-"} "${q.query}" want ${want} → ${top}`);
    }
  }
  return {
    scores: new Map([...groups].map(([k, ranks]) => [k, scoreRanks(ranks)])),
    misses,
    ranks,
  };
}

main();

function main(): void {
  const args = process.argv.slice(2);
  const copies = Number(args.find((a) => a.startsWith("--copies="))?.slice(9) ?? 1);
  const { scores, misses, ranks } = rankQueries(catalogDescriptors(copies), loadQueries());
  if (args.includes("--ranks")) {
    for (const r of ranks) console.log(r);
  } else if (args.includes("--json")) {
    console.log(JSON.stringify(Object.fromEntries(scores)));
  } else {
    const keys = ["all", ...QUERY_HALVES, ...QUERY_CLASSES].flatMap((k) =>
      (QUERY_CLASSES as readonly string[]).includes(k)
        ? [k, ...QUERY_HALVES.map((h) => `${k}/${h}`)]
        : [k]
    );
    console.log("group                 n    r@1    r@5   r@10    MRR");
    for (const key of keys) {
      const s = scores.get(key);
      if (s === undefined) continue;
      const cells = [s.recall1, s.recall5, s.recall10, s.mrr].map((x) => fmt(x, 3).padStart(6));
      console.log(`${key.padEnd(20)} ${String(s.queries).padStart(3)} ${cells.join(" ")}`);
    }
    if (args.includes("--misses")) { for (const m of misses) console.log(m); }
  }
}
