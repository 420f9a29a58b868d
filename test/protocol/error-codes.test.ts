/**
 * The gateway's JSON-RPC error codes: each meaning has a code of its own, and none reuses a code
 * the spec or the SDKs give another meaning (before, an upstream timeout went out as -32002,
 * "resource not found", and a 2026-07-28 client got it as -32602). The table is checked whole,
 * then a real timeout is read by a 2025 SDK client and a raw 2026-07-28 request.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { ERROR_CODES, GatewayError, JSONRPC, toJsonRpcError } from "../../src/shared/errors.ts";
import { httpClient, nodeServer, startTestGateway, type TestGateway } from "../_helpers/gateway.ts";
import { answerOf, postModern } from "./_modern.ts";

/** Codes the MCP spec (any revision) or the SDKs' own layers give a meaning of their own. */
const TAKEN: Record<number, string> = {
  [-32000]: "connection closed (SDK)",
  [-32001]: "request timeout (SDK); session not found (SDK HTTP transport)",
  [-32002]: "resource not found (spec, 2025 revisions)",
  [-32020]: "header mismatch (spec)",
  [-32021]: "missing required client capability (spec)",
  [-32022]: "unsupported protocol version (spec)",
  [-32042]: "URL elicitation required (spec)",
};
const STANDARD = new Set([-32700, -32600, -32601, -32602, -32603]);
/** Error kinds that are one meaning to a client (a refusal of this token). */
const SAME_MEANING = [["FORBIDDEN", "UNAUTHORIZED"]];

/** No auth is configured; the raw request's bearer header is simply not looked at. */
const TOKEN = "unused";

describe("JSON-RPC error codes", () => {
  it("each implementation code is in -32000…-32019, has one meaning and collides with no spec code", () => {
    const byCode = new Map<number, string[]>();
    for (const kind of ERROR_CODES) {
      const { code } = toJsonRpcError(new GatewayError(kind, "x"));
      byCode.set(code, [...byCode.get(code) ?? [], kind]);
    }
    for (const [code, kinds] of byCode) {
      if (STANDARD.has(code)) continue;
      assert.ok(
        code <= -32000 && code >= -32019,
        `${kinds.join(", ")}: ${code} is outside -32000…-32019`,
      );
      const shared = kinds.length === 1 ||
        SAME_MEANING.some((group) => kinds.every((k) => group.includes(k)));
      assert.ok(shared, `${code} carries several meanings: ${kinds.join(", ")}`);
      if (code === JSONRPC.RESOURCE_NOT_FOUND) {
        assert.deepEqual(kinds, ["RESOURCE_NOT_FOUND"]);
      } else {
        assert.equal(TAKEN[code], undefined, `${kinds.join(", ")} reuses ${code}: ${TAKEN[code]}`);
      }
    }
  });

  describe("an upstream timeout, end to end", () => {
    let gw: TestGateway;
    let client: Client;

    before(async () => {
      gw = await startTestGateway(`
servers:
  slow: ${nodeServer("slow-prompt.mjs", "timeout: 500ms")}
`);
      client = await httpClient(gw.url);
    });
    after(async () => {
      await client?.close();
      await gw?.stop();
    });

    it("reaches a 2025 client as UPSTREAM_TIMEOUT's own code", async () => {
      await assert.rejects(
        client.getPrompt({ name: "slow__wait" }),
        (err: Error & { code?: number; data?: { code?: string } }) => {
          assert.equal(err.code, -32006, err.message); // as the table in docs/PROTOCOL.md says
          assert.equal(err.data?.code, "UPSTREAM_TIMEOUT");
          return true;
        },
      );
    });

    it("reaches a 2026-07-28 request as the same code, not as -32602", async () => {
      const answer = await answerOf(
        await postModern(gw.url, TOKEN, "prompts/get", { name: "slow__wait" }),
      );
      const error = answer.error as { code: number; data?: { code?: string } };
      assert.equal(error.code, -32006, JSON.stringify(answer));
      assert.equal(error.data?.code, "UPSTREAM_TIMEOUT");
    });
  });
});
