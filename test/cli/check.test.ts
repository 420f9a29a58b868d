/**
 * `mcp-gateway check` runs every start-time rule without starting upstreams, and `--connect`
 * starts each upstream once. Runs the real CLI as a child process on temp configs.
 */
import assert from "node:assert/strict";
import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { cli } from "./_cli.ts";
import { nodeServer } from "../_helpers/gateway.ts";

/** A temp folder holding `gateway.yaml` and the given files. */
function folder(yaml: string, files: Record<string, string> = {}): string {
  const dir = mkdtempSync(join(tmpdir(), "mcpgw-check-"));
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(dir, name, ".."), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  writeFileSync(join(dir, "gateway.yaml"), yaml);
  return join(dir, "gateway.yaml");
}

/** A macro folder whose one macro names a parameter type that does not exist. */
const TYPO_MACRO = {
  "macros/typo.lua":
    `mcp.tool { name = "t", description = "d", params = { n = { type = "integr" } }, run = function() end }`,
};

describe("mcp-gateway check", () => {
  it("lists every start-time problem with its YAML path and line, exit 2", () => {
    const cfg = folder(
      [
        "gateway:",
        "  listen: 0.0.0.0:8787",
        "servers:",
        "  gone: { command: ./bin/missing }",
        "  plain: { command: ./bin/not-executable }",
        "  unknown: { command: no-such-program-mcpgw }",
        "  lost:",
        "    command: node",
        "    cwd: ./nowhere",
        "  off: { command: ./bin/missing-too, enabled: false }",
        "scripting:",
        "  macros: ./macros",
        "  tools:",
        "    blank: { description: '', lua: 'return 1' }",
      ].join("\n") + "\n",
      {
        "bin/not-executable": "#!/bin/sh\n",
        "macros/typo.lua":
          `mcp.tool { name = "t", description = "d", params = { n = { type = "integr" } }, run = function() end }`,
      },
    );
    const r = cli(["check", "--config", cfg]);
    assert.equal(r.code, 2, r.stdout);
    const lines = r.stderr.split("\n").filter((l) => l.startsWith("  "));
    const expected: [RegExp, string][] = [
      [/^ {2}gateway\.listen \(line 2\): refusing to listen on 0\.0\.0\.0 without auth/, "listen"],
      [/^ {2}servers\.gone\.command \(line 4\): \/.*\/bin\/missing does not exist$/, "missing"],
      [/^ {2}servers\.plain\.command \(line 5\): .* is not executable/, "not executable"],
      [
        /^ {2}servers\.unknown\.command \(line 6\): command "no-such-program-mcpgw" is not found on PATH/,
        "PATH",
      ],
      [/^ {2}servers\.lost\.cwd \(line 9\): folder .*\/nowhere does not exist$/, "cwd"],
      [
        /^ {2}scripting\.macros \(line 12\): macros\/typo\.lua: tool "t": param "n": unknown type "integr"/,
        "macro file",
      ],
      [/^ {2}scripting\.tools\.blank \(line 14\): .*description is missing/, "inline macro"],
    ];
    for (const [pattern, what] of expected) {
      assert.ok(lines.some((l) => pattern.test(l)), `${what} not reported:\n${r.stderr}`);
    }
    assert.equal(lines.length, expected.length, `a disabled server is not checked:\n${r.stderr}`);
    assert.match(r.stderr, /invalid config \(7 problems\)/);
  });

  it("names every unset ${VAR} with its path and line", () => {
    const cfg = folder(
      "servers:\n  a:\n    url: https://h.test/mcp\n    headers: { X: '${MCPGW_UNSET_VAR}' }\n",
    );
    const r = cli(["check", "--config", cfg]);
    assert.equal(r.code, 2);
    assert.match(
      r.stderr,
      /servers\.a\.headers\.X \(line 4\): environment variable MCPGW_UNSET_VAR is not set/,
    );
  });

  it("refuses a configured macros folder that does not exist", () => {
    const r = cli(["check", "--config", folder("scripting:\n  macros: ./macros\n")]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /scripting\.macros \(line 2\): folder .*\/macros does not exist/);
  });

  it("accepts a missing default macros folder, with a note", () => {
    const r = cli(["check", "--config", folder("servers: {}\n")]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /ok — 0 server\(s\); 0 macro\(s\)/);
    assert.match(
      r.stdout,
      /note: no macros folder at .* \(scripting\.macros defaults to \.\/macros\)/,
    );
  });

  it("counts the macros it registered", () => {
    const r = cli([
      "check",
      "--config",
      folder("servers: {}\n", {
        "macros/hi.lua":
          `mcp.tool { name = "hi", description = "Say hi", run = function() return "hi" end }`,
      }),
    ]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /; 1 macro\(s\)/);
  });

  it("applies the listen rule to --listen too", () => {
    const r = cli(["check", "--listen", "0.0.0.0:9", "--config", folder("servers: {}\n")]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /^ {2}--listen: refusing to listen on 0\.0\.0\.0/m);
  });

  it("--connect starts each upstream once: tool count or reason, exit 1 when one fails", () => {
    const cfg = folder(
      `servers:\n  echo: ${nodeServer("echo.mjs")}\n  quits: ${nodeServer("exit-at-start.mjs")}\n`,
    );
    const r = cli(["check", "--connect", "--config", cfg]);
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stdout, /^echo: up, \d+ tool\(s\)$/m);
    assert.match(r.stdout, /^quits: down — .+$/m);
  });

  it("--connect exits 0 when every upstream comes up", () => {
    const r = cli([
      "check",
      "--connect",
      "--config",
      folder(`servers:\n  echo: ${nodeServer("echo.mjs")}\n`),
    ]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^echo: up, \d+ tool\(s\)$/m);
  });

  it("keeps a non-executable file out even when it is on PATH", () => {
    const dir = mkdtempSync(join(tmpdir(), "mcpgw-path-"));
    writeFileSync(join(dir, "fake-server"), "#!/bin/sh\n");
    chmodSync(join(dir, "fake-server"), 0o644);
    const cfg = folder(
      `servers:\n  f: { command: fake-server, env: { PATH: ${JSON.stringify(dir)} } }\n`,
    );
    const r = cli(["check", "--config", cfg]);
    assert.equal(r.code, 2);
    assert.match(
      r.stderr,
      /servers\.f\.command \(line 2\): command "fake-server" is not found on PATH/,
    );
  });

  it("names the bubblewrap package when a sandboxed server finds no bwrap on PATH", () => {
    const empty = mkdtempSync(join(tmpdir(), "mcpgw-nobwrap-"));
    const yaml = `servers:\n  boxed:\n    command: ${JSON.stringify(process.execPath)}\n` +
      "    sandbox: { network: false }\n";
    const withBwrap = cli(["check", "--config", folder(yaml)]);
    assert.equal(withBwrap.code, 0, withBwrap.stderr);
    const r = cli(["check", "--config", folder(yaml)], undefined, { ...process.env, PATH: empty });
    assert.equal(r.code, 2, r.stderr);
    assert.match(
      r.stderr,
      /servers\.boxed\.sandbox \(line 4\): bubblewrap \(bwrap\) is not on PATH; install the Debian package bubblewrap/,
    );
  });

  it("refuses a sandbox folder that holds the config's folder", () => {
    const r = cli([
      "check",
      "--config",
      folder(`servers:\n  boxed:\n    command: node\n    sandbox: { read: [".."] }\n`),
    ]);
    assert.equal(r.code, 2);
    assert.match(
      r.stderr,
      /servers\.boxed\.sandbox\.read\[0\] \(line 4\): read folder .* holds the config's folder/,
    );
  });

  it("names a missing Lua filter file and a package runner under the sandbox", () => {
    const r = cli([
      "check",
      "--config",
      folder(
        "gateway:\n  filters: [secrets, { lua: ./gone.lua }]\nservers:\n" +
          "  a: { command: npx, args: [some-server], sandbox: true }\n",
      ),
    ]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /servers\.a\.filters \(line 4\): Lua filter .*gone\.lua does not exist/);
    assert.match(r.stderr, /servers\.a\.command \(line 4\): npx fetches packages at start/);
  });
  it("refuses a YAML alias bomb as a config error naming the file, path and line, exit 2", () => {
    const lines = ['a: &a ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]'];
    for (const [prev, name] of [..."abcdefgh"].map((c, i) => [c, "bcdefghi"[i]!])) {
      lines.push(`${name}: &${name} [${Array(9).fill(`*${prev}`).join(", ")}]`);
    }
    const cfg = folder(
      [...lines, "servers:", "  x: { command: node, args: *i }"].join("\n") + "\n",
    );
    const r = cli(["check", "--config", cfg]);
    assert.equal(r.code, 2, r.stderr);
    assert.ok(r.stderr.includes(cfg), r.stderr);
    assert.match(
      r.stderr,
      /servers\.x\.args \(line 11\): the alias \*i expands to .* \(a YAML alias bomb\)/,
    );
  });

  it("refuses an alias inside its own anchor, exit 2", () => {
    const r = cli([
      "check",
      "--config",
      folder("servers:\n  x: &x { command: node, args: [*x] }\n"),
    ]);
    assert.equal(r.code, 2, r.stderr);
    assert.match(
      r.stderr,
      /servers\.x\.args\[0\] \(line 2\): the alias \*x is inside its own anchor/,
    );
  });
});

describe("mcp-gateway check in one pass", () => {
  it("lists unset variables, missing commands and macro problems together", () => {
    const cfg = folder(
      [
        "servers:",
        "  api: { url: 'https://mcp.example.test/mcp', headers: { Authorization: 'Bearer ${MCPGW_CHECK_UNSET_1}' } }",
        "  tool: { command: no-such-program-mcpgw-2, env: { KEY: '${MCPGW_CHECK_UNSET_2}' } }",
        "scripting:",
        "  macros: ./macros",
      ].join("\n") + "\n",
      TYPO_MACRO,
    );
    const env = { ...process.env };
    delete env.MCPGW_CHECK_UNSET_1;
    delete env.MCPGW_CHECK_UNSET_2;
    const r = cli(["check", "--config", cfg], undefined, env);
    assert.equal(r.code, 2, r.stdout);
    assert.match(
      r.stderr,
      /servers\.api\.headers\.Authorization \(line 2\): environment variable MCPGW_CHECK_UNSET_1 is not set/,
    );
    assert.match(
      r.stderr,
      /servers\.tool\.env\.KEY \(line 3\): environment variable MCPGW_CHECK_UNSET_2 is not set/,
    );
    assert.match(
      r.stderr,
      /servers\.tool\.command \(line 3\): command "no-such-program-mcpgw-2" is not found/,
    );
    assert.match(r.stderr, /integr/);
    assert.doesNotMatch(r.stderr, /stand-in/);
  });
});

describe("mcp-gateway check: a value the schema refuses does not hide the other rules", () => {
  it("lists an unknown key, a wrong type, an unset variable, a missing command and a macro problem together", () => {
    const cfg = folder(
      [
        "gateway:",
        "  listn: 127.0.0.1:0",
        "servers:",
        "  docs: { command: no-such-program-mcpgw-3 }",
        "  api: { url: 'https://mcp.example.test/mcp', headers: { Authorization: 'Bearer ${MCPGW_CHECK_UNSET_3}' } }",
        "  odd: { command: 42 }",
        "scripting:",
        "  macros: ./macros",
      ].join("\n") + "\n",
      TYPO_MACRO,
    );
    const env = { ...process.env };
    delete env.MCPGW_CHECK_UNSET_3;
    const r = cli(["check", "--config", cfg], undefined, env);
    assert.equal(r.code, 2, r.stdout);
    assert.match(
      r.stderr,
      /gateway\.listn \(line 2\): unknown key "listn"; did you mean "listen"\?/,
    );
    assert.match(r.stderr, /servers\.odd\.command \(line 6\): /);
    assert.match(
      r.stderr,
      /servers\.api\.headers\.Authorization \(line 5\): environment variable MCPGW_CHECK_UNSET_3 is not set/,
    );
    assert.match(
      r.stderr,
      /servers\.docs\.command \(line 4\): command "no-such-program-mcpgw-3" is not found/,
    );
    assert.match(r.stderr, /integr/);
    assert.doesNotMatch(r.stderr, /stand-in/);
    // Each problem once.
    const lines = r.stderr.split("\n").filter((l) => l.startsWith("  "));
    assert.equal(new Set(lines).size, lines.length, r.stderr);
  });

  it("still names only the YAML syntax error when the file does not parse", () => {
    const cfg = folder("servers:\n  a: { command: x\n");
    const r = cli(["check", "--config", cfg]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /YAML syntax \(line \d+, column \d+\)/);
  });
});
