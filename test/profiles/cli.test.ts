/**
 * Profiles on the command line: `--stdio --profile NAME` serves one profile on stdin/stdout, an
 * unknown one is a usage error, and `check` names the YAML path of a profile glob that matches
 * nothing, of a profile naming an unknown server and of a token naming an unknown profile.
 */
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { selfCommand } from "../../src/runtime/mod.ts";
import { nodeServer } from "../_helpers/gateway.ts";
import { cli } from "../cli/_cli.ts";
import { namesOf } from "./_profiles.ts";

function write(yaml: string): string {
  const file = join(mkdtempSync(join(tmpdir(), "mcpgw-profiles-")), "gateway.yaml");
  writeFileSync(file, yaml);
  return file;
}

const SERVED = write(`
servers:
  alpha: ${nodeServer("echo.mjs", "env: { ECHO_NAME: alpha }")}
  beta: ${nodeServer("echo.mjs", "env: { ECHO_NAME: beta }")}
profiles:
  coding:
    tools: ["alpha__echo", "alpha__structured"]
scripting:
  macros: null
`);

describe("--stdio --profile", () => {
  it("serves only the profile's tools and refuses a call outside it", async () => {
    const [command, ...args] = selfCommand();
    const client = new Client({ name: "profile-stdio", version: "1.0.0" });
    await client.connect(
      new StdioClientTransport({
        command: command!,
        args: [
          ...args,
          "--stdio",
          "--profile",
          "coding",
          "--config",
          SERVED,
          "--log-level",
          "warn",
        ],
        stderr: "ignore",
      }),
    );
    try {
      assert.deepEqual(namesOf(await client.listTools()), ["alpha__echo", "alpha__structured"]);
      await assert.rejects(
        client.callTool({ name: "beta__echo", arguments: {} }),
        /unknown tool "beta__echo"/,
      );
    } finally {
      await client.close();
    }
  });

  it("is a usage error for a profile the config does not have, or without --stdio", () => {
    const unknown = cli(["--stdio", "--profile", "nope", "--config", SERVED]);
    assert.equal(unknown.code, 2, unknown.stderr);
    assert.match(unknown.stderr, /--profile: no profile "nope" \(profiles: coding\)/);
    const http = cli(["--profile", "coding", "--config", SERVED]);
    assert.equal(http.code, 2, http.stderr);
    assert.match(http.stderr, /--profile needs --stdio/);
  });
});

describe("check and profiles", () => {
  it("names the YAML path of a glob that matches no tool and of one that matches no macro", () => {
    const file = write(`
servers:
  alpha: ${nodeServer("echo.mjs")}
profiles:
  coding:
    tools: ["alpha__*", "gihub__*", "execute"]
    macros: ["deploy_*"]
scripting:
  macros: null
`);
    const r = cli(["check", "--config", file]);
    assert.equal(r.code, 2, r.stdout + r.stderr);
    assert.match(
      r.stderr,
      /profiles\.coding\.tools\[1\] \(line 6\): glob "gihub__\*" matches no tool \(tool names start with "alpha__"\)/,
    );
    assert.match(
      r.stderr,
      /profiles\.coding\.macros\[0\] \(line 7\): glob "deploy_\*" matches no macro/,
    );
    assert.doesNotMatch(r.stderr, /tools\[0\]|tools\[2\]/);
  });

  it("names the YAML path of an unknown profile on a token and of an unknown server", () => {
    const file = write(`
gateway:
  auth:
    tokens:
      - { name: a, token: "token-a-0123456789abcdef", profiles: [coding, suport] }
servers:
  alpha: ${nodeServer("echo.mjs")}
profiles:
  coding:
    servers: [alpha, github]
scripting:
  macros: null
`);
    const r = cli(["check", "--config", file]);
    assert.equal(r.code, 2, r.stdout + r.stderr);
    assert.match(
      r.stderr,
      /gateway\.auth\.tokens\[0\]\.profiles\[1\].*unknown profile "suport" \(profiles: coding\)/,
    );
    assert.match(r.stderr, /profiles\.coding\.servers\[1\].*unknown server "github"/);
  });

  it("refuses an empty profiles list on a token (it would reach nothing)", () => {
    const file = write(`
gateway:
  auth:
    tokens:
      - { name: b, token: "token-b-0123456789abcdef", profiles: [] }
servers: {}
`);
    const r = cli(["check", "--config", file]);
    assert.equal(r.code, 2, r.stdout + r.stderr);
    assert.match(r.stderr, /gateway\.auth\.tokens\[0\]\.profiles.*expected at least one profile/);
  });

  it("names execute: true while scripting.execute is off", () => {
    const file = write(`
servers:
  alpha: ${nodeServer("echo.mjs")}
profiles:
  coding: { servers: [alpha], execute: true }
scripting:
  execute: false
  macros: null
`);
    const r = cli(["check", "--config", file]);
    assert.equal(r.code, 2, r.stdout + r.stderr);
    assert.match(r.stderr, /profiles\.coding\.execute.*needs scripting\.execute on/);
  });

  it("with --connect, judges the globs against the real catalog", () => {
    const file = write(`
servers:
  alpha: ${nodeServer("echo.mjs")}
profiles:
  coding:
    tools: ["alpha__echo", "alpha__no_such_tool"]
scripting:
  macros: null
`);
    // Without upstreams the second glob could match (it starts with alpha__): not reported.
    assert.equal(cli(["check", "--config", file]).code, 0);
    const r = cli(["check", "--connect", "--config", file]);
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.match(
      r.stderr,
      /profiles\.coding\.tools\[1\]: glob "alpha__no_such_tool" matches no tool/,
    );
    assert.doesNotMatch(r.stderr, /tools\[0\]/);
  });

  it("passes a config whose profile globs all match something", () => {
    const r = cli(["check", "--config", SERVED]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /profiles: coding/);
  });
});
