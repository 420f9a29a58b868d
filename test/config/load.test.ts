import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import {
  configJsonSchema,
  configSchema,
  parseConfig,
  parseDuration,
  parseSize,
} from "../../src/config/mod.ts";
import { GatewayError } from "../../src/shared/errors.ts";
import { ROOT } from "../_helpers/gateway.ts";

/** The problems of an invalid config, as `path: message` lines. */
function problemsOf(yaml: string, env: Record<string, string> = {}): string[] {
  try {
    parseConfig(yaml, { env, file: "/tmp/gw/gateway.yaml" });
  } catch (err) {
    assert.ok(err instanceof GatewayError);
    assert.equal(err.code, "CONFIG_INVALID");
    return (err.data!.problems as { path: string; message: string }[]).map((p) =>
      `${p.path}: ${p.message}`
    );
  }
  assert.fail("expected the config to be rejected");
}

describe("config validation", () => {
  it("accepts an empty file with every default filled in", () => {
    const c = parseConfig("", { file: "/tmp/gw/gateway.yaml" });
    assert.equal(c.gateway.host, "127.0.0.1");
    assert.equal(c.gateway.port, 8787);
    assert.equal(c.gateway.separator, "__");
    assert.equal(c.scripting.limits.timeoutMs, 30_000);
    assert.equal(c.scripting.limits.memoryBytes, 64 * 1024 * 1024);
    assert.equal(c.scripting.vfs["/source"], "/tmp/gw");
    assert.ok(Object.isFrozen(c.gateway));
  });

  it("names the YAML path of a bad duration", () => {
    assert.deepEqual(
      problemsOf("servers:\n  docs:\n    url: https://example.com/mcp\n    timeout: soon\n"),
      [
        'servers.docs.timeout: expected a duration like 30s or 500ms, got string "soon"',
      ],
    );
  });

  it("refuses a bare number as a duration, naming the expected form", () => {
    assert.deepEqual(
      problemsOf("servers:\n  docs:\n    url: https://example.com/mcp\n    timeout: 30\n"),
      ["servers.docs.timeout: expected a duration like 30s or 500ms, got 30"],
    );
    assert.deepEqual(problemsOf("scripting:\n  limits: { timeout: 5 }\n"), [
      "scripting.limits.timeout: expected a duration like 30s or 500ms, got 5",
    ]);
  });

  it("suggests the nearest allowed key for a misspelt one", () => {
    assert.deepEqual(
      problemsOf("servers:\n  a: { url: 'https://h.test/mcp', timout: 5s }\n"),
      ['servers.a.timout: unknown key "timout"; did you mean "timeout"?'],
    );
    assert.deepEqual(problemsOf("scripting:\n  limits: { memroy: 1MiB }\n"), [
      'scripting.limits.memroy: unknown key "memroy"; did you mean "memory"?',
    ]);
  });

  it("lists the allowed keys when no key is close", () => {
    const [p] = problemsOf("gateway:\n  restart: {}\n");
    assert.match(p!, /^gateway\.restart: unknown key "restart" \(expected one of .*listen.*\)$/);
  });

  it("rejects unknown keys at any depth", () => {
    assert.deepEqual(
      problemsOf("gateway:\n  listne: 1\nservers:\n  a: { command: x, argz: [] }\n"),
      [
        'gateway.listne: unknown key "listne"; did you mean "listen"?',
        'servers.a.argz: unknown key "argz"; did you mean "args"?',
      ],
    );
  });

  it("names the line of each problem", () => {
    try {
      parseConfig("servers:\n  a:\n    command: x\n    timeout: nope\n", { file: "/tmp/x.yaml" });
      assert.fail("should throw");
    } catch (err) {
      assert.match((err as Error).message, /servers\.a\.timeout \(line 4\): expected a duration/);
    }
  });

  it("requires exactly one of command and url", () => {
    assert.deepEqual(problemsOf("servers:\n  a: { env: { X: y } }\n"), [
      "servers.a: expected command (stdio server) or url (HTTP server)",
    ]);
    assert.deepEqual(problemsOf("servers:\n  a: { command: x, url: 'http://h/mcp' }\n"), [
      "servers.a: expected either command (stdio) or url (HTTP), not both",
    ]);
  });

  it("rejects server names that would break tool names", () => {
    const [p] = problemsOf("servers:\n  'my server': { command: x }\n");
    assert.match(p!, /^servers\.my server: invalid name "my server"/);
    assert.deepEqual(problemsOf("servers:\n  a__b: { command: x }\n"), [
      'servers.a__b: server name must not contain the separator "__"',
    ]);
  });

  it("reports wrong types with what was found", () => {
    assert.deepEqual(problemsOf("servers:\n  a: { command: x, args: hello }\n"), [
      "servers.a.args: expected a list of strings, got a string",
    ]);
  });

  it("expands ${VAR} and ${VAR:-default} from the environment", () => {
    const c = parseConfig(
      "servers:\n  a:\n    url: ${BASE}/mcp\n    headers: { Authorization: 'Bearer ${TOKEN:-none}' }\n",
      { env: { BASE: "https://api.example.com" }, file: "/tmp/x.yaml" },
    );
    const a = c.servers[0]!;
    assert.equal(a.kind, "http");
    if (a.kind !== "http") return;
    assert.equal(a.url, "https://api.example.com/mcp");
    assert.equal(a.headers.Authorization, "Bearer none");
  });

  it("accepts an anchor reused by hundreds of servers (aliases that repeat, not multiply)", () => {
    const yaml = ["servers:", "  s0: &common { command: node, args: [a, b] }"];
    for (let i = 1; i <= 300; i++) yaml.push(`  s${i}: *common`);
    const c = parseConfig(yaml.join("\n") + "\n", { env: {}, file: "/tmp/x.yaml" });
    assert.equal(c.servers.length, 301);
    const last = c.servers.at(-1)!;
    assert.deepEqual(last.kind === "stdio" && last.args, ["a", "b"]);
  });

  it("names the path of a missing environment variable", () => {
    assert.deepEqual(problemsOf("servers:\n  a: { command: x, env: { K: '${MISSING_VAR}' } }\n"), [
      "servers.a.env.K: environment variable MISSING_VAR is not set",
    ]);
  });

  it("resolves relative commands and cwd against the config folder", () => {
    const c = parseConfig(
      "servers:\n  a: { command: ./bin/srv, cwd: sub }\n  b: { command: node }\n",
      {
        file: "/srv/gw/gateway.yaml",
      },
    );
    const [a, b] = c.servers;
    assert.ok(a?.kind === "stdio" && b?.kind === "stdio");
    assert.equal(a.command, "/srv/gw/bin/srv");
    assert.equal(a.cwd, "/srv/gw/sub");
    assert.equal(b.command, "node");
  });

  it("reports YAML syntax errors with their line and column", () => {
    try {
      parseConfig("servers:\n  a:\n    command: x\n   args: [y]\n", { file: "/tmp/x.yaml" });
      assert.fail("should throw");
    } catch (err) {
      assert.ok(err instanceof GatewayError);
      const [p] = err.data!.problems as { line?: number; column?: number }[];
      assert.equal(p!.line, 4);
      assert.equal(typeof p!.column, "number");
      assert.match(err.message, /YAML syntax \(line 4, column \d+\): /);
    }
  });

  it("rejects duplicate keys", () => {
    assert.equal(problemsOf("servers:\n  a: { command: x }\n  a: { command: y }\n").length, 1);
  });
});

describe("units", () => {
  it("parses durations", () => {
    assert.equal(parseDuration("30s"), 30_000);
    assert.equal(parseDuration("500ms"), 500);
    assert.equal(parseDuration("2m"), 120_000);
    assert.equal(parseDuration("1.5s"), 1500);
    assert.equal(parseDuration("3"), undefined);
    assert.equal(parseDuration("soon"), undefined);
  });

  it("parses sizes", () => {
    assert.equal(parseSize("16MiB"), 16 * 1024 * 1024);
    assert.equal(parseSize("512KB"), 512_000);
    assert.equal(parseSize(100), 100);
    assert.equal(parseSize("lots"), undefined);
  });
});

describe("the config schema", () => {
  it("is built for each read, not kept: a serving gateway's heap does not hold it", () => {
    // Its objects are a large share of a booted gateway's heap and are needed only while a
    // config is validated; a cached schema would stay live for the life of the process.
    assert.notEqual(configSchema(), configSchema());
  });
});

describe("the shipped files", () => {
  it("gateway.schema.json is generated from the current schema (run scripts/gen-schema.ts)", () => {
    const committed = JSON.parse(readFileSync(`${ROOT}/gateway.schema.json`, "utf8"));
    assert.deepEqual(committed, JSON.parse(JSON.stringify(configJsonSchema())));
  });

  it("the shipped gateway.yaml is valid", () => {
    const c = parseConfig(readFileSync(`${ROOT}/gateway.yaml`, "utf8"), {
      file: `${ROOT}/gateway.yaml`,
    });
    assert.deepEqual(c.servers.map((s) => s.name), ["everything", "memory", "filesystem"]);
  });

  it("version.ts matches package.json", async () => {
    const { VERSION } = await import("../../src/version.ts");
    assert.equal(VERSION, JSON.parse(readFileSync(`${ROOT}/package.json`, "utf8")).version);
  });
});
