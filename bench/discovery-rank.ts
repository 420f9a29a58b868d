/**
 * The ranking of the discovery benchmark alone, in this process, in a second: the captured
 * catalog indexed with the gateway's own search index (descriptors made as the gateway makes
 * them), every task description searched, recall@1/5/10 and MRR per class and per half. For
 * trying a ranking change; `npm run bench:discovery` stays the measure of record (it goes
 * through the real gateway over MCP).
 *
 * `bun bench/discovery-rank.ts [--copies=N] [--misses] [--json] [--ranks]`
 *
 * `--embeddings` ranks a second time with the gateway's fused search: a real embedding model
 * (`bench/discovery/embedder.ts`) behind an embeddings endpoint, the gateway's own semantic
 * ranker and fusion, and prints both tables (`--fuse-depth=N`, `--semantic-weight=W` try other
 * settings).
 */
import {
  buildSearchIndex,
  type FuseSettings,
  searchFused,
  type SearchIndex,
  type SearchResult,
  SemanticRanker,
  type ToolDescriptor,
} from "../src/discovery/mod.ts";
import { createLogger } from "../src/shared/log.ts";
import { EMBEDDER_MODEL, startEmbedder } from "./discovery/embedder.ts";
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

/** One way of answering a search: the lexical index alone, or fused with embeddings. */
type Search = (query: string) => Promise<SearchResult>;

/** Scores per group ("all", each class, each half, each class within each half). */
async function rankQueries(
  search: Search,
  queries: readonly BenchQuery[],
): Promise<{ scores: Map<string, RankScores>; misses: string[]; ranks: string[] }> {
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
    const result = await search(q.query);
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

/** The fused search over `index`, with a real model behind a local embeddings endpoint. */
async function fusedSearch(index: SearchIndex, settings: FuseSettings) {
  const embedder = await startEmbedder();
  const config = { url: embedder.url, model: EMBEDDER_MODEL, apiKey: null, timeoutMs: 600_000 };
  const ranker = new SemanticRanker(config, createLogger("bench"), null);
  const search: Search = async (query) => {
    const fused = await searchFused(index, ranker, query, { limit: 10 }, settings);
    if (fused === null) throw new Error(`the embeddings endpoint failed on "${query}"`);
    return fused;
  };
  return { search, embedder };
}

function printScores(title: string, scores: Map<string, RankScores>): void {
  const keys = ["all", ...QUERY_HALVES, ...QUERY_CLASSES].flatMap((k) =>
    (QUERY_CLASSES as readonly string[]).includes(k)
      ? [k, ...QUERY_HALVES.map((h) => `${k}/${h}`)]
      : [k]
  );
  console.log(`${title}\ngroup                 n    r@1    r@5   r@10    MRR`);
  for (const key of keys) {
    const s = scores.get(key);
    if (s === undefined) continue;
    const cells = [s.recall1, s.recall5, s.recall10, s.mrr].map((x) => fmt(x, 3).padStart(6));
    console.log(`${key.padEnd(20)} ${String(s.queries).padStart(3)} ${cells.join(" ")}`);
  }
}

await main();

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const flag = (name: string) =>
    args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
  const copies = Number(flag("copies") ?? 1);
  const index = buildSearchIndex(catalogDescriptors(copies));
  const queries = loadQueries();
  const runs: [string, Awaited<ReturnType<typeof rankQueries>>][] = [[
    "BM25 alone",
    await rankQueries((query) => Promise.resolve(index.search(query, { limit: 10 })), queries),
  ]];
  if (args.includes("--embeddings")) {
    const settings: FuseSettings = {
      ...(flag("fuse-depth") === undefined ? {} : { depth: Number(flag("fuse-depth")) }),
      ...(flag("semantic-weight") === undefined
        ? {}
        : { semanticWeight: Number(flag("semantic-weight")) }),
    };
    const { search, embedder } = await fusedSearch(index, settings);
    try {
      const t0 = performance.now();
      const run = await rankQueries(search, queries);
      const computed = embedder.stats().reduce((n, r) => n + r.computed, 0);
      process.stderr.write(
        `fused: ${fmt((performance.now() - t0) / 1000, 1)} s, ${computed} texts computed by ` +
          `the model (the rest from its cache)\n`,
      );
      runs.push([`fused with ${EMBEDDER_MODEL} (${JSON.stringify(settings)})`, run]);
    } finally {
      await embedder.stop();
    }
  }
  for (const [title, { scores, misses, ranks }] of runs) {
    if (args.includes("--ranks")) {
      for (const r of ranks) console.log(r);
    } else if (args.includes("--json")) {
      console.log(JSON.stringify({ run: title, ...Object.fromEntries(scores) }));
    } else {
      printScores(title, scores);
      if (args.includes("--misses")) { for (const m of misses) console.log(m); }
    }
  }
  process.exit(0);
}
