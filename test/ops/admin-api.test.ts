/**
 * The admin API and the command-line verbs over it, against a real gateway on a loopback port
 * with real stdio servers: `servers` lists state, reason, restarts and next retry; disable takes
 * a server's tools away with `list_changed` and survives a reload (kept in the state folder);
 * enable brings it back; restart starts a server that gave up; `servers logs` shows a server's
 * stderr; sessions are listed by handle and ended; a non-admin token and a page of another
 * origin are refused; every action lands in the audit log with the admin's token name.
 */
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { nodeServer, startTestGateway, type TestGateway, waitFor } from "../_helpers/gateway.ts";
import { authedHttpClient, bearer } from "../security/_http.ts";
import { cliAsync } from "../cli/_cli.ts";

const ADMIN = "admin-token-0123456789abcdef";
const USER = "user-token-0123456789abcdef0";

type Server = {
  name: string;
  state: string;
  restarts: number;
  gaveUp: boolean;
  nextRetryAt: string | null;
  toolsExposed: number;
  lastError: string | null;
  override: { enabled: boolean; by: string | null } | null;
};

describe("the admin API", () => {
  let gw: TestGateway;
  let client: Client;
  let audit: string;
  let state: string;
  const changes: number[] = [];
  const admin = (path: string, init: RequestInit = {}) =>
    fetch(`${gw.url}${path}`, {
      ...init,
      headers: { ...bearer(ADMIN), ...init.headers as Record<string, string> },
    });
  const servers = async () =>
    ((await (await admin("/admin/servers")).json()) as { servers: Server[] }).servers;
  const server = async (name: string) => (await servers()).find((s) => s.name === name)!;
  const toolNames = async () => (await client.listTools()).tools.map((t) => t.name).sort();
  const env = () => ({ ...process.env, MCP_GATEWAY_TOKEN: ADMIN });

  before(async () => {
    const dir = mkdtempSync(join(tmpdir(), "mcpgw-admin-"));
    audit = join(dir, "audit.jsonl");
    state = join(dir, "state");
    gw = await startTestGateway(
      `gateway:
  state: ${JSON.stringify(state)}
  audit: { file: ${JSON.stringify(audit)} }
  auth:
    tokens:
      - { name: on-call, token: ${ADMIN}, admin: true }
      - { name: agent, token: ${USER} }
servers:
  echo: ${nodeServer("echo.mjs")}
  broken: ${
        nodeServer(
          "exit-at-start.mjs",
          `env: { FATAL_MESSAGE: "fatal: BROKEN_TOKEN is not set" }, restart: { initialDelay: 50ms, maxRestarts: 1 }`,
        )
      }
`,
      { dir },
    );
    client = await authedHttpClient(gw.url, USER);
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      changes.push(Date.now());
    });
  });
  after(async () => {
    await client.close();
    await gw.stop();
  });

  it("refuses a token that is not admin, and an action from another origin", async () => {
    const asUser = await fetch(`${gw.url}/admin/servers`, { headers: bearer(USER) });
    assert.equal(asUser.status, 403);
    assert.match((await asUser.json()).error.message, /admin token/);
    const post = await fetch(`${gw.url}/admin/servers/echo/restart`, {
      method: "POST",
      headers: bearer(USER),
    });
    assert.equal(post.status, 403);
    // Another port of localhost passes the default allowedOrigins, not the same-origin rule.
    const crossOrigin = await admin("/admin/servers/echo/disable", {
      method: "POST",
      headers: {
        origin: "http://localhost:1",
        "content-type": "application/x-www-form-urlencoded",
      },
    });
    assert.equal(crossOrigin.status, 403);
    assert.match(await crossOrigin.text(), /own page, not from origin http:\/\/localhost:1/);
    const crossSite = await admin("/admin/servers/echo/disable", {
      method: "POST",
      headers: { "sec-fetch-site": "same-site" },
    });
    assert.equal(crossSite.status, 403);
    assert.equal((await server("echo")).state, "up", "nothing was disabled");
  });

  it("lists each server's state, reason, restarts and that it gave up", async () => {
    await waitFor(async () => (await server("broken")).gaveUp, 10_000, "broken to give up");
    const list = await servers();
    const echo = list.find((s) => s.name === "echo")!;
    assert.equal(echo.state, "up");
    assert.ok(echo.toolsExposed > 0);
    const broken = list.find((s) => s.name === "broken")!;
    assert.equal(broken.state, "down");
    assert.equal(broken.nextRetryAt, null, "gave up: no retry is scheduled");
    assert.match(broken.lastError!, /BROKEN_TOKEN is not set/);
    const out = await cliAsync(["servers", "--url", gw.url], env());
    assert.equal(out.code, 0, out.stderr);
    assert.match(out.stdout, /^SERVER\s+STATE\s+TOOLS/m);
    assert.match(out.stdout, /^broken\s+down \(gave up\)/m);
    assert.match(out.stdout, /^echo\s+up\s+\d+/m);
  });

  it("shows a stdio server's last stderr lines", async () => {
    const out = await cliAsync(["servers", "logs", "broken", "--url", gw.url], env());
    assert.equal(out.code, 0, out.stderr);
    assert.match(out.stdout, /fatal: BROKEN_TOKEN is not set/);
  });

  it("restarts a server that gave up", async () => {
    const before = await server("broken");
    const out = await cliAsync(["servers", "restart", "broken", "--url", gw.url], env());
    assert.equal(out.code, 0, out.stderr);
    assert.match(out.stdout, /broken: restarted; now down: .*BROKEN_TOKEN/);
    const after = await server("broken");
    assert.ok(after.restarts > before.restarts, `${after.restarts} > ${before.restarts}`);
  });

  it("disables a server (its tools leave with list_changed) across a reload, then enables it", async () => {
    assert.ok((await toolNames()).some((n) => n.startsWith("echo__")));
    const heard = changes.length;
    const out = await cliAsync(["servers", "disable", "echo", "--url", gw.url], env());
    assert.equal(out.code, 0, out.stderr);
    await waitFor(() => changes.length > heard, 5000, "tools/list_changed");
    assert.deepEqual((await toolNames()).filter((n) => n.startsWith("echo__")), []);
    const echo = await server("echo");
    assert.equal(echo.state, "disabled");
    assert.deepEqual(echo.override, { ...echo.override, enabled: false, by: "on-call" });
    assert.ok(existsSync(join(state, "overrides.json")), "the override is in the state folder");

    assert.equal(await gw.running.reload("test"), true);
    assert.equal((await server("echo")).state, "disabled", "a reload keeps the override");

    const back = await cliAsync(["servers", "enable", "echo", "--url", gw.url], env());
    assert.equal(back.code, 0, back.stderr);
    await waitFor(async () => (await server("echo")).state === "up", 10_000, "echo up");
    assert.equal((await server("echo")).override, null, "enabling what the file enables drops it");
    await waitFor(
      async () => (await toolNames()).some((n) => n.startsWith("echo__")),
      5000,
      "echo's tools back",
    );
  });

  it("refuses an action on a server that is not configured", async () => {
    const res = await admin("/admin/servers/nope/restart", { method: "POST" });
    assert.equal(res.status, 404);
    assert.match((await res.json()).error.message, /no server "nope"/);
    // A console form gets a page that says why, with the way back.
    const form = await admin("/admin/servers/nope/restart", {
      method: "POST",
      headers: { origin: gw.url, "content-type": "application/x-www-form-urlencoded" },
    });
    assert.equal(form.status, 404);
    assert.match(form.headers.get("content-type") ?? "", /^text\/html/);
    const page = await form.text();
    assert.match(page, /no server &quot;nope&quot; is configured/);
    assert.match(page, /<a href="\/">Back to the console<\/a>/);
    const out = await cliAsync(["servers", "disable", "nope", "--url", gw.url], env());
    assert.equal(out.code, 1);
    assert.match(out.stderr, /no server "nope"/);
  });

  it("lists sessions by handle and ends one", async () => {
    const other = await authedHttpClient(gw.url, USER);
    try {
      const sessionId = (other.transport as { sessionId?: string }).sessionId!;
      const list = await cliAsync(["sessions", "--url", gw.url, "--json"], env());
      assert.equal(list.code, 0, list.stderr);
      const sessions = JSON.parse(list.stdout) as { handle: string; tokenName: string }[];
      assert.ok(sessions.length >= 2);
      assert.ok(!list.stdout.includes(sessionId), "a session id is never shown");
      const table = await cliAsync(["sessions", "--url", gw.url], env());
      assert.match(table.stdout, /^SESSION\s+KIND\s+TOKEN/m);
      // The newest session is the one just opened.
      const handle = sessions.at(-1)!.handle;
      const ended = await cliAsync(["sessions", "end", handle, "--url", gw.url], env());
      assert.equal(ended.code, 0, ended.stderr);
      await assert.rejects(other.listTools());
      const again = await admin(`/admin/sessions/${handle}/end`, { method: "POST" });
      assert.equal(again.status, 404);
      assert.ok((await toolNames()).length > 0, "the other session goes on");
    } finally {
      await other.close().catch(() => {});
    }
  });

  it("writes every action to the audit log with the admin's token name", async () => {
    const read = () =>
      readFileSync(audit, "utf8").split("\n").filter(Boolean).map((l) =>
        JSON.parse(l) as Record<string, unknown>
      ).filter((l) => l.kind === "admin");
    // The file is written a moment after the action.
    await waitFor(
      () => read().filter((l) => l.action === "session.end").length === 2,
      5000,
      "both session.end lines",
    );
    const lines = read();
    const seen = lines.map((l) => `${l.action} ${l.target} ${l.outcome}`);
    for (
      const want of [
        "server.restart broken ok",
        "server.disable echo ok",
        "server.enable echo ok",
        "server.restart nope error",
        "session.end",
      ]
    ) {
      assert.ok(seen.some((s) => s.startsWith(want)), `${want} in ${seen.join(" | ")}`);
    }
    assert.ok(lines.every((l) => l.tokenName === "on-call"), JSON.stringify(lines));
    // The command line's requests are `api`; the form post of the console is `console`.
    assert.deepEqual(
      lines.filter((l) => l.via === "console").map((l) => `${l.action} ${l.target}`),
      ["server.restart nope"],
    );
    const ended = lines.find((l) => l.action === "session.end" && l.outcome === "ok")!;
    assert.equal(ended.sessionToken, "agent", "the ended session's own token");
    assert.ok(!readFileSync(audit, "utf8").includes(ADMIN), "no token value in the audit log");
  });
});
