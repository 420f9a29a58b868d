/**
 * `oauth: mode: shared` end to end: a real authorization server (oidc-provider: registration,
 * PKCE, refresh tokens, 4 s access tokens) and a real protected MCP server, both child
 * processes; the operator logs in with `mcp-gateway login` (a child process too) while the test
 * posts the provider's login form as a browser would.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { chmodSync, existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { RunningGateway } from "../../../src/cli/mod.ts";
import { selfCommand } from "../../../src/runtime/mod.ts";
import { httpClient, nodeServer, textOf, waitFor } from "../../_helpers/gateway.ts";
import { cliAsync } from "../../cli/_cli.ts";
import {
  browserLogin,
  configFile,
  type Parties,
  revokeAll,
  seenTokens,
  startFromFile,
  startParties,
} from "./_setup.ts";

const TTL_S = 4;

describe("upstream OAuth, shared mode", { timeout: 180_000 }, () => {
  let parties: Parties;
  let as: Parties["as"];
  let upstream: Parties["upstream"];
  let dir: string;
  let file: string;
  let gw: RunningGateway | undefined;
  let base: string;
  let client: Client | undefined;

  const start = async () => {
    ({ gw, base } = await startFromFile(file));
    client = await httpClient(base);
  };
  const stop = async () => {
    await client?.close();
    await gw?.stop();
    client = undefined;
    gw = undefined;
  };
  const call = async (name: string, args = {}) => await client!.callTool({ name, arguments: args });
  const status = async (name: string) => {
    const snap = await (await fetch(`${base}/status.json`)).json() as {
      upstreams: { name: string; state: string; lastError?: string | null }[];
    };
    return snap.upstreams.find((s) => s.name === name)!;
  };
  /** Runs `mcp-gateway login tracker` and signs in as `sub` on the URL it prints. */
  const login = async (sub: string) => {
    // MCPGW_BINARY: the compiled binary runs the command (the gateway stays in this process).
    const binary = process.env.MCPGW_BINARY;
    const [command, ...args] = binary ? [binary] : selfCommand();
    const child: ChildProcess = spawn(command!, [
      ...args,
      "login",
      "tracker",
      "--config",
      file,
      "--url",
      base,
    ], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout!.on("data", (d: Buffer) => (out += d.toString("utf8")));
    child.stderr!.on("data", (d: Buffer) => (err += d.toString("utf8")));
    const exited = new Promise<number | null>((r) => child.on("exit", (code) => r(code)));
    const url = await waitFor(() => /^\s+(http\S+)$/m.exec(out)?.[1], 30_000, `login URL (${err})`);
    const answer = await browserLogin(url!, sub);
    assert.equal(answer.status, 200, answer.text);
    assert.match(answer.text, /Server tracker is connected/);
    assert.equal(await exited, 0, err);
  };

  before(async () => {
    parties = await startParties(TTL_S);
    ({ as, upstream } = parties);
    file = configFile(
      "mcpgw-oauth-",
      `servers:\n` +
        `  tracker: { url: ${JSON.stringify(upstream.url)}, oauth: { mode: shared } }\n` +
        `  plain: ${nodeServer("echo.mjs")}\n`,
    );
    dir = dirname(file);
    await start();
  });
  after(async () => {
    await stop();
    await parties?.stop();
  });

  it("before a login, the server needs one and its calls say how to log in", async () => {
    assert.equal((await status("tracker")).state, "needs-login");
    const result = await call("tracker__whoami").catch((e: Error) => e);
    const text = result instanceof Error ? result.message : textOf(result);
    assert.match(text, /server tracker needs a login: run `mcp-gateway login tracker` or open /);
    assert.ok(text.includes(`${base}/oauth/connect/tracker`), text);
    assert.equal(textOf(await call("plain__echo", { a: 1 })).includes('"a":1'), true);
  });

  it("mcp-gateway login stores a credential and the calls act as the signed-in user", async () => {
    await login("alice");
    await waitFor(async () => (await status("tracker")).state === "up", 20_000, "tracker up");
    assert.equal(textOf(await call("tracker__whoami")), "alice");
  });

  it("the stored credential is sealed: no token in clear text, key file 0600", async () => {
    const stored = readFileSync(join(dir, ".mcp-gateway/credentials/tracker.json"), "utf8");
    const tokens = await seenTokens(upstream.base);
    assert.ok(tokens.length > 0);
    for (const t of tokens) assert.ok(!stored.includes(t), "an access token is in the file");
    assert.ok(!/access_token|refresh_token|alice/.test(stored), stored);
    const mode = statSync(join(dir, ".mcp-gateway/credentials.key")).mode & 0o777;
    assert.equal(mode, 0o600);
  });

  it("an expired access token is refreshed before the call: no call fails", async () => {
    const before = new Set(await seenTokens(upstream.base));
    await new Promise((r) => setTimeout(r, TTL_S * 1000 + 500));
    assert.equal(textOf(await call("tracker__whoami")), "alice");
    const fresh = (await seenTokens(upstream.base)).filter((t) => !before.has(t));
    assert.ok(fresh.length > 0, "the call went out with a new access token");
    assert.equal((await status("tracker")).state, "up");
  });

  it("the credential survives a restart", async () => {
    await stop();
    await start();
    await waitFor(async () => (await status("tracker")).state === "up", 20_000, "tracker up");
    assert.equal(textOf(await call("tracker__whoami")), "alice");
  });

  it("a revoked refresh token puts the server in needs-login with the reason", async () => {
    await revokeAll(as.issuer);
    await new Promise((r) => setTimeout(r, TTL_S * 1000 + 500));
    const result = await call("tracker__whoami").catch((e: Error) => e);
    const text = result instanceof Error ? result.message : textOf(result);
    assert.match(text, /needs a login/);
    const s = await waitFor(
      async () => {
        const s = await status("tracker");
        return s.state === "needs-login" ? s : null;
      },
      20_000,
      "needs-login",
    );
    assert.match(String(s!.lastError), /refresh was refused: invalid_grant/);
    // Not down, no restart scheduled; the other server is untouched.
    await new Promise((r) => setTimeout(r, 1500));
    assert.equal((await status("tracker")).state, "needs-login");
    assert.equal((await status("plain")).state, "up");
    assert.match(textOf(await call("plain__echo", { b: 2 })), /"b":2/);
    const again = await call("tracker__whoami").catch((e: Error) => e);
    assert.match(again instanceof Error ? again.message : textOf(again), /needs a login/);
  });

  it("the status page shows needs login with a Connect link that logs in again", async () => {
    const page = await (await fetch(`${base}/`)).text();
    assert.match(page, /needs login<\/span>\s*<a class="connect" href="\/oauth\/connect\/tracker"/);
    assert.ok(!page.includes("access_token"));
    const res = await fetch(`${base}/oauth/connect/tracker`, { redirect: "manual" });
    assert.equal(res.status, 303);
    const location = res.headers.get("location")!;
    assert.ok(location.startsWith(`${as.issuer}/auth?`), location);
    const params = new URL(location).searchParams;
    assert.equal(params.get("code_challenge_method"), "S256");
    assert.equal(params.get("resource"), upstream.url);
    assert.equal(params.get("redirect_uri"), `${base}/oauth/callback`);
    assert.ok((params.get("state") ?? "").length >= 43);
    const answer = await browserLogin(location, "bob");
    assert.equal(answer.status, 200, answer.text);
    // The state was used once: the same callback again is refused.
    const replay = await fetch(answer.url);
    assert.equal(replay.status, 403);
    await waitFor(async () => (await status("tracker")).state === "up", 20_000, "tracker up");
    assert.equal(textOf(await call("tracker__whoami")), "bob");
  });

  it("403 insufficient_scope asks for the larger scope at the next login (step-up)", async () => {
    const denied = await call("tracker__write_note").catch((e: Error) => e);
    assert.match(denied instanceof Error ? denied.message : textOf(denied), /needs a login/);
    const s = await status("tracker");
    assert.equal(s.state, "needs-login");
    assert.match(String(s.lastError), /needs scope "read write" \(insufficient_scope\)/);
    const res = await fetch(`${base}/oauth/connect/tracker`, { redirect: "manual" });
    const location = res.headers.get("location")!;
    assert.equal(new URL(location).searchParams.get("scope"), "read write");
    assert.equal((await browserLogin(location, "bob")).status, 200);
    await waitFor(async () => (await status("tracker")).state === "up", 20_000, "tracker up");
    assert.equal(textOf(await call("tracker__write_note")), "noted");
  });

  it("the console lists the shared login with its expiry; `logout` drops it", async () => {
    const { accounts } = await (await fetch(`${base}/admin/oauth`)).json() as {
      accounts: { server: string; identity: string | null; expiresAt: string | null }[];
    };
    const tracker = accounts.find((a) => a.server === "tracker")!;
    assert.equal(tracker.identity, null);
    assert.ok(Date.parse(tracker.expiresAt!) > Date.now(), `expires ${tracker.expiresAt}`);
    const page = await (await fetch(`${base}/`)).text();
    assert.match(page, /id="accounts"[\s\S]*\(shared login\)[\s\S]*Disconnect/);
    const out = await cliAsync(["logout", "tracker", "--config", file, "--url", base]);
    assert.equal(out.code, 0, out.stderr);
    assert.match(out.stdout, /tracker: logged out/);
    const s = await waitFor(
      async () => {
        const s = await status("tracker");
        return s.state === "needs-login" ? s : null;
      },
      10_000,
      "needs-login after the logout",
    );
    assert.match(String(s!.lastError), /disconnected/);
    assert.ok(!existsSync(join(dir, ".mcp-gateway/credentials/tracker.json")), "credential kept");
    const again = await cliAsync(["logout", "tracker", "--config", file, "--url", base]);
    assert.equal(again.code, 0, "logging out twice is not an error");
  });

  it("a callback with a state the gateway never handed out is refused", async () => {
    const res = await fetch(`${base}/oauth/callback?state=forged&code=abc`);
    assert.equal(res.status, 403);
    assert.match(await res.text(), /unknown, used or expired/);
  });

  it("with auth on, only an admin token may begin a login", async () => {
    await stop();
    const authFile = join(dir, "auth.yaml");
    writeFileSync(
      authFile,
      "gateway:\n  auth:\n    tokens:\n" +
        "      - { name: ops, token: ops-token-0123456789, admin: true }\n" +
        "      - { name: dev, token: dev-token-0123456789 }\n" +
        `servers:\n  tracker: { url: ${JSON.stringify(upstream.url)}, oauth: { mode: shared } }\n`,
    );
    const { gw: authed, base: authedBase } = await startFromFile(authFile);
    try {
      const url = `${authedBase}/oauth/login/tracker`;
      const post = (token?: string) =>
        fetch(url, { method: "POST", headers: token ? { authorization: `Bearer ${token}` } : {} });
      assert.equal((await post()).status, 401);
      assert.equal((await post("dev-token-0123456789")).status, 403);
      const ok = await post("ops-token-0123456789");
      assert.equal(ok.status, 200);
      assert.ok(
        ((await ok.json()) as { authorizationUrl: string }).authorizationUrl.startsWith(as.issuer),
      );
    } finally {
      await authed.stop();
    }
  });

  it("a key file others may read is refused at start", async () => {
    await stop();
    chmodSync(join(dir, ".mcp-gateway/credentials.key"), 0o644);
    await assert.rejects(
      startFromFile(file),
      /credentials\.key has mode 0644: others may read it/,
    );
    chmodSync(join(dir, ".mcp-gateway/credentials.key"), 0o600);
  });
});
