import assert from "node:assert/strict";
import { connect } from "node:net";
import { after, before, describe, it } from "node:test";
import { startTestGateway, type TestGateway } from "../_helpers/gateway.ts";
import { authedHttpClient, rawRequest } from "./_http.ts";

const TOKEN = "socket-fuzz-token-0123456789";

/** What a client must never see: an HTML error page, a stack frame, a source file path. */
const LEAK = /<html|<!doctype|\bat \S+ \(|\/[\w.-]+\/[\w.-]+\.(?:ts|js|mjs)\b|node_modules/i;

/** Hostile request heads, written byte for byte. `PORT` becomes the gateway's port. */
const CASES: readonly [label: string, head: string][] = [
  ["empty Host", "GET /mcp HTTP/1.1\r\nHost: \r\n"],
  ["empty Host on a health probe", "GET /healthz HTTP/1.1\r\nHost: \r\n"],
  ["unclosed IPv6 Host", "GET /mcp HTTP/1.1\r\nHost: [::1\r\n"],
  ["Host with a space", "GET /mcp HTTP/1.1\r\nHost: a b\r\n"],
  ["10 KB Host", `GET /mcp HTTP/1.1\r\nHost: ${"x".repeat(10_240)}\r\n`],
  ["non-ASCII Host", "GET /mcp HTTP/1.1\r\nHost: h\u00e9llo.example\r\n"],
  ["Host with a path", "GET /mcp HTTP/1.1\r\nHost: 127.0.0.1/evil\r\n"],
  ["Host with userinfo", "GET /mcp HTTP/1.1\r\nHost: user@127.0.0.1:PORT\r\n"],
  [
    "absolute-form naming another host",
    "GET http://evil.example/mcp HTTP/1.1\r\nHost: 127.0.0.1:PORT\r\n",
  ],
  [
    "absolute-form with a bad authority",
    "GET http://[::1/mcp HTTP/1.1\r\nHost: 127.0.0.1:PORT\r\n",
  ],
  [
    "absolute-form of another scheme",
    "GET file:///etc/passwd HTTP/1.1\r\nHost: 127.0.0.1:PORT\r\n",
  ],
  ["double-slash path", "GET //evil.example/mcp HTTP/1.1\r\nHost: 127.0.0.1:PORT\r\n"],
  ["percent garbage", "GET /%zz%%/..%2f..%2fetc HTTP/1.1\r\nHost: 127.0.0.1:PORT\r\n"],
  ["percent-encoded NUL", "GET /mcp%00 HTTP/1.1\r\nHost: 127.0.0.1:PORT\r\n"],
  ["dot segments", "GET /../../../etc/passwd HTTP/1.1\r\nHost: 127.0.0.1:PORT\r\n"],
  ["asterisk-form", "OPTIONS * HTTP/1.1\r\nHost: 127.0.0.1:PORT\r\n"],
  ["authority-form", "CONNECT 127.0.0.1:PORT HTTP/1.1\r\nHost: 127.0.0.1:PORT\r\n"],
  ["100 KB path", `GET /${"a".repeat(100_000)} HTTP/1.1\r\nHost: 127.0.0.1:PORT\r\n`],
  ["two Host headers", "GET /mcp HTTP/1.1\r\nHost: 127.0.0.1:PORT\r\nHost: evil.example\r\n"],
  ["unknown HTTP version", "GET /mcp HTTP/9.9\r\nHost: 127.0.0.1:PORT\r\n"],
  ["no Host at all", "GET /mcp HTTP/1.1\r\n"],
  ["lowercase method", "get /mcp HTTP/1.1\r\nHost: 127.0.0.1:PORT\r\n"],
  ["header without a colon", "GET /mcp HTTP/1.1\r\nHost: 127.0.0.1:PORT\r\nnonsense\r\n"],
  ["NUL in the request line", "GET /m\u0000cp HTTP/1.1\r\nHost: 127.0.0.1:PORT\r\n"],
  ["bare LF line ends", "GET /mcp HTTP/1.1\nHost: 127.0.0.1:PORT\n"],
];

describe("hostile request lines and Host headers at the socket", () => {
  let gw: TestGateway;
  let port: number;
  before(async () => {
    gw = await startTestGateway(`
gateway:
  auth: { tokens: [{ name: fuzz, token: "${TOKEN}" }] }
servers: {}
`);
    port = gw.running.http!.port;
  });
  after(async () => await gw?.stop());

  for (const [label, head] of CASES) {
    it(`${label}: a 4xx without server details, or the connection closed`, async () => {
      const bytes = Buffer.from(
        `${head.replaceAll("PORT", String(port))}Connection: close\r\n\r\n`,
        "utf8",
      );
      const res = await rawRequest(port, bytes, 5_000).catch((err: Error) => err);
      // A runtime may drop a request it cannot parse at all; it must never answer 2xx/5xx.
      if (res instanceof Error) {
        assert.match(res.message, /closed without a response/, `${label}: ${res.message}`);
        return;
      }
      // Bun's own HTTP parser answers a request line it cannot read with an empty 505 before
      // any handler runs; that is the only non-4xx allowed, and only without a body.
      const parserRefusal = res.status === 505 && res.body === "";
      assert.ok(
        parserRefusal || (res.status >= 400 && res.status < 500),
        `${label}: status ${res.status} ${res.body.slice(0, 200)}`,
      );
      assert.doesNotMatch(res.body, LEAK, `${label}: body leaks ${res.body.slice(0, 300)}`);
    });
  }

  it("a malformed Host is refused with 400 before auth", async () => {
    const res = await rawRequest(
      port,
      Buffer.from("GET /mcp HTTP/1.1\r\nHost: a b\r\nConnection: close\r\n\r\n"),
    );
    assert.equal(res.status, 400);
    assert.equal(JSON.parse(res.body).error.code, -32600);
  });

  it("half-open sockets and a burst of garbage leave the gateway serving", async () => {
    const sockets = Array.from({ length: 20 }, (_, i) => {
      const s = connect({ host: "127.0.0.1", port });
      s.on("error", () => {});
      s.write(i % 2 ? "GET /mcp HTTP/1.1\r\nHost: [::1\r\n" : "\u0000\u00ff\r\n\r\n");
      return s;
    });
    const client = await authedHttpClient(gw.url, TOKEN);
    try {
      const { tools } = await client.listTools();
      assert.ok(Array.isArray(tools));
      const health = await fetch(`${gw.url}/healthz`);
      assert.equal(health.status, 200);
      await health.body?.cancel();
    } finally {
      await client.close();
      for (const s of sockets) s.destroy();
    }
  });
});
