/**
 * Health probes without `Host`: HTTP/1.0 health checkers (HAProxy's default `option httpchk`)
 * send `GET /readyz HTTP/1.0` with no `Host` header. Such a probe is answered by the probe
 * route, not refused as malformed; anything else without `Host` is refused with a 4xx.
 */
import assert from "node:assert/strict";
import { connect } from "node:net";
import { after, before, describe, it } from "node:test";
import { nodeServer, startTestGateway, type TestGateway } from "../_helpers/gateway.ts";

/** Writes `raw` on a fresh socket and resolves with the status line and body. */
function rawRequest(port: number, raw: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1", () => socket.write(raw));
    let data = "";
    socket.setTimeout(5000, () => socket.destroy(new Error("no answer within 5 s")));
    socket.on("data", (chunk) => (data += chunk));
    socket.on("error", reject);
    socket.on("close", () => {
      const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(data)?.[1] ?? 0);
      resolve({ status, body: data.slice(data.indexOf("\r\n\r\n") + 4) });
    });
  });
}

describe("health probes without Host", () => {
  let gw: TestGateway;
  let port: number;
  before(async () => {
    gw = await startTestGateway(`servers:\n  echo: ${nodeServer("echo.mjs")}\n`);
    port = gw.running.http!.port;
  });
  after(async () => await gw?.stop());

  it("answers HTTP/1.0 probes of /healthz and /readyz, every time", async () => {
    for (let i = 0; i < 10; i++) {
      const live = await rawRequest(port, "GET /healthz HTTP/1.0\r\n\r\n");
      assert.equal(live.status, 200, live.body);
      const ready = await rawRequest(port, "GET /readyz HTTP/1.0\r\n\r\n");
      assert.equal(ready.status, 200, ready.body);
      assert.equal(JSON.parse(ready.body).status, "ready");
    }
  });

  it("answers anything else without Host with a 4xx, never a 500 or an error page", async () => {
    // Bun hands such a request over with a relative URL (400 at the front door); Deno fills in
    // its own host, and the request is refused further on (415: no JSON content type).
    const r = await rawRequest(port, "POST /mcp HTTP/1.0\r\nContent-Length: 2\r\n\r\n{}");
    assert.ok(r.status >= 400 && r.status < 500, `${r.status} ${r.body}`);
    assert.doesNotMatch(r.body, /\/work\/|\.ts:\d+/);
  });
});
