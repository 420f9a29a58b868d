/**
 * The audit log against a real gateway and real upstreams: N operations give N lines with the
 * caller's token name and the outcome; `args: hash` keeps no argument text; no line ever holds
 * a token value (even with `args: full` and a token passed as an argument); the file rotates at
 * its size; `journal: true` writes the same records to stderr with their journald priority.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { createServer } from "node:net";
import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { selfCommand } from "../../src/runtime/mod.ts";
import { nodeServer, startTestGateway, waitFor } from "../_helpers/gateway.ts";
import { answerOf, postModern } from "../protocol/_modern.ts";
import { batchOf, bearer, MCP_HEADERS, messagesOf, openSession } from "../security/_http.ts";

const ALICE = "alice-token-0123456789abcdef";
const BOB = "bob-token-fedcba9876543210";
const SECRET_ARG = "very-distinctive-argument-text";

function yaml(audit: string): string {
  return `gateway:
  auth:
    tokens:
      - { name: alice, token: ${ALICE} }
      - { name: bob, token: ${BOB} }
  audit: ${audit}
servers:
  echo: ${nodeServer("echo.mjs")}
  changing: ${nodeServer("changing.mjs")}
`;
}

async function clientFor(url: string, token: string): Promise<Client> {
  const client = new Client({ name: "audit-test", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  return client;
}

type Line = Record<string, unknown>;
const linesOf = (file: string): Line[] =>
  readFileSync(file, "utf8").split("\n").filter((l) => l !== "").map((l) => JSON.parse(l));

describe("the audit log", () => {
  it("writes a line for every call the rate limit refuses, with its code", async () => {
    const dir = mkdtempSync(join(tmpdir(), "mcpgw-audit-limit-"));
    const file = join(dir, "audit.jsonl");
    const gw = await startTestGateway(
      yaml(`{ file: ${JSON.stringify(file)} }`).replace(
        "  audit:",
        "    rateLimit: { perMinute: 1, burst: 5 }\n  audit:",
      ),
    );
    let answers: { result?: unknown; error?: { code: number } }[];
    try {
      // One request carrying 8 calls: the HTTP request limit is not what refuses them.
      const sid = await openSession(gw.url, bearer(ALICE));
      const res = await fetch(`${gw.url}/mcp`, {
        method: "POST",
        headers: { ...MCP_HEADERS, ...bearer(ALICE), "mcp-session-id": sid },
        body: batchOf(8),
      });
      answers = messagesOf(await res.text()).filter((m) => m.id !== undefined);
    } finally {
      await gw.stop();
    }
    assert.equal(answers.filter((m) => m.error?.code === -32004).length, 3);
    const lines = linesOf(file);
    assert.equal(lines.length, 8, readFileSync(file, "utf8"));
    const outcomes = lines.map((l) => `${l.outcome} ${l.code ?? ""}`.trim()).sort();
    assert.deepEqual(outcomes, [
      "error RATE_LIMITED",
      "error RATE_LIMITED",
      "error RATE_LIMITED",
      "ok",
      "ok",
      "ok",
      "ok",
      "ok",
    ]);
  });

  it("writes one line per operation with identity and outcome, hashed args and no token", async () => {
    const dir = mkdtempSync(join(tmpdir(), "mcpgw-audit-"));
    const file = join(dir, "audit.jsonl");
    const gw = await startTestGateway(yaml(`{ file: ${JSON.stringify(file)}, args: hash }`));
    const alice = await clientFor(gw.url, ALICE);
    const bob = await clientFor(gw.url, BOB);
    try {
      for (let i = 0; i < 3; i++) {
        await alice.callTool({ name: "echo__echo", arguments: { text: SECRET_ARG } });
      }
      await alice.callTool({ name: "echo__echo", arguments: { text: BOB } });
      await alice.callTool({ name: "echo__fail", arguments: {} });
      await assert.rejects(alice.callTool({ name: "echo__nope", arguments: {} }));
      await bob.callTool({ name: "echo__echo", arguments: { text: ALICE } });
      await bob.readResource({ uri: "changing://base" });
      await bob.callTool({ name: "changing__add_prompt", arguments: {} });
      // The new prompt is listed once the gateway has re-read the server's lists.
      await waitFor(
        async () => (await bob.listPrompts()).prompts.some((p) => p.name === "changing__prompt_0"),
        20_000,
        "the added prompt",
      );
      await bob.getPrompt({ name: "changing__prompt_0", arguments: { topic: SECRET_ARG } });
      // A 2026-07-28 request, stateless: recorded with its era.
      const modern = await postModern(gw.url, BOB, "tools/call", {
        name: "echo__pid",
        arguments: {},
      });
      assert.ok("result" in await answerOf(modern));
    } finally {
      await alice.close();
      await bob.close();
      await gw.stop();
    }
    const text = readFileSync(file, "utf8");
    const lines = linesOf(file);
    assert.equal(lines.length, 11, text);
    const summary = lines.map((l) => `${l.tokenName} ${l.kind} ${l.name} ${l.outcome}`);
    assert.deepEqual(summary, [
      "alice tool echo__echo ok",
      "alice tool echo__echo ok",
      "alice tool echo__echo ok",
      "alice tool echo__echo ok",
      "alice tool echo__fail tool_error",
      "alice tool echo__nope error",
      "bob tool echo__echo ok",
      "bob resource changing://base ok",
      "bob tool changing__add_prompt ok",
      "bob prompt changing__prompt_0 ok",
      "bob tool echo__pid ok",
    ]);
    assert.equal(lines[10]!.era, "modern");
    assert.equal(lines[10]!.session, null, "a stateless request has no session");
    assert.equal(statSync(file).mode & 0o777, 0o600, "only the gateway's user reads the log");
    const first = lines[0]!;
    assert.equal(first.server, "echo");
    assert.equal(first.era, "legacy");
    assert.deepEqual(first.filters, []);
    assert.equal(typeof first.durationMs, "number");
    assert.ok((first.bytes as number) > SECRET_ARG.length, "the answer's size");
    assert.match(String(first.argsHash), /^hmac-sha256:[0-9a-f]{64}$/);
    assert.equal(lines[1]!.argsHash, first.argsHash, "the same arguments hash the same");
    assert.notEqual(lines[3]!.argsHash, first.argsHash);
    assert.equal(lines[5]!.code, "TOOL_NOT_FOUND");
    assert.ok(!text.includes(SECRET_ARG), "args: hash keeps no argument text");
    assert.ok(!text.includes(ALICE) && !text.includes(BOB), "no token value");
  });

  it("never holds a token value, even with args: full", async () => {
    const dir = mkdtempSync(join(tmpdir(), "mcpgw-audit-"));
    const file = join(dir, "audit.jsonl");
    const gw = await startTestGateway(yaml(`{ file: ${JSON.stringify(file)}, args: full }`));
    const alice = await clientFor(gw.url, ALICE);
    try {
      await alice.callTool({
        name: "echo__echo",
        arguments: { text: `${SECRET_ARG} ${BOB}`, mode: `"${ALICE}"` },
      });
    } finally {
      await alice.close();
      await gw.stop();
    }
    const text = readFileSync(file, "utf8");
    assert.ok(text.includes(SECRET_ARG), "args: full keeps the arguments");
    assert.ok(!text.includes(ALICE) && !text.includes(BOB), text);
    assert.match(text, /\[redacted:token\]/);
  });

  it("rotates the file at its size and keeps every line across the files", async () => {
    const dir = mkdtempSync(join(tmpdir(), "mcpgw-audit-"));
    const file = join(dir, "audit.jsonl");
    const max = 2048;
    const gw = await startTestGateway(
      yaml(`{ file: ${JSON.stringify(file)}, args: none, maxSize: ${max}, keep: 20 }`),
    );
    const alice = await clientFor(gw.url, ALICE);
    const n = 40;
    try {
      for (let i = 0; i < n; i++) await alice.callTool({ name: "echo__pid", arguments: {} });
    } finally {
      await alice.close();
      await gw.stop();
    }
    const files = readdirSync(dir).filter((f) => f.startsWith("audit.jsonl")).sort();
    assert.ok(files.length >= 3, `rotated into ${files.join(", ")}`);
    let total = 0;
    for (const f of files) {
      const size = statSync(join(dir, f)).size;
      assert.ok(size > 0 && size <= max, `${f} is ${size} bytes`);
      total += linesOf(join(dir, f)).length;
    }
    assert.equal(total, n);
    assert.ok(existsSync(`${file}.1`));
  });

  it("writes the same records to the journal with journal: true", async () => {
    const dir = mkdtempSync(join(tmpdir(), "mcpgw-audit-"));
    const config = join(dir, "gateway.yaml");
    writeFileSync(config, yaml("{ journal: true, args: none }"));
    const [cmd, ...pre] = selfCommand();
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const child = spawn(cmd!, [
      ...pre,
      "--config",
      config,
      "--listen",
      `127.0.0.1:${port}`,
      "--log-level",
      "warn",
    ], { stdio: ["ignore", "ignore", "pipe"], env: { ...process.env, JOURNAL_STREAM: "8:1" } });
    let err = "";
    child.stderr!.on("data", (d: Buffer) => (err += d.toString("utf8")));
    const exited = new Promise((r) => child.once("exit", r));
    try {
      await waitFor(
        () => fetch(`${url}/readyz`).then((r) => r.ok, () => false),
        30_000,
        "the gateway to be ready",
      );
      const alice = await clientFor(url, ALICE);
      await alice.callTool({ name: "echo__pid", arguments: {} });
      await alice.close();
      const line = await waitFor(
        () => err.split("\n").find((l) => l.includes('"component":"audit"')),
        20_000,
        "the journal record",
      );
      const m = /^<6>(\{.*\})$/.exec(line!);
      assert.ok(m, line);
      const record = JSON.parse(m[1]!) as Line;
      assert.equal(record.name, "echo__pid");
      assert.equal(record.tokenName, "alice");
      assert.equal(record.outcome, "ok");
      assert.ok(!err.includes(ALICE));
      assert.ok(!existsSync(join(dir, ".mcp-gateway/audit.jsonl")), "journal only: no file");
    } finally {
      process.kill(child.pid!, "SIGTERM");
      await exited;
    }
  });
});

/** A loopback port free a moment ago (--log-level warn hides the line naming the port). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const port = (server.address() as { port: number }).port;
      server.close(() => resolve(port));
    });
  });
}
