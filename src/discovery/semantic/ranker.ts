/**
 * Semantic ranking beside the lexical one: each tool's text is embedded once (per catalog change,
 * and only the tools not seen before), the vectors are kept in the state folder so a restart does
 * not ask again, and each query is embedded per search. When the endpoint is down the search is
 * lexical alone: the outage is logged once, counted, and retried after a pause rather than on
 * every search.
 */
import { Buffer } from "node:buffer";
import { sha256Hex } from "../../runtime/hash.ts";
import type { EmbeddingsConfig } from "../../config/mod.ts";
import type { Logger } from "../../shared/log.ts";
import { readStateFile, statePath, writeStateFile } from "../../state/mod.ts";
import type { ToolDescriptor } from "../types.ts";
import { embed } from "./client.ts";

/** Texts per embeddings request. */
const BATCH = 64;
/** Characters of a tool's text that are embedded. */
const MAX_TEXT = 2000;
/** Vectors kept (in memory and in the state file). */
const MAX_VECTORS = 50_000;
/** After a failure, the endpoint is not asked again for this long. */
const RETRY_AFTER_MS = 30_000;

/** Counters of the semantic ranking, for metrics. */
export interface SemanticStats {
  /** Searches answered by the lexical ranking alone because the endpoint failed. */
  fallbacks: number;
  /** Texts embedded (tools and queries). */
  embedded: number;
}

/** Embeds tools and queries for one configured endpoint. */
export class SemanticRanker {
  readonly stats: SemanticStats = { fallbacks: 0, embedded: 0 };
  #config: EmbeddingsConfig;
  #log: Logger;
  #file: string | null;
  #vectors = new Map<string, Float32Array>();
  #keys = new WeakMap<ToolDescriptor, string>();
  #loaded = false;
  #downUntil = 0;
  #reported = false;

  /** `stateDir`: where the vectors are kept (`null`: memory only). */
  constructor(config: EmbeddingsConfig, log: Logger, stateDir: string | null) {
    this.#config = config;
    this.#log = log;
    const id = sha256(`${config.url}\n${config.model}`).slice(0, 16);
    this.#file = stateDir === null ? null : statePath(stateDir, `embeddings/${id}.json`);
  }

  /**
   * Docs ranked by similarity to `query` (positions in `docs`), best first, at most `k`, only
   * those `allowed` (when given), with their cosine similarities; `null` when the endpoint cannot
   * answer now.
   */
  async rank(
    query: string,
    docs: readonly ToolDescriptor[],
    allowed: ArrayLike<number> | null,
    k: number,
  ): Promise<{ ids: number[]; scores: number[] } | null> {
    if (Date.now() < this.#downUntil) return this.#fallback();
    try {
      const vectors = await this.#toolVectors(docs);
      const [q] = await this.#embed([query.slice(0, MAX_TEXT)]);
      const candidates = allowed === null ? docs.keys() : Array.from(allowed);
      const scored: [number, number][] = [];
      for (const d of candidates) {
        const v = vectors[d];
        if (v !== undefined && q !== undefined) scored.push([d, dot(q, v)]);
      }
      scored.sort((a, b) => b[1] - a[1] || a[0] - b[0]);
      if (this.#reported) {
        this.#reported = false;
        this.#log.info("discovery: the embeddings endpoint answers again");
      }
      const top = scored.slice(0, k);
      return { ids: top.map(([d]) => d), scores: top.map(([, c]) => c) };
    } catch (err) {
      this.#downUntil = Date.now() + RETRY_AFTER_MS;
      if (!this.#reported) {
        this.#reported = true;
        this.#log.warn("discovery: semantic ranking off, lexical only", {
          reason: err instanceof Error ? err.message : String(err),
        });
      }
      return this.#fallback();
    }
  }

  #fallback(): null {
    this.stats.fallbacks++;
    return null;
  }

  // One vector per doc, embedding only texts not seen before (in memory or in the state file).
  async #toolVectors(docs: readonly ToolDescriptor[]): Promise<Float32Array[]> {
    this.#load();
    const keys = docs.map((doc) => this.#keyOf(doc));
    const missing = [...new Set(keys.filter((key) => !this.#vectors.has(key)))];
    const texts = missing.length === 0
      ? new Map<string, string>()
      : new Map(docs.map((doc, i) => [keys[i] as string, textOf(doc)]));
    for (let i = 0; i < missing.length; i += BATCH) {
      const batch = missing.slice(i, i + BATCH);
      const vectors = await this.#embed(batch.map((key) => texts.get(key) as string));
      batch.forEach((key, j) => this.#remember(key, vectors[j] as Float32Array));
    }
    if (missing.length > 0) this.#save();
    return keys.map((key) => this.#vectors.get(key) as Float32Array);
  }

  // A descriptor stands for one version of a tool (a changed tool gets a new one), so its key
  // is hashed once rather than on every search — over a large catalog the hashing would
  // otherwise cost more than the similarity itself.
  #keyOf(doc: ToolDescriptor): string {
    let key = this.#keys.get(doc);
    if (key === undefined) {
      key = sha256(`${this.#config.model}\n${textOf(doc)}`);
      this.#keys.set(doc, key);
    }
    return key;
  }

  async #embed(texts: readonly string[]): Promise<Float32Array[]> {
    const out = await embed(this.#config, texts);
    this.stats.embedded += texts.length;
    return out;
  }

  #remember(key: string, vector: Float32Array): void {
    if (this.#vectors.size >= MAX_VECTORS) {
      const oldest = this.#vectors.keys().next().value;
      if (oldest !== undefined) this.#vectors.delete(oldest);
    }
    this.#vectors.set(key, vector);
  }

  #load(): void {
    if (this.#loaded || this.#file === null) return;
    this.#loaded = true;
    try {
      const saved = readStateFile(this.#file) as { vectors?: Record<string, unknown> } | undefined;
      for (const [key, value] of Object.entries(saved?.vectors ?? {})) {
        if (typeof value !== "string" || !/^[0-9a-f]{64}$/.test(key)) continue;
        const bytes = Buffer.from(value, "base64");
        if (bytes.byteLength === 0 || bytes.byteLength % 4 !== 0) continue;
        this.#remember(key, new Float32Array(new Uint8Array(bytes).buffer));
      }
    } catch (err) {
      this.#log.warn("discovery: stored embeddings unreadable, computing them again", {
        reason: err instanceof Error ? err.message : String(err),
      });
    }
  }

  #save(): void {
    if (this.#file === null) return;
    const vectors: Record<string, string> = {};
    for (const [key, v] of this.#vectors) {
      vectors[key] = Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString("base64");
    }
    try {
      writeStateFile(this.#file, { model: this.#config.model, vectors }, { mode: 0o644 });
    } catch (err) {
      this.#log.warn("discovery: cannot keep embeddings in the state folder", {
        reason: err instanceof Error ? err.message : String(err),
      });
    }
  }
}

/** What is embedded of a tool: its name, title and description. */
function textOf(doc: ToolDescriptor): string {
  const name = doc.localName ?? doc.name;
  const title = doc.title === undefined ? "" : `${doc.title}\n`;
  return `${name}\n${title}${doc.description ?? ""}`.slice(0, MAX_TEXT);
}

function dot(a: Float32Array, b: Float32Array): number {
  if (a.length !== b.length) return -Infinity;
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += (a[i] as number) * (b[i] as number);
  return sum;
}

function sha256(text: string): string {
  return sha256Hex(text);
}
