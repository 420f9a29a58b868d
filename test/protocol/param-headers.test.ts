/**
 * `Mcp-Param-*` header checks of the 2026-07-28 door (SEP-2243), in process: an argument a tool
 * marks with `x-mcp-header` must travel in its header too, literally or as canonical
 * `=?base64?…?=`, and agree with the body. The conformance test checks the same over HTTP; the
 * HTTP cases here replay a `Mcp-Name` sent in its Base64 form, which once skipped the check.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { checkParamHeaders, declarationsOf } from "../../src/session/modern/param-headers.ts";
import { nodeServer, type TestGateway, textOf, useGateway } from "../_helpers/gateway.ts";
import { answerOf, postModern } from "./_modern.ts";

const TOOL: Tool = {
  name: "deploy",
  inputSchema: {
    type: "object",
    properties: {
      region: { type: "string", "x-mcp-header": "Region" },
      target: {
        type: "object",
        properties: { replicas: { type: "integer", "x-mcp-header": "N" } },
      },
      list: { type: "array", items: { type: "string", "x-mcp-header": "Ignored" } },
    },
  },
};
const b64 = (s: string) => `=?base64?${btoa(s)}?=`;

describe("Mcp-Param headers", () => {
  it("collects declarations along properties chains only", () => {
    assert.deepEqual(declarationsOf(TOOL).map((d) => d.header), ["Region", "N"]);
  });

  it("accepts literal and Base64 values that match the body, numbers compared as numbers", () => {
    const args = { region: "eu-west", target: { replicas: 3 } };
    const literal = new Headers({ "Mcp-Param-Region": "eu-west", "Mcp-Param-N": "3.0" });
    assert.equal(checkParamHeaders(TOOL, args, literal), undefined);
    const encoded = new Headers({ "Mcp-Param-Region": b64("eu-west"), "Mcp-Param-N": "3" });
    assert.equal(checkParamHeaders(TOOL, args, encoded), undefined);
  });

  it("refuses a missing, disagreeing or badly encoded header with 400 / -32020", () => {
    const args = { region: "eu-west" };
    for (
      const headers of [
        new Headers(),
        new Headers({ "Mcp-Param-Region": "us-east" }),
        new Headers({ "Mcp-Param-Region": "=?base64?ZXUtd2VzdA?=" }),
        new Headers({ "Mcp-Param-Region": "=?base64?ZXUt!!!d2VzdA==?=" }),
      ]
    ) {
      const refused = checkParamHeaders(TOOL, args, headers);
      assert.equal(refused?.status, 400);
      assert.equal(refused?.code, -32020);
      assert.equal(refused?.data.mismatch.header, "Mcp-Param-Region");
    }
  });

  it("expects no header for an argument the body leaves out", () => {
    assert.equal(checkParamHeaders(TOOL, {}, new Headers()), undefined);
  });
});

describe("Mcp-Param headers over HTTP, whatever form Mcp-Name takes", () => {
  let gw: TestGateway;
  useGateway(
    `servers:\n  conformance: ${
      nodeServer("conformance.mjs", 'prefix: false, tools: { allow: ["test_param_header"] }')
    }\n`,
    (g) => {
      gw = g;
    },
  );
  const call = (mcpName: string | undefined, headers: Record<string, string>) =>
    postModern(gw.url, "", "tools/call", {
      name: "test_param_header",
      arguments: { region: "eu" },
    }, {
      headers: { ...(mcpName === undefined ? {} : { "mcp-name": mcpName }), ...headers },
    });

  it("refuses a disagreeing or missing Mcp-Param-Region when Mcp-Name is Base64", async () => {
    for (const headers of [{ "mcp-param-region": "us" }, {}] as Record<string, string>[]) {
      const res = await call(b64("test_param_header"), headers);
      const answer = await answerOf(res);
      assert.equal(res.status, 400, JSON.stringify(answer));
      const error = answer.error as { code: number; data: { mismatch: { header: string } } };
      assert.equal(error.code, -32020);
      assert.equal(error.data.mismatch.header, "Mcp-Param-Region");
    }
  });

  it("runs the call when the headers agree, Mcp-Name literal or Base64", async () => {
    for (const mcpName of ["test_param_header", b64("test_param_header")]) {
      const res = await call(mcpName, { "mcp-param-region": b64("eu") });
      const answer = await answerOf(res);
      assert.equal(res.status, 200, JSON.stringify(answer));
      assert.equal(textOf(answer.result), "region eu");
    }
  });

  it("a Base64 Mcp-Name that names another tool is refused, not run", async () => {
    const res = await call(b64("other_tool"), { "mcp-param-region": "eu" });
    const answer = await answerOf(res);
    assert.equal(res.status, 400, JSON.stringify(answer));
    assert.equal(answer.result, undefined);
  });
});
