/**
 * The discovery benchmark's embedder: a real embedding model behind an OpenAI-compatible
 * `/v1/embeddings` on a loopback port, as the gateway's semantic ranker asks it. Three short
 * texts only (the model takes tens of ms a sentence); the full catalog is the benchmark's.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { type Embedder, EMBEDDER_MODEL, startEmbedder } from "../bench/discovery/embedder.ts";
import { SemanticRanker, type ToolDescriptor } from "../src/discovery/mod.ts";
import { createLogger } from "../src/shared/log.ts";

const post = async (url: string, body: unknown) => {
  const res = await fetch(url, { method: "POST", body: JSON.stringify(body) });
  return { status: res.status, body: await res.json() as Record<string, unknown> };
};

describe("the discovery benchmark's embedder", () => {
  let cache: string;
  let embedder: Embedder;
  before(async () => {
    cache = mkdtempSync(join(tmpdir(), "mcpgw-embedder-"));
    embedder = await startEmbedder(cache);
  });
  after(async () => {
    await embedder.stop();
    rmSync(cache, { recursive: true, force: true });
  });

  it("answers the OpenAI shape, in order, and keeps each vector for the next request", async () => {
    const texts = ["Mute a host", "create an issue in a repository"];
    const first = await post(embedder.url, { model: "m", input: texts });
    assert.equal(first.status, 200);
    assert.equal(first.body.object, "list");
    assert.equal(first.body.model, "m");
    const data = first.body.data as { object: string; index: number; embedding: number[] }[];
    assert.deepEqual(data.map((d) => [d.object, d.index]), [["embedding", 0], ["embedding", 1]]);
    assert.equal(data[0]!.embedding.length, 512);
    const again = await post(embedder.url, { model: "m", input: texts[1] });
    assert.deepEqual((again.body.data as typeof data)[0]!.embedding, data[1]!.embedding);
    assert.deepEqual(embedder.stats().map((r) => [r.inputs, r.computed]), [[2, 2], [1, 0]]);
    assert.equal((await post(embedder.url, { model: "m", input: [] })).status, 400);
  });

  it("ranks by meaning through the gateway's semantic ranker", async () => {
    const tool = (name: string, description: string): ToolDescriptor => ({
      name: `t__${name}`,
      server: "t",
      description,
      inputSchema: { type: "object" },
      localName: name,
    });
    const docs = [
      tool("create_issue", "Create a new issue in a repository"),
      tool("mute_host", "Mute a host so that it sends no notifications"),
    ];
    const config = { url: embedder.url, model: EMBEDDER_MODEL, apiKey: null, timeoutMs: 60_000 };
    const ranker = new SemanticRanker(config, createLogger("test"), null);
    const ranked = await ranker.rank("silence alerts for a machine", docs, null, 2);
    assert.deepEqual(ranked?.ids, [1, 0]);
  });
});
