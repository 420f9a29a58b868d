/**
 * Which door a session-less POST to `/mcp` takes, against the SDK's own judge. For every row of
 * a table of envelopes (2025 handshakes, 2026-07-28 calls, and the malformed ones between),
 * `classify` must pick the door the SDK's `isLegacyRequest` picks, and its SDK-free pre-check
 * (`plainlyLegacy`) may say "legacy" only where the SDK says so too, and must say it for a 2025
 * client's own requests, so that those never load the SDK v2 server
 * (test/packaging/lazy-sdk.test.ts checks that nothing else does).
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { classifyInboundRequest, isLegacyRequest } from "@modelcontextprotocol/server";
import { classify, plainlyLegacy } from "../../src/session/modern/classify.ts";
import { MODERN } from "./_modern.ts";

const MAX = 1_000_000;
const ENVELOPE = {
  "io.modelcontextprotocol/protocolVersion": MODERN,
  "io.modelcontextprotocol/clientInfo": { name: "t", version: "1" },
  "io.modelcontextprotocol/clientCapabilities": {},
};
const INIT = {
  protocolVersion: "2025-11-25",
  capabilities: {},
  clientInfo: { name: "t", version: "1" },
};
const CALL_HEADERS = {
  "mcp-protocol-version": MODERN,
  "mcp-method": "tools/call",
  "mcp-name": "x",
};
const rpc = (method: string, params?: unknown, id: unknown = 1) => ({
  jsonrpc: "2.0",
  id,
  method,
  ...(params === undefined ? {} : { params }),
});

interface Row {
  name: string;
  /** A JSON value, or a raw string sent as it is. */
  body: unknown;
  headers?: Record<string, string>;
  /** The pre-check must answer this one without the SDK (a 2025 client's common requests). */
  plain?: true;
}

const ROWS: Row[] = [
  { name: "2025 initialize", body: rpc("initialize", INIT), plain: true },
  {
    name: "2025 initialize, 2025 header",
    body: rpc("initialize", INIT),
    headers: { "mcp-protocol-version": "2025-11-25" },
    plain: true,
  },
  {
    name: "2024 initialize, padded 2025 header",
    body: rpc("initialize", { ...INIT, protocolVersion: "2024-11-05" }, "a"),
    headers: { "mcp-protocol-version": " 2025-06-18\t" },
    plain: true,
  },
  { name: "initialize without params", body: rpc("initialize"), plain: true },
  {
    name: "notifications/initialized",
    body: { jsonrpc: "2.0", method: "notifications/initialized" },
    plain: true,
  },
  { name: "tools/list, no claim", body: rpc("tools/list", {}), plain: true },
  {
    name: "initialize, modern header",
    body: rpc("initialize", INIT),
    headers: { "mcp-protocol-version": MODERN },
  },
  {
    name: "initialize, header later than every revision",
    body: rpc("initialize", INIT),
    headers: { "mcp-protocol-version": "9999" },
  },
  { name: "initialize, modern envelope", body: rpc("initialize", { ...INIT, _meta: ENVELOPE }) },
  {
    name: "initialize, claim of a 2025 revision",
    body: rpc("initialize", {
      ...INIT,
      _meta: { ...ENVELOPE, "io.modelcontextprotocol/protocolVersion": "2025-11-25" },
    }),
  },
  {
    name: "initialize, progress token",
    body: rpc("initialize", { ...INIT, _meta: { progressToken: 1 } }),
  },
  { name: "initialize, _meta null", body: rpc("initialize", { ...INIT, _meta: null }) },
  {
    name: "2026 tools/call",
    body: rpc("tools/call", { name: "x", arguments: {}, _meta: ENVELOPE }),
    headers: { "mcp-protocol-version": MODERN, "mcp-method": "tools/call", "mcp-name": "x" },
  },
  {
    name: "2026 tools/call, method header disagrees",
    body: rpc("tools/call", { name: "x", _meta: ENVELOPE }),
    headers: { "mcp-protocol-version": MODERN, "mcp-method": "tools/list" },
  },
  {
    name: "tools/call, modern header, no claim",
    body: rpc("tools/call", { name: "x" }),
    headers: { "mcp-protocol-version": MODERN },
  },
  {
    name: "claim with a broken envelope",
    body: rpc("tools/list", { _meta: { "io.modelcontextprotocol/protocolVersion": MODERN } }),
  },
  {
    name: "2026 notification",
    body: { jsonrpc: "2.0", method: "notifications/cancelled", params: { _meta: ENVELOPE } },
  },
  {
    name: "notification, modern header",
    body: { jsonrpc: "2.0", method: "notifications/initialized" },
    headers: { "mcp-protocol-version": MODERN },
  },
  { name: "id null", body: rpc("initialize", INIT, null) },
  { name: "id 1.5", body: rpc("initialize", INIT, 1.5) },
  { name: "id beyond safe integers", body: rpc("initialize", INIT, 2 ** 60) },
  { name: "id an object", body: rpc("initialize", INIT, { a: 1 }) },
  { name: "extra top-level key", body: { ...rpc("initialize", INIT), extra: true } },
  { name: "jsonrpc 1.0", body: { ...rpc("initialize", INIT), jsonrpc: "1.0" } },
  { name: "method a number", body: { jsonrpc: "2.0", id: 1, method: 7 } },
  { name: "params an array", body: rpc("initialize", [1]) },
  { name: "params a string", body: rpc("initialize", "x") },
  {
    name: "2026 tools/call, progress token",
    body: rpc("tools/call", { name: "x", _meta: { ...ENVELOPE, progressToken: "p" } }),
    headers: CALL_HEADERS,
  },
  {
    name: "2026 tools/call, progress token an object",
    body: rpc("tools/call", { name: "x", _meta: { ...ENVELOPE, progressToken: { a: 1 } } }),
    headers: CALL_HEADERS,
  },
  {
    name: "2026 tools/call, related task malformed",
    body: rpc("tools/call", {
      name: "x",
      _meta: { ...ENVELOPE, "io.modelcontextprotocol/related-task": { taskId: 5 } },
    }),
    headers: CALL_HEADERS,
  },
  {
    name: "2026 tools/call, client info malformed",
    body: rpc("tools/call", {
      name: "x",
      _meta: { ...ENVELOPE, "io.modelcontextprotocol/clientInfo": { name: 1 } },
    }),
    headers: CALL_HEADERS,
  },
  {
    name: "2026 tools/call, capabilities missing",
    body: rpc("tools/call", {
      name: "x",
      _meta: { ...ENVELOPE, "io.modelcontextprotocol/clientCapabilities": undefined },
    }),
    headers: CALL_HEADERS,
  },
  {
    name: "2026 tools/call, claim of another revision",
    body: rpc("tools/call", {
      name: "x",
      _meta: { ...ENVELOPE, "io.modelcontextprotocol/protocolVersion": "2027-01-01" },
    }),
    headers: { ...CALL_HEADERS, "mcp-protocol-version": "2027-01-01" },
  },
  {
    name: "2026 tools/call, header names another revision",
    body: rpc("tools/call", { name: "x", _meta: ENVELOPE }),
    headers: { ...CALL_HEADERS, "mcp-protocol-version": "2026-08-01" },
  },
  {
    name: "2026 tools/call, no headers",
    body: rpc("tools/call", { name: "x", _meta: ENVELOPE }),
  },
  {
    name: '2026 tools/call, method header "undefined"',
    body: rpc("tools/call", { name: "x", _meta: ENVELOPE }),
    headers: { ...CALL_HEADERS, "mcp-method": "undefined" },
  },
  {
    name: "2026 tools/call, string id, padded headers",
    body: rpc("tools/call", { name: "x", _meta: ENVELOPE }, "c-1"),
    headers: { ...CALL_HEADERS, "mcp-method": " tools/call ", "mcp-name": "\tx" },
  },
  {
    name: "2026 tools/call, id null",
    body: rpc("tools/call", { name: "x", _meta: ENVELOPE }, null),
    headers: CALL_HEADERS,
  },
  {
    name: "2026 tools/call, extra top-level key",
    body: { ...rpc("tools/call", { name: "x", _meta: ENVELOPE }), extra: 1 },
    headers: CALL_HEADERS,
  },
  {
    name: "2026 tools/call, jsonrpc 1.0",
    body: { ...rpc("tools/call", { name: "x", _meta: ENVELOPE }), jsonrpc: "1.0" },
    headers: CALL_HEADERS,
  },
  {
    name: "2026 server/discover",
    body: rpc("server/discover", { _meta: ENVELOPE }),
    headers: { "mcp-protocol-version": MODERN, "mcp-method": "server/discover" },
  },
  {
    name: "2025 batch, modern header",
    body: [rpc("tools/list", {}, 1)],
    headers: { "mcp-protocol-version": MODERN },
  },
  {
    name: "posted result, modern header",
    body: { jsonrpc: "2.0", id: 1, result: {} },
    headers: { "mcp-protocol-version": MODERN },
  },
  { name: "not JSON, modern header", body: "{not", headers: { "mcp-protocol-version": MODERN } },
  { name: "empty body, modern header", body: "", headers: { "mcp-protocol-version": MODERN } },
  { name: "2025 batch", body: [rpc("tools/list", {}, 1), rpc("tools/list", {}, 2)] },
  { name: "batch with a claim", body: [rpc("tools/list", { _meta: ENVELOPE })] },
  { name: "empty batch", body: [] },
  { name: "posted result", body: { jsonrpc: "2.0", id: 1, result: {} } },
  { name: "JSON but not an object", body: 42 },
  { name: "null body", body: null },
  { name: "not JSON", body: "{not json" },
  { name: "empty body", body: "" },
  // Verdicts are reused by headers and `_meta`: each of these differs from the one before it in
  // one thing the reuse compares, so a verdict reused wrongly disagrees with the SDK here.
  {
    name: "reuse: a plain call",
    body: rpc("tools/call", { name: "x", _meta: ENVELOPE }),
    headers: CALL_HEADERS,
  },
  {
    name: "reuse: the same call, an empty Mcp-Name",
    body: rpc("tools/call", { name: "x", _meta: ENVELOPE }),
    headers: { ...CALL_HEADERS, "mcp-name": "" },
  },
  {
    name: "reuse: the same call, no Mcp-Name",
    body: rpc("tools/call", { name: "x", _meta: ENVELOPE }),
    headers: { "mcp-protocol-version": MODERN, "mcp-method": "tools/call" },
  },
  {
    name: "reuse: the envelope's members in another order",
    body: rpc("tools/call", {
      name: "x",
      _meta: Object.fromEntries(Object.entries(ENVELOPE).reverse()),
    }),
    headers: CALL_HEADERS,
  },
  {
    name: "reuse: capabilities as an array",
    body: rpc("tools/call", {
      name: "x",
      _meta: { ...ENVELOPE, "io.modelcontextprotocol/clientCapabilities": [] },
    }),
    headers: CALL_HEADERS,
  },
  {
    name: "reuse: clientInfo without its version",
    body: rpc("tools/call", {
      name: "x",
      _meta: { ...ENVELOPE, "io.modelcontextprotocol/clientInfo": { name: "t" } },
    }),
    headers: CALL_HEADERS,
  },
  {
    name: "reuse: a method that differs from Mcp-Method",
    body: rpc("tools/list", { _meta: ENVELOPE }),
    headers: CALL_HEADERS,
  },
];

/** The headers as the SDK's classifier takes them. */
function headerFields(headers: Record<string, string>) {
  const field = (name: string) => headers[name]?.trim();
  return {
    ...(field("mcp-protocol-version") === undefined
      ? {}
      : { protocolVersionHeader: field("mcp-protocol-version") }),
    ...(field("mcp-method") === undefined ? {} : { mcpMethodHeader: field("mcp-method") }),
    ...(field("mcp-name") === undefined ? {} : { mcpNameHeader: field("mcp-name") }),
  };
}

/** The request as an HTTP client sends it (with its length, as the server then sees it). */
function requestOf(row: Row): Request {
  const body = typeof row.body === "string" ? row.body : JSON.stringify(row.body);
  return new Request("http://127.0.0.1/mcp", {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "content-length": String(new TextEncoder().encode(body).length),
      ...row.headers,
    },
    body,
  });
}

describe("door classification", () => {
  for (const row of ROWS) {
    it(`agrees with the SDK: ${row.name}`, async () => {
      const sdkLegacy = await isLegacyRequest(requestOf(row), undefined, {
        maxRequestBodySize: MAX,
      });
      const request = requestOf(row);
      const door = await classify(request, MAX);
      assert.equal(door.modern, !sdkLegacy, "classify picks the SDK's door");
      // The outcome handed to the door is the SDK's own, the first time and when reused.
      if (door.modern && door.route) {
        const inbound = {
          httpMethod: "POST",
          ...headerFields(row.headers ?? {}),
          // The body as it travels (JSON drops an undefined member).
          body: JSON.parse(JSON.stringify(row.body)),
        };
        const sdk = classifyInboundRequest(inbound);
        assert.deepEqual(door.route, sdk);
        const again = await classify(requestOf(row), MAX);
        assert.deepEqual(again.modern && again.route, sdk, "a reused verdict is the SDK's");
      }
      // The legacy door reads the body itself: classify leaves it readable, or hands on a copy.
      if (!door.modern) {
        const sent = door.request ?? request;
        assert.equal(sent.bodyUsed, false);
        const raw = typeof row.body === "string" ? row.body : JSON.stringify(row.body);
        assert.equal(await sent.text(), raw);
        assert.equal(
          sent.headers.get("mcp-protocol-version"),
          request.headers.get("mcp-protocol-version"),
        );
      }
      // A request naming a 2026 revision is read once, with no clone: the original's body.
      if (row.headers?.["mcp-protocol-version"]?.trim().startsWith("2026")) {
        assert.equal(request.bodyUsed, true, "read without a clone");
      }
      if (typeof row.body !== "string") {
        const header = row.headers?.["mcp-protocol-version"] ?? null;
        const pre = plainlyLegacy(row.body, header);
        if (pre) assert.equal(sdkLegacy, true, "the pre-check says legacy only where the SDK does");
        if (row.plain) assert.equal(pre, true, "a 2025 client's request needs no SDK");
      }
    });
  }
});
