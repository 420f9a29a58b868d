/**
 * Browsing instead of searching: the catalog's shape for a few hundred tokens — each server with
 * its tool count and the words that set its tools apart — and then one server's tool names.
 */
import { termIndex } from "./build.ts";
import type { SearchIndex } from "./index.ts";
import { fold, tokenize } from "./tokenize.ts";
import type { ToolDescriptor } from "./types.ts";

/** Words shown per server. */
const ABOUT_WORDS = 3;

/** One server in the overview. */
export interface ServerSummary {
  /** Server name; `null` for the gateway's own tools (macros). */
  server: string | null;
  /** Distinct tools it offers. */
  tools: number;
  /** The words that most set its tools' names apart from the rest of the catalog. */
  about: string;
}

/** Every server, by name (the gateway's own tools last), with a one-line summary. */
export function browseServers(index: SearchIndex): ServerSummary[] {
  const { data } = index;
  const out: ServerSummary[] = [];
  for (const [server, docs] of data.serverDocs) {
    const own = new Set(server === null ? [] : tokenize(server));
    const counts = new Map<string, number>();
    for (const d of docs) {
      const doc = data.docs[d] as ToolDescriptor;
      for (const t of new Set(tokenize(`${doc.localName ?? doc.name} ${doc.title ?? ""}`))) {
        if (!own.has(t)) counts.set(t, (counts.get(t) ?? 0) + 1);
      }
    }
    // Frequent in this server, rare in the catalog: count × idf², so that verbs every server
    // has ("get", "list") give way to the nouns that say what the server is for.
    const weightOf = (t: string, n: number): number =>
      n * (data.idf[termIndex(data.vocabulary, t)] ?? 0) ** 2;
    const ranked = [...counts].sort((a, b) =>
      weightOf(b[0], b[1]) - weightOf(a[0], a[1]) || (a[0] < b[0] ? -1 : 1)
    );
    const repeated = ranked.filter(([, n]) => n > 1);
    const about = (repeated.length >= 2 ? repeated : ranked).slice(0, ABOUT_WORDS).map(([t]) => t);
    out.push({ server, tools: docs.length, about: about.join(", ") });
  }
  return out.sort((a, b) =>
    a.server === b.server
      ? 0
      : a.server === null
      ? 1
      : b.server === null
      ? -1
      : fold(a.server) < fold(b.server)
      ? -1
      : 1
  );
}
