/**
 * How a 2025 upstream's server-to-client requests meet each era's clients, beyond what the
 * conformance suite checks: a malformed `inputResponses` entry is asked for again instead of
 * reaching the upstream, answers given up front skip the round, and on a 2025 session an
 * elicitation sent during `prompts/get` reaches the session that asked for the prompt.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { httpClient, nodeServer, type TestGateway, useGateway } from "../_helpers/gateway.ts";
import { answerOf, postModern } from "./_modern.ts";

const TOOL = "test_input_required_result_elicitation";

/** One raw 2026-07-28 `tools/call` of TOOL from a client that can elicit; its JSON-RPC answer. */
const modernCall = async (url: string, params: Record<string, unknown>) =>
  await answerOf(
    await postModern(url, "", "tools/call", { name: TOOL, arguments: {}, ...params }, {
      caps: { elicitation: {} },
    }),
  );

const contentText = (body: Record<string, unknown>) =>
  ((body.result as { content?: { text?: string }[] }).content ?? [])[0]?.text;

describe("a 2025 upstream's requests through both front doors", () => {
  let gw: TestGateway;
  let legacy: Client;
  useGateway(
    `servers:\n  conformance: ${nodeServer("conformance.mjs", "prefix: false")}\n`,
    (g, c) => {
      gw = g;
      legacy = c;
    },
  );

  it("a malformed answer is asked for again, a good one completes the call", async () => {
    const first = await modernCall(gw.url, {});
    const round1 = first.result as { resultType: string; requestState: string };
    assert.equal(round1.resultType, "input_required");
    const again = await modernCall(gw.url, {
      inputResponses: { user_name: { action: 42 } },
      requestState: round1.requestState,
    });
    const round2 = again.result as {
      resultType: string;
      requestState: string;
      inputRequests: Record<string, { method: string }>;
    };
    assert.equal(round2.resultType, "input_required");
    assert.equal(round2.inputRequests.user_name?.method, "elicitation/create");
    const done = await modernCall(gw.url, {
      inputResponses: { user_name: { action: "accept", content: { name: "Alice" } } },
      requestState: round2.requestState,
    });
    assert.equal(contentText(done), "Hello, Alice!");
  });

  it("an answer given up front under the upstream's input name skips the round", async () => {
    const done = await modernCall(gw.url, {
      inputResponses: { user_name: { action: "accept", content: { name: "Bob" } } },
    });
    assert.equal(contentText(done), "Hello, Bob!");
  });

  it("on a 2025 session, elicitation during prompts/get reaches the asking session", async () => {
    const client = await httpClient(gw.url, { elicitation: {} });
    try {
      client.setRequestHandler(ElicitRequestSchema, (req) => {
        assert.equal(req.params.message, "What context should the prompt use?");
        return { action: "accept", content: { context: "from the session" } };
      });
      const prompt = await client.getPrompt({ name: "test_input_required_result_prompt" });
      const first = prompt.messages[0]!.content as { text: string };
      assert.equal(first.text, "Context: from the session");
    } finally {
      await client.close();
    }
    // The suite's own client declared no elicitation: the upstream is refused, never left hanging.
    await assert.rejects(legacy.getPrompt({ name: "test_input_required_result_prompt" }));
  });
});
