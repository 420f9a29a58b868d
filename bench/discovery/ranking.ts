/**
 * The ranking half of the discovery benchmark: every task description sent as a `tool_search`
 * through the gateway, the rank of its first correct tool, recall and MRR overall and per class,
 * the round-trip latency of each search, and the size of each answer at the default limit.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { ROOT } from "../procs.ts";
import { callTool } from "./gateway.ts";
import {
  firstCorrectRank,
  rankedNames,
  type RankScores,
  scoreRanks,
  tokens,
  type ToolRef,
} from "./measure.ts";

/** How a task description relates to its tool's own words. */
export const QUERY_CLASSES = ["easy", "reworded", "ambiguous"] as const;
/** One of {@link QUERY_CLASSES}. */
export type QueryClass = typeof QUERY_CLASSES[number];

/** A task description and every tool that does it. */
export interface BenchQuery {
  id: string;
  class: QueryClass;
  query: string;
  correct: ToolRef[];
}

/**
 * The two halves of the queries: ranking changes are tuned on one and judged on the other too,
 * so a change that only fits the queries it was tuned on shows. A query's half is fixed by its
 * text (FNV-1a), not by its place in the file.
 */
export const QUERY_HALVES = ["tuning", "held-out"] as const;
/** One of {@link QUERY_HALVES}. */
export type QueryHalf = typeof QUERY_HALVES[number];

/** The half a query belongs to. */
export function queryHalf(text: string): QueryHalf {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return (h & 1) === 0 ? "tuning" : "held-out";
}

/** The task descriptions shipped with the benchmark. */
export function loadQueries(
  file = join(ROOT, "bench/discovery/queries.json"),
): BenchQuery[] {
  const queries = JSON.parse(readFileSync(file, "utf8")) as BenchQuery[];
  for (const q of queries) {
    if (!(QUERY_CLASSES as readonly string[]).includes(q.class) || q.correct.length === 0) {
      throw new Error(`${file}: query ${q.id} has class "${q.class}" or no correct tool`);
    }
  }
  return queries;
}

/** What one pass of the queries over a gateway measured. */
export interface RankingRun {
  all: RankScores;
  byClass: Record<QueryClass, RankScores>;
  byHalf: Record<QueryHalf, RankScores>;
  /** Round trip of each `tool_search` over MCP, in ms. */
  latenciesMs: number[];
  /** Tokens of each answer at the default limit (no `limit` argument); empty when not asked. */
  answerTokens: number[];
  /** The queries whose correct tools were not in the first 10, for reading. */
  misses: { id: string; query: string; top: string[] }[];
}

/**
 * Sends each query (limit 10, so recall@10 is defined whatever the default) and, with
 * `defaultAnswers`, once more without a limit to size the answer an agent gets by default.
 */
export async function runQueries(
  client: Client,
  queries: readonly BenchQuery[],
  base: (server: string) => string,
  defaultAnswers: boolean,
): Promise<RankingRun> {
  const ranks = new Map<QueryClass, (number | null)[]>(QUERY_CLASSES.map((c) => [c, []]));
  const all: (number | null)[] = [];
  const halves = new Map<QueryHalf, (number | null)[]>(QUERY_HALVES.map((h) => [h, []]));
  const latenciesMs: number[] = [];
  const answerTokens: number[] = [];
  const misses: RankingRun["misses"] = [];
  for (const q of queries) {
    const t0 = performance.now();
    const result = await callTool(client, "tool_search", { query: q.query, limit: 10 });
    latenciesMs.push(performance.now() - t0);
    if (result.isError) {
      throw new Error(`tool_search "${q.query}" failed: ${JSON.stringify(result)}`);
    }
    const ranked = rankedNames(result);
    const rank = firstCorrectRank(ranked.slice(0, 10), q.correct, base);
    all.push(rank);
    ranks.get(q.class)!.push(rank);
    halves.get(queryHalf(q.query))!.push(rank);
    if (rank === null) {
      misses.push({
        id: q.id,
        query: q.query,
        top: ranked.slice(0, 3).map((n) => n[0]!),
      });
    }
    if (defaultAnswers) {
      const answer = await callTool(client, "tool_search", { query: q.query });
      answerTokens.push(tokens(visible(answer)));
    }
  }
  const byClass = Object.fromEntries(
    QUERY_CLASSES.map((c) => [c, scoreRanks(ranks.get(c)!)]),
  ) as Record<QueryClass, RankScores>;
  const byHalf = Object.fromEntries(
    QUERY_HALVES.map((h) => [h, scoreRanks(halves.get(h)!)]),
  ) as Record<QueryHalf, RankScores>;
  return { all: scoreRanks(all), byClass, byHalf, latenciesMs, answerTokens, misses };
}

/** The part of a tool result a client hands the model: its content and structured content. */
export function visible(result: Record<string, unknown>): Record<string, unknown> {
  const { content, structuredContent, isError } = result;
  return {
    content,
    ...(structuredContent === undefined ? {} : { structuredContent }),
    ...(isError ? { isError } : {}),
  };
}
