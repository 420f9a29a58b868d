/**
 * `mcp-gateway connect-client` and `import --write`: the gateway written into each client's
 * config — the rest of the file kept (VS Code's comments too), a backup made first, `--dry-run`
 * showing the diff — and the entry written works: a real SDK client started from it (stdio) or
 * pointed at it (HTTP, with the token from the named variable) lists the gateway's tools.
 * `import --write` replaces the imported servers with the gateway in one step, its secrets in a
 * 0600 env file rather than the YAML.
 */
import assert from "node:assert/strict";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { parse } from "jsonc-parser";
import { fixture, nodeServer, startTestGateway, type TestGateway } from "../_helpers/gateway.ts";
import { cli } from "./_cli.ts";

const TOKEN = "connect-client-token-0123456789";

/** A folder with a gateway.yaml serving the echo fixture. */
function gatewayDir(extra = ""): { dir: string; config: string } {
  const dir = mkdtempSync(join(tmpdir(), "mcpgw-connect-"));
  const config = join(dir, "gateway.yaml");
  writeFileSync(config, `${extra}servers:\n  echo: ${nodeServer("echo.mjs")}\n`);
  return { dir, config };
}

/**
 * The tools of the stdio server `entry` names, started as the client would, once an upstream's
 * tools are listed (they join as the upstream comes up, announced with `list_changed`).
 */
async function toolsOfStdioEntry(entry: { command: string; args: string[] }): Promise<string[]> {
  const client = new Client({ name: "as-the-client", version: "1.0.0" });
  await client.connect(
    new StdioClientTransport({ command: entry.command, args: entry.args, stderr: "ignore" }),
  );
  try {
    let names: string[] = [];
    for (let i = 0; i < 40 && !names.some((n) => n.startsWith("echo__")); i++) {
      if (i > 0) await new Promise((r) => setTimeout(r, 250));
      names = (await client.listTools()).tools.map((t) => t.name);
    }
    return names;
  } finally {
    await client.close();
  }
}

const VSCODE = `// my VS Code MCP servers
{
  "servers": {
    /* keep me */
    "other": { "type": "stdio", "command": "other-mcp" }, // trailing comment
  },
  "inputs": [],
}
`;

describe("connect-client", () => {
  it("writes the gateway into VS Code's mcp.json, keeping comments and the rest", () => {
    const { config, dir } = gatewayDir();
    const file = join(dir, "mcp.json");
    writeFileSync(file, VSCODE);
    const r = cli(["connect-client", "vscode", "--config", config, "--file", file, "--stdio"]);
    assert.equal(r.code, 0, r.stderr);
    const after = readFileSync(file, "utf8");
    // Every line of the old file is still there, in order.
    let at = 0;
    for (const line of VSCODE.split("\n").filter(Boolean)) {
      const found = after.indexOf(line, at);
      assert.ok(found >= at, `kept: ${line}\n---\n${after}`);
      at = found + line.length;
    }
    const servers = parse(after).servers;
    assert.deepEqual(Object.keys(servers), ["mcp-gateway", "other"]);
    assert.equal(servers["mcp-gateway"].type, "stdio");
    const backups = readdirSync(dir).filter((f) => /^mcp\.json\..*\.bak$/.test(f));
    assert.equal(backups.length, 1);
    assert.equal(readFileSync(join(dir, backups[0]!), "utf8"), VSCODE);
  });

  it("prints the diff with --dry-run and changes nothing", () => {
    const { config, dir } = gatewayDir();
    const file = join(dir, "mcp.json");
    writeFileSync(file, VSCODE);
    const r = cli(["connect-client", "vscode", "--config", config, "--file", file, "--dry-run"]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^--- .*mcp\.json\tnow\n\+\+\+ .*mcp\.json\tafter\n/m);
    assert.match(r.stdout, /^\+ +"mcp-gateway": \{$/m);
    assert.equal(readFileSync(file, "utf8"), VSCODE);
    assert.deepEqual(readdirSync(dir).filter((f) => f.endsWith(".bak")), []);
  });

  it("gives Claude Desktop a stdio gateway on this config and profile, which serves", async () => {
    const { config, dir } = gatewayDir("profiles:\n  only-echo: { tools: ['echo__echo'] }\n");
    const file = join(dir, "Claude", "claude_desktop_config.json");
    const r = cli([
      "connect-client",
      "claude-desktop",
      "--config",
      config,
      "--file",
      file,
      "--profile",
      "only-echo",
    ]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(statSync(file).mode & 0o777, 0o600, "a new client file is private");
    const entry = JSON.parse(readFileSync(file, "utf8")).mcpServers["mcp-gateway-only-echo"];
    assert.deepEqual(entry.args.slice(-5), [
      "--stdio",
      "--config",
      config,
      "--profile",
      "only-echo",
    ]);
    assert.deepEqual(await toolsOfStdioEntry(entry), ["echo__echo"]);
  });

  it("finds each client's usual file under the home folder", () => {
    const { config } = gatewayDir();
    const home = mkdtempSync(join(tmpdir(), "mcpgw-home-"));
    const env = { ...process.env, HOME: home, XDG_CONFIG_HOME: join(home, ".config") };
    const expected: Record<string, string> = {
      "claude-code": ".claude.json",
      cursor: ".cursor/mcp.json",
      windsurf: ".codeium/windsurf/mcp_config.json",
    };
    if (process.platform === "linux") {
      expected["claude-desktop"] = ".config/Claude/claude_desktop_config.json";
      expected.vscode = ".config/Code/User/mcp.json";
    }
    for (const [client, path] of Object.entries(expected)) {
      const r = cli(["connect-client", client, "--config", config], undefined, env);
      assert.equal(r.code, 0, r.stderr);
      assert.ok(existsSync(join(home, path)), `${client}: ${path}`);
    }
  });

  it("refuses an unknown client or profile, naming it", () => {
    const { config } = gatewayDir();
    const r = cli(["connect-client", "emacs", "--config", config]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /unknown client "emacs" \(expected claude-desktop, claude-code/);
    const p = cli(["connect-client", "cursor", "--config", config, "--profile", "nope"]);
    assert.equal(p.code, 2);
    assert.match(p.stderr, /no profile "nope"/);
  });
});

describe("connect-client to a running gateway over HTTP", () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startTestGateway(`
gateway: { auth: { tokens: [{ name: me, token: "${TOKEN}" }] } }
servers:
  echo: ${nodeServer("echo.mjs")}
`);
  });
  after(async () => await gw?.stop());

  const cases = [
    { client: "claude-code", key: "mcpServers", url: "url", ref: "${MY_TOKEN}" },
    { client: "cursor", key: "mcpServers", url: "url", ref: "${env:MY_TOKEN}" },
    { client: "vscode", key: "servers", url: "url", ref: "${env:MY_TOKEN}" },
    { client: "windsurf", key: "mcpServers", url: "serverUrl", ref: "${env:MY_TOKEN}" },
  ];
  for (const { client, key, url, ref } of cases) {
    it(`${client}: the URL and the token's variable, in the client's syntax, connect`, async () => {
      const file = join(mkdtempSync(join(tmpdir(), "mcpgw-connect-")), "mcp.json");
      const r = cli([
        "connect-client",
        client,
        "--config",
        join(gw.dir, "gateway.yaml"),
        "--file",
        file,
        "--url",
        gw.url,
        "--token-env",
        "MY_TOKEN",
      ]);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stderr, /reads the token from the environment variable MY_TOKEN/);
      const text = readFileSync(file, "utf8");
      assert.ok(!text.includes(TOKEN), "the token itself is never written");
      const entry = JSON.parse(text)[key]["mcp-gateway"];
      assert.equal(entry.headers.Authorization, `Bearer ${ref}`);
      // As the client does: the variable's value in place of the reference.
      const headers = { Authorization: entry.headers.Authorization.replace(ref, TOKEN) };
      const sdk = new Client({ name: client, version: "1.0.0" });
      await sdk.connect(
        new StreamableHTTPClientTransport(new URL(entry[url]), { requestInit: { headers } }),
      );
      try {
        assert.ok((await sdk.listTools()).tools.some((t) => t.name === "echo__echo"));
      } finally {
        await sdk.close();
      }
    });
  }
});

describe("import --write", () => {
  it("replaces the imported servers with the gateway, its secrets in a 0600 env file", async () => {
    const dir = mkdtempSync(join(tmpdir(), "mcpgw-import-write-"));
    const clientFile = join(dir, "claude_desktop_config.json");
    const original = JSON.stringify(
      {
        globalShortcut: "Ctrl+Space",
        mcpServers: {
          echo: {
            command: "node",
            args: [fixture("echo.mjs")],
            env: { ECHO_API_KEY: "plain-secret-value-42", LOG_LEVEL: "debug" },
          },
        },
      },
      null,
      2,
    ) + "\n";
    writeFileSync(clientFile, original);
    mkdirSync(join(dir, "gw"));
    const config = join(dir, "gw", "gateway.yaml");
    const r = cli(["import", clientFile, "--write", "--config", config]);
    assert.equal(r.code, 0, r.stderr);
    const yaml = readFileSync(config, "utf8");
    assert.ok(!yaml.includes("plain-secret-value-42"), "no secret in the YAML");
    assert.match(yaml, /ECHO_API_KEY: \$\{ECHO_API_KEY\}/);
    assert.match(yaml, /LOG_LEVEL: debug/);
    const envFile = join(dir, "gw", "gateway.env");
    assert.equal(statSync(envFile).mode & 0o777, 0o600);
    assert.equal(readFileSync(envFile, "utf8"), "ECHO_API_KEY='plain-secret-value-42'\n");

    const now = JSON.parse(readFileSync(clientFile, "utf8"));
    assert.equal(now.globalShortcut, "Ctrl+Space");
    assert.deepEqual(Object.keys(now.mcpServers), ["mcp-gateway"]);
    const entry = now.mcpServers["mcp-gateway"];
    assert.deepEqual(entry.args.slice(-5), ["--stdio", "--config", config, "--env-file", envFile]);
    assert.ok(readdirSync(dir).some((f) => f.endsWith(".bak")), "a backup was made");
    // The client's one server now is the gateway, serving what it imported.
    assert.ok((await toolsOfStdioEntry(entry)).includes("echo__echo"));
  });

  it("refuses to write over an existing gateway.yaml", () => {
    const dir = mkdtempSync(join(tmpdir(), "mcpgw-import-write-"));
    const clientFile = join(dir, "mcp.json");
    writeFileSync(clientFile, JSON.stringify({ mcpServers: { a: { command: "x" } } }));
    const config = join(dir, "gateway.yaml");
    writeFileSync(config, "servers: {}\n");
    const r = cli(["import", clientFile, "--write", "--config", config]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /gateway\.yaml exists/);
    assert.equal(readFileSync(config, "utf8"), "servers: {}\n");
  });
});
