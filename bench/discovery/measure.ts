/**
 * What the discovery benchmark counts: tokens (o200k, the encoding of current OpenAI models and a
 * fair stand-in for others), the tool names a `tool_search` answer ranks, and recall@k / MRR of
 * those ranks against the queries' correct tools.
 */
import { countTokens } from "gpt-tokenizer/encoding/o200k_base";

/** Tokens of a value as the model reads it: its JSON text (a string counts as itself). */
export function tokens(value: unknown): number {
  return countTokens(typeof value === "string" ? value : JSON.stringify(value));
}

/** A correct answer: the tool `tool` of the captured server `server`. */
export interface ToolRef {
  server: string;
  tool: string;
}

/**
 * The gateway names a hit may stand for, in rank order. A hit is read from the answer's
 * `structuredContent.items` (or the text block's JSON): `name` is the gateway name
 * (`server__tool`); a hit that stands for one tool offered by several servers may list them in
 * `servers` (names or `{name}`), each then counted as `server__<tool part of name>`.
 */
export function rankedNames(result: Record<string, unknown>): string[][] {
  let data = result.structuredContent as Record<string, unknown> | undefined;
  if (!data) {
    const text = (result.content as { type: string; text?: string }[] | undefined)
      ?.find((c) => c.type === "text")?.text;
    try {
      data = text ? JSON.parse(text) as Record<string, unknown> : undefined;
    } catch {
      data = undefined;
    }
  }
  const items = (data?.items ?? data?.results ?? data?.tools ?? []) as Record<string, unknown>[];
  return items.map((item) => {
    const name = String(item.name ?? item.path ?? "");
    const names = [name];
    const servers = item.servers;
    if (Array.isArray(servers)) {
      const tool = name.includes("__") ? name.slice(name.indexOf("__") + 2) : name;
      for (const s of servers) {
        const server = typeof s === "string" ? s : String((s as { name?: unknown }).name ?? "");
        names.push(`${server}__${tool}`);
      }
    }
    return names;
  });
}

/**
 * 1-based rank of the first hit naming a correct tool, or null. `base` maps a gateway server
 * name to the captured server it replays (copies of one server map to the same base).
 */
export function firstCorrectRank(
  ranked: readonly (readonly string[])[],
  correct: readonly ToolRef[],
  base: (server: string) => string,
): number | null {
  const wanted = new Set(correct.map((c) => `${c.server}\0${c.tool}`));
  for (let i = 0; i < ranked.length; i++) {
    for (const name of ranked[i]!) {
      const cut = name.indexOf("__");
      if (cut < 0) continue;
      if (wanted.has(`${base(name.slice(0, cut))}\0${name.slice(cut + 2)}`)) return i + 1;
    }
  }
  return null;
}

/** Recall at 1, 5, 10 and the mean reciprocal rank (a miss counts 0) of a list of ranks. */
export interface RankScores {
  queries: number;
  recall1: number;
  recall5: number;
  recall10: number;
  mrr: number;
}

/** Scores of first-correct ranks (null: not in the answer); NaN for no queries. */
export function scoreRanks(ranks: readonly (number | null)[]): RankScores {
  const n = ranks.length;
  const within = (k: number) => ranks.filter((r) => r !== null && r <= k).length / n;
  const mrr = ranks.reduce<number>((sum, r) => sum + (r === null ? 0 : 1 / r), 0) / n;
  return { queries: n, recall1: within(1), recall5: within(5), recall10: within(10), mrr };
}
