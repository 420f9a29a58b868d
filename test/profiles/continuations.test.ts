/**
 * A 2026-07-28 call that waits for the client's input (`input_required`) belongs to the profile
 * endpoint it came to: its `requestState` continues it there, and is refused on `/mcp`, so a
 * flow cannot leave the profile it was admitted to (the cluster relay carries the profile with
 * the identity for the same reason).
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { nodeServer, type TestGateway, useGateway } from "../_helpers/gateway.ts";
import { answerOf, postModern } from "../protocol/_modern.ts";

const TOOL = "test_input_required_result_elicitation";

/** One raw 2026-07-28 `tools/call` of TOOL to `path`, from a client that can elicit. */
const modernCall = async (url: string, path: string, params: Record<string, unknown>) =>
  await answerOf(
    await postModern(url, "", "tools/call", { name: TOOL, arguments: {}, ...params }, {
      caps: { elicitation: {} },
      path,
    }),
  );

describe("input_required flows on a profile endpoint", () => {
  let gw: TestGateway;
  useGateway(
    `servers:
  conformance: ${nodeServer("conformance.mjs", "prefix: false")}
profiles:
  forms:
    servers: [conformance]
`,
    (g) => (gw = g),
  );

  it("continue on the profile's endpoint and are refused on /mcp", async () => {
    const first = await modernCall(gw.url, "/mcp/forms", {});
    const round = first.result as { resultType: string; requestState: string };
    assert.equal(round.resultType, "input_required", JSON.stringify(first));
    const answer = {
      inputResponses: { user_name: { action: "accept", content: { name: "Alice" } } },
      requestState: round.requestState,
    };
    const elsewhere = await modernCall(gw.url, "/mcp", answer);
    const error = elsewhere.error as { message: string } | undefined;
    assert.match(error?.message ?? JSON.stringify(elsewhere), /does not continue this call/);
    const done = await modernCall(gw.url, "/mcp/forms", answer);
    const content = (done.result as { content?: { text?: string }[] }).content ?? [];
    assert.equal(content[0]?.text, "Hello, Alice!", JSON.stringify(done));
  });
});
