import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { createServer, type IncomingMessage, type Server } from "node:http";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildSearchIndex, fuseScores, SemanticRanker } from "../../src/discovery/mod.ts";
import type { ToolDescriptor } from "../../src/discovery/mod.ts";
import type { EmbeddingsConfig } from "../../src/config/mod.ts";
import type { Logger } from "../../src/shared/log.ts";
import { parseConfig } from "../../src/config/mod.ts";
import { httpClient, nodeServer, startTestGateway } from "../_helpers/gateway.ts";
import { problemsOf } from "../config/_problems.ts";

// Deterministic "meaning": each concept is one dimension, and words of a concept share it, so
// "rain" and "forecast" are close while sharing no letters.
const CONCEPTS: string[][] = [
  ["weather", "forecast", "rain", "umbrella", "sunny"],
  ["message", "post", "send", "chat", "tell"],
  ["file", "read", "disk", "contents"],
  ["echo", "repeat", "parrot", "back"],
];

function vectorOf(text: string): number[] {
  const v = CONCEPTS.map((words) =>
    words.reduce((n, w) => n + (text.toLowerCase().includes(w) ? 1 : 0), 0)
  );
  return [...v, 0.01];
}

interface Endpoint {
  url: string;
  requests: { auth: string | undefined; inputs: string[] }[];
  close(): Promise<void>;
}

async function startEndpoint(): Promise<Endpoint> {
  const requests: Endpoint["requests"] = [];
  const server: Server = createServer((req: IncomingMessage, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      const { input } = JSON.parse(body) as { input: string[] };
      requests.push({ auth: req.headers.authorization, inputs: input });
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify({
        data: input.map((text, index) => ({ index, embedding: vectorOf(text) })),
      }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/v1/embeddings`,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

function recordingLog(): Logger & { lines: string[] } {
  const lines: string[] = [];
  const log = {
    lines,
    debug: () => {},
    info: (m: string) => lines.push(`info ${m}`),
    warn: (m: string, f?: object) => lines.push(`warn ${m} ${JSON.stringify(f ?? {})}`),
    error: (m: string) => lines.push(`error ${m}`),
    child: () => log,
    enabled: () => true,
  };
  return log;
}

const TOOLS: ToolDescriptor[] = [
  {
    name: "w__get_forecast",
    server: "w",
    description: "Weather forecast for a city",
    inputSchema: {},
  },
  {
    name: "c__post_message",
    server: "c",
    description: "Post a message to a chat",
    inputSchema: {},
  },
  { name: "f__read_file", server: "f", description: "Read a file from disk", inputSchema: {} },
];

describe("discovery.embeddings config", () => {
  it("is off by default, and filled in with a 5s timeout and no key when set", () => {
    assert.equal(parseConfig("", { file: "/tmp/gw/gateway.yaml" }).discovery.embeddings, null);
    const c = parseConfig(
      "discovery: { embeddings: { url: 'http://127.0.0.1:11434/v1/embeddings', model: m } }",
      { file: "/tmp/gw/gateway.yaml" },
    );
    assert.deepEqual(c.discovery.embeddings, {
      url: "http://127.0.0.1:11434/v1/embeddings",
      model: "m",
      apiKey: null,
      timeoutMs: 5000,
    });
  });

  it("names the YAML path of a bad URL or a missing model", () => {
    assert.deepEqual(problemsOf("discovery: { embeddings: { url: nope } }"), [
      "discovery.embeddings.url: expected the http(s) URL of an OpenAI-compatible " +
      '/v1/embeddings, got string "nope"',
      "discovery.embeddings.model: expected string, got nothing",
    ]);
  });
});

describe("semantic ranking through an embeddings endpoint", () => {
  let endpoint: Endpoint;
  let state: string;
  before(async () => {
    endpoint = await startEndpoint();
    state = mkdtempSync(join(tmpdir(), "mcpgw-embed-"));
  });
  after(async () => {
    await endpoint.close();
    rmSync(state, { recursive: true, force: true });
  });
  const config = (): EmbeddingsConfig => ({
    url: endpoint.url,
    model: "test-embed",
    apiKey: "sk-secret-key",
    timeoutMs: 2000,
  });

  it("finds a tool that shares no word with the query, and sends the key as a bearer", async () => {
    const ranker = new SemanticRanker(config(), recordingLog(), state);
    const ranked = await ranker.rank("will I need an umbrella tomorrow", TOOLS, null, 3);
    assert.equal(ranked?.ids[0], 0);
    assert.ok((ranked?.scores[0] ?? 0) > (ranked?.scores[1] ?? 1));
    assert.equal(buildSearchIndex(TOOLS).search("will I need an umbrella tomorrow").total, 0);
    assert.equal(endpoint.requests[0]?.auth, "Bearer sk-secret-key");
  });

  it("tool vectors are computed once and kept in the state folder across restarts", async () => {
    const before = endpoint.requests.length;
    const again = new SemanticRanker(config(), recordingLog(), state);
    await again.rank("send a chat", TOOLS, null, 3);
    // Only the query was embedded: the tools came from the state folder.
    assert.deepEqual(endpoint.requests.slice(before).map((r) => r.inputs.length), [1]);
    assert.equal(readdirSync(join(state, "embeddings")).length, 1);
  });

  it("a server filter keeps only that server's tools", async () => {
    const ranker = new SemanticRanker(config(), recordingLog(), state);
    assert.deepEqual((await ranker.rank("umbrella", TOOLS, [1, 2], 3))?.ids, [1, 2]);
  });

  it("a down endpoint gives null, is logged once without the key, and is counted", async () => {
    const log = recordingLog();
    const down = new SemanticRanker(
      { ...config(), url: "http://127.0.0.1:9/v1/embeddings" },
      log,
      null,
    );
    assert.equal(await down.rank("rain", TOOLS, null, 3), null);
    assert.equal(await down.rank("rain", TOOLS, null, 3), null);
    assert.equal(down.stats.fallbacks, 2);
    const warnings = log.lines.filter((l) => l.startsWith("warn"));
    assert.equal(warnings.length, 1);
    assert.match(warnings[0]!, /embeddings endpoint http:\/\/127\.0\.0\.1:9\/v1\/embeddings/);
    assert.ok(!warnings[0]!.includes("sk-secret-key"));
  });

  it("a close lexical call is decided by the model, a clear lexical win is not", () => {
    const model = { ids: [2, 3, 1], scores: [0.8, 0.5, 0.2] };
    // Lexically 1 leads 2 by a hair: the model, which prefers 2, decides.
    assert.deepEqual(fuseScores([{ ids: [1, 2, 3], scores: [10, 9.5, 1] }, model], [1, 0.2]).ids, [
      2,
      1,
      3,
    ]);
    // Lexically 1 leads 2 by far: the same ranks, but the model cannot overturn it.
    assert.deepEqual(fuseScores([{ ids: [1, 2, 3], scores: [10, 2, 1] }, model], [1, 0.2]).ids, [
      1,
      2,
      3,
    ]);
  });

  it("a weight scales what a ranking gives to the fusion", () => {
    // Each ranking places the other's first last: the heavier ranking decides.
    const a = { ids: [1, 2], scores: [2, 1] };
    const b = { ids: [2, 1], scores: [0.9, 0.1] };
    assert.deepEqual(fuseScores([a, b], [1, 0.5]).ids, [1, 2]);
    assert.deepEqual(fuseScores([a, b], [0.5, 1]).ids, [2, 1]);
    // First in every ranking still scores 1, whatever the weights; a lone hit counts as first.
    assert.equal(
      fuseScores([{ ids: [7], scores: [3] }, { ids: [7], scores: [0.4] }], [1, 0.25])
        .scores[0],
      1,
    );
  });

  it("tool_search through the gateway fuses the semantic ranking with the lexical one", async () => {
    const gw = await startTestGateway(`
gateway: { exposure: search, state: ${JSON.stringify(join(state, "gw"))} }
discovery: { embeddings: { url: "${endpoint.url}", model: test-embed } }
servers:
  echo: ${nodeServer("echo.mjs")}
`);
    const client = await httpClient(gw.url);
    try {
      const r = await client.callTool({
        name: "tool_search",
        arguments: { query: "parrot what I say" },
      });
      const items = (r.structuredContent as { items: { name: string }[] }).items;
      assert.equal(items[0]?.name, "echo__echo");
      // A script's tools.search ranks the same way.
      const run = await client.callTool({
        name: "execute",
        arguments: { code: 'return tools.search{ query = "parrot what I say" }.items[1].name' },
      });
      assert.equal((run.structuredContent as { result: unknown }).result, "echo__echo");
    } finally {
      await client.close();
      await gw.stop();
    }
  });

  it("the search warm-up off the request path never asks the endpoint", async () => {
    const asked = endpoint.requests.length;
    const gw = await startTestGateway(`
gateway: { exposure: search, state: ${JSON.stringify(join(state, "warm"))} }
discovery: { embeddings: { url: "${endpoint.url}", model: test-embed } }
servers:
  echo: ${nodeServer("echo.mjs")}
`);
    try {
      // The warm-up runs a tick after the tool list changes; give it ample time.
      await new Promise((r) => setTimeout(r, 500));
      assert.equal(endpoint.requests.length, asked);
    } finally {
      await gw.stop();
    }
  });

  it("with the endpoint down tool_search answers lexically and /metrics counts it", async () => {
    const gw = await startTestGateway(`
gateway: { exposure: search, state: ${JSON.stringify(join(state, "down"))} }
discovery: { embeddings: { url: "http://127.0.0.1:9/v1/embeddings", model: m, apiKey: sk-x } }
servers:
  echo: ${nodeServer("echo.mjs")}
`);
    const client = await httpClient(gw.url);
    try {
      const r = await client.callTool({ name: "tool_search", arguments: { query: "echo" } });
      const items = (r.structuredContent as { items: { name: string }[] }).items;
      assert.equal(items[0]?.name, "echo__echo");
      const metrics = await (await fetch(`${gw.url}/metrics`)).text();
      assert.match(metrics, /^mcp_gateway_search_semantic_fallbacks_total 1$/m);
    } finally {
      await client.close();
      await gw.stop();
    }
  });
});
