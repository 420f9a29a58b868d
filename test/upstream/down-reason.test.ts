/**
 * Which stderr line a down reason quotes, from real outputs: Node, Deno, Bun and Python dying
 * on an error (captured from the runtimes), npm failing to find an `npx` package, and a server
 * that just prints one line. Also the tail's bounds.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { downReason, lastWords } from "../../src/upstream/down-reason.ts";
import { StderrTail } from "../../src/upstream/stderr-tail.ts";

const tail = (text: string) => {
  const t = new StderrTail();
  t.push(text);
  t.flush();
  return t.lines();
};

const NODE_MISSING_MODULE = `node:internal/modules/cjs/loader:1210
  throw err;
  ^

Error: Cannot find module '/srv/mcp/index.js'
    at Module._resolveFilename (node:internal/modules/cjs/loader:1207:15)
    at node:internal/main/run_main_module:28:49 {
  code: 'MODULE_NOT_FOUND',
  requireStack: []
}

Node.js v20.20.2
`;

const NPX_404 = `npm error code E404
npm error 404 Not Found - GET https://registry.example/@acme%2fmcp-nope - Not found
npm error 404
npm error 404  '@acme/mcp-nope@*' is not in this registry.
npm error A complete log of this run can be found in: /root/.npm/_logs/debug-0.log
`;

describe("the stderr line a down reason quotes", () => {
  it("is the error heading of an uncaught Node error, not the stack or the banner", () => {
    assert.equal(
      lastWords(tail(NODE_MISSING_MODULE)),
      "Error: Cannot find module '/srv/mcp/index.js'",
    );
  });

  it("is Deno's error line with its colour codes removed", () => {
    const deno = "\x1b[0m\x1b[1m\x1b[31merror\x1b[0m: Uncaught (in promise) Error: no key\n" +
      'throw new Error("no key")\n\x1b[31m      ^\x1b[0m\n    at file:///srv/main.ts:1:7\n';
    assert.equal(lastWords(tail(deno)), "error: Uncaught (in promise) Error: no key");
  });

  it("is the last line of a Python traceback", () => {
    const py = 'Traceback (most recent call last):\n  File "<string>", line 1, in <module>\n' +
      "ModuleNotFoundError: No module named 'mcp'\n";
    assert.equal(lastWords(tail(py)), "ModuleNotFoundError: No module named 'mcp'");
  });

  it("is npm's first failure line for an npx package that does not exist", () => {
    assert.equal(
      lastWords(tail(NPX_404)),
      "npm error 404 Not Found - GET https://registry.example/@acme%2fmcp-nope - Not found",
    );
  });

  it("is the last line when nothing looks like an error", () => {
    assert.equal(lastWords(tail("starting\nGITHUB_TOKEN is not set\n")), "GITHUB_TOKEN is not set");
    assert.equal(lastWords([]), undefined);
  });

  it("joins the process's own exit, or the gateway's reason, with that line", () => {
    const lines = tail("Error: GITHUB_TOKEN is not set\n");
    assert.equal(
      downReason("Connection closed", { code: 1, signal: null }, lines),
      "exited with code 1: Error: GITHUB_TOKEN is not set",
    );
    assert.equal(
      downReason("x", { code: null, signal: "SIGSEGV" }, []),
      "was killed by signal SIGSEGV",
    );
    assert.equal(
      downReason("no answer to the MCP handshake within 500ms", null, lines),
      "no answer to the MCP handshake within 500ms; stderr: Error: GITHUB_TOKEN is not set",
    );
  });
});

describe("the stderr tail", () => {
  it("keeps the last 20 lines and at most 4096 characters, a partial line until flushed", () => {
    const t = new StderrTail();
    for (let i = 0; i < 50; i++) t.push(`line ${i}\n`);
    assert.equal(t.lines().length, 20);
    assert.equal(t.lines()[0], "line 30");
    t.push("x".repeat(3000) + "\n" + "y".repeat(3000) + "\n");
    assert.deepEqual(t.lines().map((l) => l[0]), ["y"]);
    t.push("no newline yet");
    assert.equal(t.lines().at(-1)!.length, 3000);
    t.flush();
    assert.equal(t.lines().at(-1), "no newline yet");
  });
});
