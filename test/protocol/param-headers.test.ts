/**
 * `Mcp-Param-*` header checks of the 2026-07-28 door (SEP-2243), in process: an argument a tool
 * marks with `x-mcp-header` must travel in its header too, literally or as canonical
 * `=?base64?…?=`, and agree with the body. The conformance test checks the same over HTTP.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { checkParamHeaders, declarationsOf } from "../../src/session/modern/param-headers.ts";

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
