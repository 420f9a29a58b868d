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
// The key that encrypts stored upstream credentials.
process.env.MCPGW_ENV_TEST_SECRETS_KEY = "secrets-key-0123456789abcdef0123456789abcdef";

const YAML = `
gateway:
  secrets: { key: "\${MCPGW_ENV_TEST_SECRETS_KEY}" }
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

  it("passes no variable the gateway's own secrets come from, even with inheritEnv: true", async () => {
    const env = await envOf("all");
    assert.equal(env.MCPGW_ENV_TEST_SECRETS_KEY, undefined);
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

  it("withholds every variable a gateway-level secret or an upstream's credential comes from", () => {
    const env = {
      SK: "secrets-key-0123456789abcdef0123456789abcdef",
      SK_COPY: "secrets-key-0123456789abcdef0123456789abcdef",
      REDIS_URL: "redis://:pw-0123456789@127.0.0.1:6379/0",
      STATE_KEY: "state-key-0123456789abcdef0123456789abcdef",
      OTLP_KEY: "otlp-api-key-0123456789",
      GH_TOKEN: "ghp_0123456789abcdefghij",
      CLIENT_SECRET: "client-secret-0123456789",
      UPSTREAM_HOST: "upstream.example.com",
      PUBLIC: "https://gw.example.com",
      HOME: "/home/gw",
      PATH: "/usr/bin",
      LITERAL_COPY: "literal-client-secret-0123",
      PLAIN: "plain",
      MCP_GATEWAY_TOKEN: "cli-token-0123456789",
    };
    const c = parseConfig(
      `gateway:
  secrets: { key: "\${SK}" }
  publicUrl: "\${PUBLIC}"
  state: "\${HOME}/state"
  cluster: { redis: "\${REDIS_URL}", stateKey: "\${STATE_KEY}" }
  telemetry: { otlp: "http://127.0.0.1:4318/v1/traces", headers: { x-api-key: "\${OTLP_KEY}" } }
servers:
  s: { command: x, inheritEnv: true, env: { OWN: "\${PATH}" } }
  gh: { url: "https://\${UPSTREAM_HOST}/mcp", headers: { Authorization: "Bearer \${GH_TOKEN}" } }
  o:
    url: https://example.com/mcp
    oauth: { mode: shared, clientId: c, clientSecret: "\${CLIENT_SECRET}" }
  l:
    url: https://example.org/mcp
    oauth: { mode: shared, clientId: c, clientSecret: literal-client-secret-0123 }
`,
      { env, file: "/tmp/gw/gateway.yaml" },
    );
    const s = c.servers.find((x) => x.name === "s")!;
    assert.ok(s.kind === "stdio");
    assert.deepEqual(s.withheldEnv, [
      "CLIENT_SECRET",
      "GH_TOKEN",
      "LITERAL_COPY",
      "MCP_GATEWAY_TOKEN",
      "OTLP_KEY",
      "PUBLIC",
      "REDIS_URL",
      "SK",
      "SK_COPY",
      "STATE_KEY",
      "UPSTREAM_HOST",
    ]);
    const child = childEnv(s, env);
    assert.equal(child.PLAIN, "plain");
    assert.equal(child.HOME, "/home/gw", "a base variable named in a path is no secret");
    assert.equal(child.SK, undefined);
  });
});
