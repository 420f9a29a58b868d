/**
 * A client of an OpenAI-compatible embeddings endpoint (`POST /v1/embeddings` of Ollama, the
 * llama.cpp server, vLLM or a cloud API): texts in, unit vectors out. Every request is bounded
 * in time and in the size of what it reads, and the answer is checked before it is believed.
 */
import type { EmbeddingsConfig } from "../../config/mod.ts";
import { GatewayError } from "../../shared/errors.ts";

/** Largest answer read from the endpoint. */
const MAX_RESPONSE_BYTES = 64 * 1024 * 1024;
/** Largest vector accepted. */
const MAX_DIMENSIONS = 8192;

/** Embeds `inputs` (one request); each vector is normalised to unit length. */
export async function embed(
  config: EmbeddingsConfig,
  inputs: readonly string[],
): Promise<Float32Array[]> {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (config.apiKey !== null) headers.authorization = `Bearer ${config.apiKey}`;
  let response: Response;
  try {
    response = await fetch(config.url, {
      method: "POST",
      headers,
      body: JSON.stringify({ model: config.model, input: inputs }),
      signal: AbortSignal.timeout(config.timeoutMs),
    });
  } catch (err) {
    throw failure(config, `unreachable (${err instanceof Error ? err.name : "error"})`);
  }
  if (!response.ok) {
    await response.body?.cancel();
    throw failure(config, `answered HTTP ${response.status}`);
  }
  const text = await readBounded(response, config);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw failure(config, "answered something that is not JSON");
  }
  return vectorsOf(body, inputs.length, config);
}

async function readBounded(response: Response, config: EmbeddingsConfig): Promise<string> {
  const reader = response.body?.getReader();
  if (reader === undefined) return "";
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    let next: ReadableStreamReadResult<Uint8Array>;
    try {
      next = await reader.read();
    } catch {
      throw failure(config, "broke off its answer");
    }
    if (next.done) break;
    size += next.value.byteLength;
    if (size > MAX_RESPONSE_BYTES) {
      await reader.cancel();
      throw failure(config, `answered more than ${MAX_RESPONSE_BYTES} bytes`);
    }
    chunks.push(next.value);
  }
  const all = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    all.set(c, at);
    at += c.byteLength;
  }
  return new TextDecoder().decode(all);
}

function vectorsOf(body: unknown, count: number, config: EmbeddingsConfig): Float32Array[] {
  const data = (body as { data?: unknown } | null)?.data;
  if (!Array.isArray(data) || data.length !== count) {
    throw failure(
      config,
      `answered ${Array.isArray(data) ? data.length : "no"} vectors for ${count} texts`,
    );
  }
  const out: Float32Array[] = new Array(count);
  let dimensions = -1;
  data.forEach((entry, i) => {
    const { embedding, index } = (entry ?? {}) as { embedding?: unknown; index?: unknown };
    const at = typeof index === "number" && Number.isInteger(index) ? index : i;
    if (
      !Array.isArray(embedding) || embedding.length === 0 || embedding.length > MAX_DIMENSIONS ||
      (dimensions >= 0 && embedding.length !== dimensions) || at < 0 || at >= count ||
      out[at] !== undefined || !embedding.every((x) => typeof x === "number" && Number.isFinite(x))
    ) {
      throw failure(config, `answered a malformed vector at position ${i}`);
    }
    dimensions = embedding.length;
    out[at] = normalised(embedding as number[]);
  });
  return out;
}

function normalised(values: readonly number[]): Float32Array {
  let norm = 0;
  for (const x of values) norm += x * x;
  const scale = norm > 0 ? 1 / Math.sqrt(norm) : 0;
  return Float32Array.from(values, (x) => x * scale);
}

// The endpoint is named without credentials or query (which may carry a key); the key itself
// never appears.
function failure(config: EmbeddingsConfig, what: string): GatewayError {
  let where = "(invalid URL)";
  try {
    const url = new URL(config.url);
    where = `${url.protocol}//${url.host}${url.pathname}`;
  } catch {
    // keep the placeholder
  }
  return new GatewayError(
    "UPSTREAM_UNAVAILABLE",
    `embeddings endpoint ${where} (model ${config.model}) ${what}`,
  );
}
