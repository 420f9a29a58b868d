/**
 * Stdio servers do not inherit the gateway's environment. The attack: a tool that prints its
 * environment (the "everything" server's get-env) handed any token allowed to call it the
 * gateway's own token variables. A narrow token calls such a tool over HTTP here and finds no
 * token value, while PATH/HOME and the names a server opts into with `inheritEnv` are there.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { parseConfig } from "../../src/config/mod.ts";
import { childEnv } from "../../src/upstream/mod.ts";
import { nodeServer, startTestGateway, type TestGateway, textOf } from "../_helpers/gateway.ts";
import { authedHttpClient } from "./_http.ts";

const FULL = "env-full-token-0123456789abcdef";
const NARROW = "env-narrow-token-0123456789abcdef";
// The narrow token comes from a variable; another variable happens to hold the full token.
process.env.MCPGW_ENV_TEST_NARROW = NARROW;
process.env.MCPGW_ENV_TEST_COPY = FULL;
process.env.MCPGW_ENV_TEST_PLAIN = "plain-value";
process.env.MCPGW_ENV_TEST_OPTIN = "opted-in";

const YAML = `
gateway:
  auth:
    tokens:
      - { name: full, token: "${FULL}" }
      - name: narrow
        token: \${MCPGW_ENV_TEST_NARROW}
        tools: ["base__env", "optin__env", "all__env"]
servers:
  base: ${nodeServer("env.mjs", "env: { SET_BY_CONFIG: yes }")}
  optin: ${nodeServer("env.mjs", "inheritEnv: [MCPGW_ENV_TEST_OPTIN, MCPGW_ENV_TEST_NARROW]")}
  all: ${nodeServer("env.mjs", "inheritEnv: true")}
`;

describe("the environment of stdio servers", () => {
  let gw: TestGateway;
  let narrow: Client;
  before(async () => {
    gw = await startTestGateway(YAML);
    narrow = await authedHttpClient(gw.url, NARROW);
  });
  after(async () => {
    await narrow?.close();
    await gw?.stop();
  });

  async function envOf(server: string): Promise<Record<string, string>> {
    const r = await narrow.callTool({ name: `${server}__env`, arguments: {} });
    assert.notEqual(r.isError, true, textOf(r));
    return JSON.parse(textOf(r));
  }

  function assertNoToken(env: Record<string, string>): void {
    for (const [k, v] of Object.entries(env)) {
      assert.ok(v !== FULL && v !== NARROW, `${k} holds an auth token`);
    }
  }

  it("gives a server PATH, HOME and what env: sets, and nothing else of the gateway's", async () => {
    const env = await envOf("base");
    assert.equal(env.PATH, process.env.PATH);
    if (process.env.HOME) assert.equal(env.HOME, process.env.HOME);
    assert.equal(env.SET_BY_CONFIG, "yes");
    assert.equal(env.MCPGW_ENV_TEST_PLAIN, undefined);
    assert.equal(env.MCPGW_ENV_TEST_OPTIN, undefined);
    assertNoToken(env);
  });

  it("passes the names inheritEnv lists, but never a token variable", async () => {
    const env = await envOf("optin");
    assert.equal(env.MCPGW_ENV_TEST_OPTIN, "opted-in");
    assert.equal(env.MCPGW_ENV_TEST_NARROW, undefined);
    assert.equal(env.MCPGW_ENV_TEST_PLAIN, undefined);
    assertNoToken(env);
  });

  it("passes everything with inheritEnv: true except variables holding or naming a token", async () => {
    const env = await envOf("all");
    assert.equal(env.MCPGW_ENV_TEST_PLAIN, "plain-value");
    assert.equal(env.MCPGW_ENV_TEST_NARROW, undefined);
    assert.equal(env.MCPGW_ENV_TEST_COPY, undefined);
    assertNoToken(env);
  });
});

describe("childEnv", () => {
  const source = { PATH: "/bin", HOME: "/h", LANG: "C", SECRET: "s3cr3t", OTHER: "o" };

  it("keeps only the base variables that are set, then adds env:", () => {
    const env = childEnv({ env: { X: "1" }, inheritEnv: false, withheldEnv: [] }, source);
    assert.deepEqual(env, { PATH: "/bin", HOME: "/h", LANG: "C", X: "1" });
  });

  it("never passes a withheld name, even with inheritEnv: true", () => {
    const env = childEnv({ env: {}, inheritEnv: true, withheldEnv: ["SECRET"] }, source);
    assert.equal(env.SECRET, undefined);
    assert.equal(env.OTHER, "o");
  });

  it("withholds variables named in gateway.auth and those equal to a token", () => {
    const c = parseConfig(
      `gateway:\n  auth:\n    tokens:\n      - { name: a, token: "\${TOK_A}" }\n` +
        `      - { name: b, token: "literal-token-0123456789" }\n` +
        `servers:\n  s: { command: x }\n`,
      {
        env: { TOK_A: "from-variable-0123456789", COPY: "literal-token-0123456789", X: "x" },
        file: "/tmp/gw/gateway.yaml",
      },
    );
    const s = c.servers[0]!;
    assert.ok(s.kind === "stdio");
    assert.deepEqual(s.withheldEnv, ["COPY", "TOK_A"]);
    assert.equal(s.inheritEnv, false);
  });
});
