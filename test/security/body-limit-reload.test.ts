/**
 * `gateway.limits.requestBody` is live: a reload that raises or lowers it applies at once, on
 * both doors and in both length forms (a stated `Content-Length`, which the pre-dispatch
 * serves, and a chunked body, which hono's router serves and counts as it is read). Before,
 * the counted limit and the 2026-07-28 door kept the value they were started with, so a body
 * between the old and the new limit got the old verdict.
 */
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { nodeServer, startTestGateway, type TestGateway, waitFor } from "../_helpers/gateway.ts";
import { captureLogs } from "../ops/_ops.ts";
import { envelope, MODERN } from "../protocol/_modern.ts";
import { httpBytes, MCP_HEADERS, rawRequest } from "./_http.ts";

const yaml = (limit: string) =>
  `gateway: { limits: { requestBody: ${limit} } }\nservers:\n  echo: ${nodeServer("echo.mjs")}\n`;

/** 100 kB of padding: over 64 KB, well under 1 MB. */
const PAD = "x".repeat(100_000);

/** A 2025-era `initialize` carrying the padding in its `_meta`. */
const INITIALIZE = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: {
    protocolVersion: "2025-11-25",
    capabilities: {},
    clientInfo: { name: "raw", version: "1.0.0" },
    _meta: { "example.com/pad": PAD },
  },
});

/** A 2026-07-28 `tools/list` carrying the padding in its `_meta`. */
const MODERN_LIST = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "tools/list",
  params: {
    _meta: { "example.com/pad": PAD, ...envelope() },
  },
});

const MODERN_HEADERS = {
  ...MCP_HEADERS,
  "mcp-protocol-version": MODERN,
  "mcp-method": "tools/list",
};

type Era = "2025-11-25" | "2026-07-28";
const bodyOf = (era: Era) => era === "2025-11-25" ? INITIALIZE : MODERN_LIST;
const headersOf = (era: Era) => era === "2025-11-25" ? MCP_HEADERS : MODERN_HEADERS;

describe("the request body limit follows a reload", () => {
  let gw: TestGateway;
  let logs: ReturnType<typeof captureLogs>;
  before(async () => {
    logs = captureLogs("info");
    gw = await startTestGateway(yaml("64KB"));
  });
  after(async () => {
    await gw?.stop();
    logs.restore();
  });

  /** The HTTP status of the padded request of `era`, with its length stated. */
  const stated = async (era: Era) => {
    const res = await fetch(`${gw.url}/mcp`, {
      method: "POST",
      headers: headersOf(era),
      body: bodyOf(era),
    });
    await res.body?.cancel();
    return res.status;
  };

  /** The same request, chunked (no stated length). */
  const chunked = async (era: Era) => {
    const port = gw.running.http!.port;
    const body = bodyOf(era);
    const chunks: string[] = [];
    for (let i = 0; i < body.length; i += 8192) {
      const part = body.slice(i, i + 8192);
      chunks.push(`${Buffer.byteLength(part).toString(16)}\r\n${part}\r\n`);
    }
    const res = await rawRequest(
      port,
      httpBytes(
        "POST",
        "/mcp",
        { host: `127.0.0.1:${port}`, ...headersOf(era), "transfer-encoding": "chunked" },
        `${chunks.join("")}0\r\n\r\n`,
      ),
    );
    return res.status;
  };

  const reloadTo = async (limit: string) => {
    const seen = logs.lines.filter((l) => l.msg === "config reloaded").length;
    writeFileSync(join(gw.dir, "gateway.yaml"), yaml(limit));
    await waitFor(
      () => logs.lines.filter((l) => l.msg === "config reloaded").length > seen,
      15_000,
      `the reload to ${limit}`,
    );
  };

  /** The same status in every form. */
  const everyForm = (status: number) => ({
    "2025 stated": status,
    "2025 chunked": status,
    "2026 stated": status,
    "2026 chunked": status,
  });

  const all = async () => ({
    "2025 stated": await stated("2025-11-25"),
    "2025 chunked": await chunked("2025-11-25"),
    "2026 stated": await stated("2026-07-28"),
    "2026 chunked": await chunked("2026-07-28"),
  });

  it("refuses a 100 kB body under a 64 KB limit, in every form", async () => {
    assert.deepEqual(await all(), everyForm(413));
  });

  it("serves it once a reload raises the limit to 1 MB", async () => {
    await reloadTo("1MB");
    assert.deepEqual(await all(), everyForm(200));
  });

  it("refuses it again once a reload lowers the limit back", async () => {
    await reloadTo("64KB");
    assert.deepEqual(await all(), everyForm(413));
  });
});
