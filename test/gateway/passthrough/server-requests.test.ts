/**
 * Sampling, elicitation and roots requests from upstreams reach the client session whose call
 * caused them, over streamable HTTP and stdio; requests no session can take fail fast. Client
 * roots reach only a session's own process (`rooted` runs with `isolation: session`).
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  LATEST_PROTOCOL_VERSION,
  ListRootsRequestSchema,
  LoggingMessageNotificationSchema,
  SUPPORTED_PROTOCOL_VERSIONS,
} from "@modelcontextprotocol/sdk/types.js";
import {
  EVERYTHING,
  type Harness,
  HARNESSES,
  httpHarness,
  nodeServer,
  record,
  textOf,
  untilTool,
  waitFor,
} from "./_helpers.ts";

const YAML = `
servers:
  everything: ${EVERYTHING}
  changing: ${nodeServer("changing.mjs")}
  rooted: ${nodeServer("changing.mjs", "isolation: session, roots: client")}
`;

/** Answers sampling, elicitation and roots as `who`, counting what it was asked. */
function answerAs(client: Client, who: string, elicitation = true) {
  const asked = { sampling: 0, elicitation: 0, roots: 0 };
  client.setRequestHandler(CreateMessageRequestSchema, () => {
    asked.sampling++;
    return {
      role: "assistant",
      content: { type: "text", text: `sampled by ${who}` },
      model: `model-${who}`,
    };
  });
  if (elicitation) {
    client.setRequestHandler(ElicitRequestSchema, () => {
      asked.elicitation++;
      return { action: "accept", content: { name: `name-${who}` } };
    });
  }
  client.setRequestHandler(ListRootsRequestSchema, () => {
    asked.roots++;
    return { roots: [{ uri: `file:///roots/${who}`, name: who }] };
  });
  return asked;
}

for (const { kind, open } of HARNESSES) {
  describe(`server-to-client requests over ${kind}`, () => {
    let h: Harness;
    before(async () => {
      h = await open(YAML);
    });
    after(async () => await h?.close());

    it("routes sampling/createMessage to the calling client and returns its answer", async () => {
      const { client } = await h.connect();
      const asked = answerAs(client, "a");
      await untilTool(client, "everything__trigger-sampling-request");
      const r = await client.callTool({
        name: "everything__trigger-sampling-request",
        arguments: { prompt: "hi", maxTokens: 5 },
      });
      assert.match(textOf(r), /sampled by a/);
      assert.equal(asked.sampling, 1);
    });

    it("routes elicitation/create to the calling client and returns its answer", async () => {
      const { client } = await h.connect();
      const asked = answerAs(client, "e");
      await untilTool(client, "everything__trigger-elicitation-request");
      const r = await client.callTool({
        name: "everything__trigger-elicitation-request",
        arguments: {},
      });
      assert.match(textOf(r), /Name: name-e/);
      assert.equal(asked.elicitation, 1);
    });

    it("routes roots/list made during a call to the calling client's own process", async () => {
      const { client } = await h.connect();
      answerAs(client, "r");
      const r = await client.callTool({ name: "rooted__roots", arguments: {} });
      assert.match(textOf(r), /file:\/\/\/roots\/r/);
    });

    it("refuses roots/list from a shared server without roots:", async () => {
      const { client } = await h.connect();
      const asked = answerAs(client, "s");
      const r = await client.callTool({ name: "changing__roots", arguments: {} });
      assert.match(textOf(r), /^error -32601: .*Method not found/);
      assert.equal(asked.roots, 0);
    });

    it("answers a request the calling client did not declare with a clear error", async () => {
      const { client } = await h.connect({ roots: {} });
      const logs = record(client, LoggingMessageNotificationSchema);
      const r = await client.callTool({ name: "changing__sample_later", arguments: {} });
      assert.equal(textOf(r), "scheduled");
      const out = await waitFor(
        () => logs.find((n) => n.params?.logger === "changing/sample"),
        10_000,
        "the late sampling outcome",
      );
      assert.match(
        String(out!.params?.data),
        /error -32601: .*sampling\/createMessage.*outside any tool call/,
      );
    });
  });
}

describe("server-to-client requests with two sessions on one HTTP gateway", () => {
  let h: Harness;
  let a: Client;
  let b: Client;
  let askedA: ReturnType<typeof answerAs>;
  let askedB: ReturnType<typeof answerAs>;
  before(async () => {
    h = await httpHarness(YAML);
    a = (await h.connect()).client;
    b = (await h.connect()).client;
    askedA = answerAs(a, "a");
    askedB = answerAs(b, "b");
    await untilTool(a, "everything__trigger-sampling-request");
    await untilTool(a, "everything__trigger-elicitation-request");
  });
  after(async () => await h?.close());

  it("sends sampling only to the session that made the call", async () => {
    for (const [client, who] of [[a, "a"], [b, "b"], [a, "a"]] as const) {
      const before = { a: askedA.sampling, b: askedB.sampling };
      const r = await client.callTool({
        name: "everything__trigger-sampling-request",
        arguments: { prompt: who, maxTokens: 5 },
      });
      assert.match(textOf(r), new RegExp(`sampled by ${who}`));
      assert.equal(askedA.sampling - before.a, who === "a" ? 1 : 0);
      assert.equal(askedB.sampling - before.b, who === "b" ? 1 : 0);
    }
  });

  it("routes by the call in flight on that upstream, not by calls on other upstreams", async () => {
    const stop = new AbortController();
    const waiting = a.callTool({ name: "changing__wait", arguments: { ms: 30_000 } }, undefined, {
      signal: stop.signal,
    });
    try {
      const before = askedA.sampling;
      const r = await b.callTool({
        name: "everything__trigger-sampling-request",
        arguments: { prompt: "b", maxTokens: 5 },
      });
      assert.match(textOf(r), /sampled by b/);
      assert.equal(askedA.sampling, before);
    } finally {
      stop.abort();
      await waiting.catch(() => {});
    }
  });

  it("sends elicitation only to the session that made the call", async () => {
    const before = { a: askedA.elicitation, b: askedB.elicitation };
    const r = await b.callTool({ name: "everything__trigger-elicitation-request", arguments: {} });
    assert.match(textOf(r), /Name: name-b/);
    assert.equal(askedB.elicitation - before.b, 1);
    assert.equal(askedA.elicitation - before.a, 0);
  });

  it("tells a calling session without the capability so, leaving other sessions alone", async () => {
    const { client: bare } = await h.connect({});
    const before = askedA.sampling + askedB.sampling;
    const r = await bare.callTool({
      name: "everything__trigger-sampling-request",
      arguments: { prompt: "z", maxTokens: 5 },
    });
    assert.equal(r.isError, true);
    assert.match(textOf(r), /did not declare sampling/);
    assert.equal(askedA.sampling + askedB.sampling, before);
  });

  it("sends a session's roots/list_changed only to its own process", async () => {
    const logsA = record(a, LoggingMessageNotificationSchema);
    const logsB = record(b, LoggingMessageNotificationSchema);
    await a.callTool({ name: "rooted__subscriptions", arguments: {} });
    await b.callTool({ name: "rooted__subscriptions", arguments: {} });
    const rootsA = askedA.roots;
    await b.sendRootsListChanged();
    const out = await waitFor(
      () => logsB.find((n) => n.params?.logger === "rooted/roots"),
      10_000,
      "roots asked outside a call",
    );
    assert.match(String(out!.params?.data), /file:\/\/\/roots\/b/);
    const r = await a.callTool({ name: "rooted__last_roots", arguments: {} });
    assert.equal(textOf(r), "none");
    assert.equal(logsA.filter((n) => n.params?.logger === "rooted/roots").length, 0);
    assert.equal(askedA.roots, rootsA);
  });
});

describe("server-to-client requests for clients on older protocol versions", () => {
  let h: Harness;
  before(async () => {
    h = await httpHarness(YAML);
  });
  after(async () => await h?.close());

  /** A client that announces `version` at initialize (and so in its HTTP header after). */
  async function olderClient(version: string, legacySse: boolean): Promise<Client> {
    const client = new Client({ name: `old-${version}`, version: "1.0.0" }, {
      capabilities: { sampling: {}, roots: {} },
    });
    const url = new URL(`${h.gateway!.url}${legacySse ? "/sse" : "/mcp"}`);
    const transport = legacySse
      ? new SSEClientTransport(url)
      : new StreamableHTTPClientTransport(url);
    const send = transport.send.bind(transport);
    transport.send = (message, options) => {
      const m = message as { method?: string; params?: Record<string, unknown> };
      const sent = m.method === "initialize"
        ? { ...message, params: { ...m.params, protocolVersion: version } }
        : message;
      return (send as (m: unknown, o: unknown) => Promise<void>)(sent, options);
    };
    await client.connect(transport);
    return client;
  }

  const older = SUPPORTED_PROTOCOL_VERSIONS.filter((v) => v !== LATEST_PROTOCOL_VERSION);
  for (const version of older) {
    for (const legacySse of [false, true]) {
      it(`routes sampling to a ${version} client over ${legacySse ? "legacy SSE" : "streamable HTTP"}`, async () => {
        const client = await olderClient(version, legacySse);
        try {
          answerAs(client, version, false);
          await untilTool(client, "everything__trigger-sampling-request");
          const r = await client.callTool({
            name: "everything__trigger-sampling-request",
            arguments: { prompt: "old", maxTokens: 5 },
          });
          assert.match(textOf(r), new RegExp(`sampled by ${version}`));
        } finally {
          await client.close();
        }
      });
    }
  }
});
