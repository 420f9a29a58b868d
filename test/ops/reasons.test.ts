/**
 * Reasons everywhere: a server that exits at start is down with its exit code and the line it
 * wrote to stderr — in the `upstream down` warning, on the Upstream object, in `/readyz` and in
 * what an agent gets when it calls one of the server's tools, even though it never listed any.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { httpClient, nodeServer, startTestGateway, textOf, waitFor } from "../_helpers/gateway.ts";
import { captureLogs } from "./_ops.ts";

/** A stdio server that dies at start the way Node does on an uncaught error. */
const throwing = (message: string, extra = "") =>
  `{ command: node, args: ["-e", ${JSON.stringify(`throw new Error(${JSON.stringify(message)})`)}]${
    extra ? ", " + extra : ""
  } }`;

const TOKEN_MISSING = "exited with code 1: Error: GITHUB_TOKEN is not set";

describe("why a server is down", () => {
  it("logs the exit code and the server's own error line at warn level", async () => {
    const logs = captureLogs("warn");
    const gw = await startTestGateway(`
servers:
  gh: ${throwing("GITHUB_TOKEN is not set", "restart: { initialDelay: 30s }")}
  plain: ${
      nodeServer(
        "exit-at-start.mjs",
        "env: { FATAL_MESSAGE: 'config file /etc/x.toml missing' }, restart: { initialDelay: 30s }",
      )
    }
`);
    try {
      const down = (server: string) =>
        logs.lines.find((l) => l.component === `gateway.upstream.${server}`)!;
      assert.equal(down("gh").msg, "upstream down");
      assert.equal(down("gh").level, "warn");
      assert.equal(down("gh").error, TOKEN_MISSING);
      assert.ok((down("gh").stderr as string[]).includes("Error: GITHUB_TOKEN is not set"));
      assert.equal(down("plain").error, "exited with code 1: config file /etc/x.toml missing");

      const gh = gw.running.gateway.pool.get("gh")!;
      assert.equal(gh.lastError, TOKEN_MISSING);
      assert.deepEqual(gh.lastExit, { code: 1, signal: null });
      assert.ok(gh.stderrTail.includes("Error: GITHUB_TOKEN is not set"), gh.stderrTail.join("|"));
      assert.ok(gh.nextRetryAt! > Date.now());
      assert.equal(gh.gaveUp, false);
      const plain = gw.running.gateway.pool.get("plain")!;
      assert.deepEqual(plain.stderrTail, ["config file /etc/x.toml missing"]);
    } finally {
      await gw.stop();
      logs.restore();
    }
  });

  it("says a silent server did not answer the handshake, with what it wrote", async () => {
    const script = "console.error('waiting for a licence key'); setInterval(() => {}, 1e9)";
    const gw = await startTestGateway(`
servers:
  mute:
    command: node
    args: ["-e", ${JSON.stringify(script)}]
    connectTimeout: 4s
    restart: { initialDelay: 30s }
`);
    try {
      const mute = gw.running.gateway.pool.get("mute")!;
      assert.equal(
        mute.lastError,
        "no answer to the MCP handshake within 4000ms; stderr: waiting for a licence key",
      );
      assert.equal(mute.lastExit, null); // the gateway killed it; it did not exit by itself
    } finally {
      await gw.stop();
    }
  });
});

describe("calling a tool of a server that never came up", () => {
  it("answers isError with the reason and the next restart, not unknown tool", async () => {
    const gw = await startTestGateway(`
servers:
  gh: ${throwing("GITHUB_TOKEN is not set", "restart: { initialDelay: 30s }")}
  echo: ${nodeServer("echo.mjs")}
`);
    const client = await httpClient(gw.url);
    try {
      const names = (await client.listTools()).tools.map((t) => t.name);
      assert.ok(!names.some((n) => n.startsWith("gh__")), names.join(","));
      const r = await client.callTool({ name: "gh__create_issue", arguments: { title: "x" } });
      assert.equal(r.isError, true);
      assert.match(
        textOf(r),
        /^server "gh" is down: exited with code 1: Error: GITHUB_TOKEN is not set; next restart in \d+s$/,
      );
      // Names of no configured server stay unknown.
      await assert.rejects(
        client.callTool({ name: "nope__create_issue", arguments: {} }),
        /unknown tool "nope__create_issue"/,
      );
    } finally {
      await client.close();
      await gw.stop();
    }
  });

  it("says when the gateway gave up restarting it", async () => {
    const gw = await startTestGateway(`
servers:
  gh: ${throwing("GITHUB_TOKEN is not set", "restart: { initialDelay: 50ms, maxRestarts: 2 }")}
  echo: ${nodeServer("echo.mjs")}
`);
    const client = await httpClient(gw.url);
    try {
      const gh = gw.running.gateway.pool.get("gh")!;
      await waitFor(() => gh.gaveUp, 20_000, "the gateway to give up on gh");
      const r = await client.callTool({ name: "gh__anything", arguments: {} });
      assert.equal(r.isError, true);
      assert.equal(
        textOf(r),
        `server "gh" is down: ${TOKEN_MISSING}; gave up after 2 restarts`,
      );
    } finally {
      await client.close();
      await gw.stop();
    }
  });
});

describe("prompts, resources and completions of a server that never came up", () => {
  it("name the server and why it is down, not an unknown prompt or resource", async () => {
    const gw = await startTestGateway(`
servers:
  gh: ${throwing("GITHUB_TOKEN is not set", "restart: { initialDelay: 30s }")}
  echo: ${nodeServer("echo.mjs")}
`);
    const client = await httpClient(gw.url);
    const down = /server "gh" is down: exited with code 1: Error: GITHUB_TOKEN is not set/;
    try {
      await assert.rejects(client.getPrompt({ name: "gh__triage" }), down);
      await assert.rejects(client.readResource({ uri: "repo://gh/readme" }), down);
      await assert.rejects(
        client.complete({
          ref: { type: "ref/prompt", name: "gh__triage" },
          argument: { name: "q", value: "" },
        }),
        down,
      );
      // Names of no configured server stay unknown.
      await assert.rejects(client.getPrompt({ name: "nope__triage" }), /unknown prompt/);
    } finally {
      await client.close();
      await gw.stop();
    }
  });
});

describe("/readyz", () => {
  it("is 503 with every down server and its reason when 0 of 3 are up", async () => {
    const gw = await startTestGateway(`
servers:
  gh: ${throwing("GITHUB_TOKEN is not set", "restart: { initialDelay: 30s }")}
  missing: { command: /nonexistent/mcp-server, restart: { initialDelay: 30s } }
  plain: ${nodeServer("exit-at-start.mjs", "restart: { initialDelay: 30s }")}
`);
    try {
      const res = await fetch(`${gw.url}/readyz`);
      assert.equal(res.status, 503);
      const body = await res.json() as Record<string, unknown> & {
        down: { server: string; reason: string; required: boolean; retryInMs?: number }[];
      };
      assert.equal(body.status, "not ready");
      assert.equal(body.reason, "no server is up (0 of 3)");
      assert.equal(body.up, 0);
      assert.deepEqual(
        body.down.map((d) => [d.server, d.reason, d.required]),
        [
          ["gh", TOKEN_MISSING, false],
          ["missing", "command not found: /nonexistent/mcp-server", false],
          ["plain", "exited with code 1: fatal: cannot start", false],
        ],
      );
      assert.ok(body.down.every((d) => typeof d.retryInMs === "number" && d.retryInMs > 0));
    } finally {
      await gw.stop();
    }
  });

  it("is 200 while one server is up and no required one is down, listing the down one", async () => {
    const gw = await startTestGateway(`
servers:
  gh: ${throwing("GITHUB_TOKEN is not set", "restart: { initialDelay: 30s }")}
  echo: ${nodeServer("echo.mjs")}
`);
    try {
      const res = await fetch(`${gw.url}/readyz`);
      assert.equal(res.status, 200);
      const body = await res.json() as { status: string; down: { server: string }[] };
      assert.equal(body.status, "ready");
      assert.deepEqual(body.down.map((d) => d.server), ["gh"]);
    } finally {
      await gw.stop();
    }
  });

  it("leaves the reasons out when auth is on (it answers without a token)", async () => {
    const gw = await startTestGateway(`
gateway:
  auth: { tokens: [{ name: ops, token: "ops-token-0123456789abcdef" }] }
servers:
  gh: ${throwing("GITHUB_TOKEN is not set", "restart: { initialDelay: 30s }")}
`);
    try {
      const res = await fetch(`${gw.url}/readyz`);
      assert.equal(res.status, 503);
      const body = await res.json() as { down: Record<string, unknown>[] };
      assert.deepEqual(body.down.map((d) => [d.server, d.state, d.required, "reason" in d]), [
        ["gh", "down", false, false],
      ]);
      assert.ok(!JSON.stringify(body).includes("GITHUB_TOKEN"));
    } finally {
      await gw.stop();
    }
  });

  it("is 503 naming a required server that is down, even with others up", async () => {
    const gw = await startTestGateway(`
servers:
  gh: ${throwing("GITHUB_TOKEN is not set", "required: true, restart: { initialDelay: 30s }")}
  echo: ${nodeServer("echo.mjs")}
`);
    try {
      const res = await fetch(`${gw.url}/readyz`);
      assert.equal(res.status, 503);
      const body = await res.json() as {
        reason: string;
        down: { server: string; reason: string; required: boolean }[];
      };
      assert.equal(body.reason, 'required server "gh" not up');
      assert.deepEqual(body.down.map((d) => [d.server, d.reason, d.required]), [
        ["gh", TOKEN_MISSING, true],
      ]);
    } finally {
      await gw.stop();
    }
  });
});
