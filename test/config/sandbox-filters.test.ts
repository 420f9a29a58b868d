/**
 * `sandbox` and `filters` as the config states them: the gateway's defaults, a server's own
 * entry replacing (`sandbox`) or following (`filters`) them, paths made absolute, and the folders
 * a sandboxed server must never be handed refused at their YAML path.
 */
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { parseConfig, type StdioServerConfig } from "../../src/config/mod.ts";
import { problemsOf } from "./_problems.ts";

const FILE = "/srv/gw/gateway.yaml";
const stdio = (yaml: string, name: string) =>
  parseConfig(yaml, { file: FILE }).servers.find((s) => s.name === name) as StdioServerConfig;

const problems = (yaml: string) => problemsOf(yaml, FILE);

describe("sandbox and filters in the config", () => {
  const yaml = `
gateway:
  sandbox: { network: true }
  filters: [secrets, { lua: ./f/a.lua }]
servers:
  inherits: { command: node }
  own: { command: node, cwd: ./own, sandbox: { read: [./docs], write: [/var/data] }, filters: [pii, secrets] }
  opted-out: { command: node, sandbox: false }
  remote: { url: "https://example.com/mcp", filters: [spotlight] }
`;

  it("takes the gateway's sandbox unless a server writes its own", () => {
    const inherits = stdio(yaml, "inherits").sandbox!;
    assert.deepEqual([inherits.network, inherits.read, inherits.ownCwd], [true, [], false]);
    const own = stdio(yaml, "own").sandbox!;
    assert.deepEqual(own.read, ["/srv/gw/docs"]);
    assert.deepEqual(own.write, ["/var/data"]);
    assert.equal(own.network, false, "a server's entry replaces the default whole");
    assert.equal(own.ownCwd, true);
    assert.ok(own.hidden.includes("/srv/gw"));
    assert.equal(stdio(yaml, "opted-out").sandbox, null);
  });

  it("limits a box to 256 processes and 2GiB per process unless it says otherwise", () => {
    const inherits = stdio(yaml, "inherits").sandbox!;
    assert.deepEqual([inherits.processes, inherits.memory], [256, 2 * 1024 ** 3]);
    const own = stdio(
      "servers:\n  s: { command: node, sandbox: { processes: 32, memory: 512MiB } }\n",
      "s",
    ).sandbox!;
    assert.deepEqual([own.processes, own.memory], [32, 512 * 1024 ** 2]);
    const small = problems("servers:\n  a: { command: node, sandbox: { memory: 1MiB } }\n");
    assert.ok(
      small.includes("servers.a.sandbox.memory: expected at least 64MiB"),
      small.join("\n"),
    );
    const few = problems("servers:\n  a: { command: node, sandbox: { processes: 2 } }\n");
    assert.ok(few.some((p) => /^servers\.a\.sandbox\.processes: expected at least 16/.test(p)));
  });

  it("runs the gateway's filters first, then the server's, each once", () => {
    const names = (n: string) =>
      parseConfig(yaml, { file: FILE }).servers.find((s) => s.name === n)!.filters.map((f) =>
        f.kind === "lua" ? `${f.name}=${f.file}` : f.name
      );
    assert.deepEqual(names("inherits"), ["secrets", "lua:a=/srv/gw/f/a.lua"]);
    assert.deepEqual(names("own"), ["secrets", "lua:a=/srv/gw/f/a.lua", "pii"]);
    assert.deepEqual(names("remote"), ["secrets", "lua:a=/srv/gw/f/a.lua", "spotlight"]);
  });

  it("refuses folders that hold the config's folder, and sandbox on a url server", () => {
    const found = problems(`
servers:
  a: { command: node, sandbox: { read: ["/srv"], write: ["."] } }
  b: { command: node, cwd: "..", sandbox: true }
  c: { url: "https://example.com/mcp", sandbox: true }
`);
    assert.ok(
      found.some((p) =>
        /^servers\.a\.sandbox\.read\[0\]: read folder \/srv holds the config's folder/.test(p)
      ),
      found.join("\n"),
    );
    assert.ok(
      found.some((p) => /^servers\.a\.sandbox\.write\[0\]: write folder \/srv\/gw holds/.test(p)),
    );
    assert.ok(
      found.some((p) =>
        /^servers\.b\.cwd: the sandboxed server's cwd \(writable\) \/srv holds/.test(p)
      ),
    );
    assert.ok(
      found.some((p) => /^servers\.c\.sandbox: sandbox applies to command servers only/.test(p)),
    );
  });

  it("refuses a folder that holds the state folder (pins, credentials), wherever it lives", () => {
    const found = problems(`
gateway:
  state: /var/lib/gw-state
servers:
  a: { command: node, sandbox: { write: ["/var/lib"] } }
  b: { command: node, sandbox: { read: ["/var/lib/gw-state/pins"] } }
`);
    assert.ok(
      found.some((p) =>
        /^servers\.a\.sandbox\.write\[0\]: write folder \/var\/lib holds the state folder/.test(p)
      ),
      found.join("\n"),
    );
    assert.ok(
      found.some((p) => /^servers\.b\.sandbox\.read\[0\]: .*state folder/.test(p)),
      found.join("\n"),
    );
  });

  it("refuses a folder that is a symlink to the config's or the state folder", () => {
    const root = mkdtempSync(join(tmpdir(), "mcpgw-sandbox-links-"));
    const dir = join(root, "gw");
    const state = join(root, "state");
    mkdirSync(join(dir, "docs"), { recursive: true });
    mkdirSync(join(state, "pins"), { recursive: true });
    symlinkSync(dir, join(root, "to-config"));
    symlinkSync(state, join(root, "to-state"));
    symlinkSync(join(state, "pins"), join(root, "to-pins"));
    symlinkSync(root, join(root, "to-root"));
    const found = problemsOf(
      `gateway:\n  state: ${state}\n` +
        `servers:\n  a:\n    command: node\n    sandbox:\n` +
        `      read: [${join(root, "to-config")}, ${join(root, "to-pins")}, ./docs]\n` +
        `      write: [${join(root, "to-state")}, ${join(root, "to-root", "gw")}]\n`,
      join(dir, "gateway.yaml"),
    );
    const at = (p: string, re: RegExp) =>
      assert.ok(found.some((f) => f.startsWith(p) && re.test(f)), `${p}:\n${found.join("\n")}`);
    at("servers.a.sandbox.read[0]: ", /to-config holds the config's folder/);
    at("servers.a.sandbox.read[1]: ", /to-pins is inside the state folder/);
    at("servers.a.sandbox.write[0]: ", /to-state holds the state folder/);
    at("servers.a.sandbox.write[1]: ", /to-root\/gw holds the config's folder/);
    assert.ok(!found.some((f) => f.startsWith("servers.a.sandbox.read[2]")), found.join("\n"));
  });

  it("refuses an unknown filter name", () => {
    assert.ok(
      problems("servers:\n  a: { command: node, filters: [secret] }\n").some((p) =>
        /^servers\.a\.filters\[0\]: expected secrets, pii, spotlight or \{ lua: FILE \}/.test(p)
      ),
    );
  });
});
