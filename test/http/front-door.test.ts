import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { frontDoor, malformed } from "../../src/http/mod.ts";
import { createLogger, setLogLevel } from "../../src/shared/log.ts";

setLogLevel("silent");
const log = createLogger("test");
const ok = () => new Response("ok");

/** A request whose `Host` header is set by hand (fetch's Request keeps it as given). */
const withHost = (url: string, host: string) => new Request(url, { headers: { host } });

describe("front door", () => {
  it("passes an ordinary request, with or without a port in Host", async () => {
    assert.equal(malformed(withHost("http://127.0.0.1:8787/mcp", "127.0.0.1:8787")), null);
    assert.equal(malformed(withHost("http://[::1]:8787/mcp", "[::1]:8787")), null);
    assert.equal(malformed(withHost("http://localhost/mcp", "LOCALHOST:80")), null);
    assert.equal(malformed(new Request("http://127.0.0.1:8787/mcp")), null);
    const res = await frontDoor(ok, log)(withHost("http://127.0.0.1:1/x", "127.0.0.1:1"));
    assert.equal(await res.text(), "ok");
  });

  it("judges a Host equal to the target's host as a second parse would", () => {
    // Unchanged by the shortcut for an http target: an https target's `a:80` keeps its port,
    // which `http://a:80` does not.
    assert.match(malformed(withHost("https://a:80/mcp", "a:80")) ?? "", /another host/);
    assert.equal(
      malformed(withHost("https://a/mcp", "a:443")),
      "the request target names another host than Host",
    );
    assert.equal(malformed(withHost("http://a:8080/mcp", "a:8080")), null);
    assert.match(malformed(withHost("http://a:8080/mcp", "a:8081")) ?? "", /another host/);
  });

  it("names what is wrong with a Host that is not a host", () => {
    for (const host of ["", "a b", "[::1", "x".repeat(300), "h\u00e9llo", "a/b", "u@h"]) {
      assert.match(malformed(withHost("http://127.0.0.1/mcp", host)) ?? "", /Host/, host);
    }
  });

  it("refuses an absolute-form target naming another host than Host", async () => {
    const req = withHost("http://evil.example/mcp", "127.0.0.1:8787");
    assert.match(malformed(req) ?? "", /another host/);
    const res = await frontDoor(ok, log)(req);
    assert.equal(res.status, 400);
    assert.equal((await res.json()).error.code, -32600);
  });

  it("judges a request by a Host it knows as valid exactly as it would with a parse", async () => {
    // One front door remembers the Host values it parsed as valid; what it then passes without a
    // parse must be what the parse passes, and nothing else.
    const known = new Set<string>();
    assert.equal(malformed(withHost("http://127.0.0.1:8787/mcp", "127.0.0.1:8787"), known), null);
    assert.deepEqual([...known], ["127.0.0.1:8787"]);
    assert.equal(malformed(withHost("http://127.0.0.1:8787/x?y#z", "127.0.0.1:8787"), known), null);
    // The same Host with a longer authority in the target, or another one, is parsed and refused.
    assert.equal(malformed(withHost("http://a:8/mcp", "a:8"), known), null);
    assert.match(malformed(withHost("http://a:8080/mcp", "a:8"), known) ?? "", /another host/);
    assert.match(
      malformed(withHost("http://evil.example/mcp", "127.0.0.1:8787"), known) ?? "",
      /another host/,
    );
    assert.match(malformed(withHost("https://a:80/mcp", "a:80"), known) ?? "", /another host/);
    // A Host that is not a host is never remembered, and only so many are.
    for (const host of ["a b", "[::1", "u@h"]) {
      assert.match(malformed(withHost("http://127.0.0.1/mcp", host), known) ?? "", /Host/, host);
    }
    for (let i = 0; i < 100; i++) malformed(withHost(`http://h${i}/mcp`, `h${i}`), known);
    assert.equal(known.size, 32);
    // Through the front door, a known Host with a foreign absolute-form target is still a 400.
    const door = frontDoor(ok, log);
    assert.equal(await (await door(withHost("http://127.0.0.1:1/x", "127.0.0.1:1"))).text(), "ok");
    const res = await door(withHost("http://evil.example/mcp", "127.0.0.1:1"));
    assert.equal(res.status, 400);
  });

  it("answers a handler's throw with a bare JSON-RPC 500, no message, path or stack", async () => {
    const res = await frontDoor(() => {
      throw new Error("ENOENT: /home/someone/secret/config.yaml");
    }, log)(withHost("http://127.0.0.1:1/mcp", "127.0.0.1:1"));
    assert.equal(res.status, 500);
    const text = await res.text();
    assert.deepEqual(JSON.parse(text).error.code, -32603);
    assert.doesNotMatch(text, /ENOENT|secret|\/home/);
  });
});
