/**
 * The config rules that keep roots per session: `roots: client` only with `isolation: session`,
 * session isolation only for stdio servers, and root paths turned into `file://` URIs. Each
 * problem names its YAML path.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseConfig } from "../../src/config/mod.ts";
import { problemsOf } from "../config/_problems.ts";

describe("roots and isolation config", () => {
  const problems = (yaml: string): string[] => problemsOf(yaml);

  it("refuses roots: client on a shared server, naming the YAML path", () => {
    assert.deepEqual(problems("servers:\n  files: { command: x, roots: client }\n"), [
      "servers.files.roots: roots: client needs isolation: session (a shared process would get " +
      "one client's roots on behalf of every session)",
    ]);
  });

  it("refuses isolation: session on a url server and stray maxSessions", () => {
    assert.deepEqual(
      problems(
        "servers:\n  r: { url: 'https://example.com/mcp', isolation: session }\n" +
          "  s: { command: x, maxSessions: 3 }\n",
      ),
      [
        "servers.r.isolation: isolation: session applies to command (stdio) servers only",
        "servers.s.maxSessions: maxSessions applies with isolation: session only",
      ],
    );
  });

  it("refuses a stray maxSessionsPerToken; defaults it to a quarter of maxSessions", () => {
    assert.deepEqual(problems("servers:\n  s: { command: x, maxSessionsPerToken: 2 }\n"), [
      "servers.s.maxSessionsPerToken: maxSessionsPerToken applies with isolation: session only",
    ]);
    const c = parseConfig("servers:\n  s: { command: x, isolation: session, maxSessions: 10 }\n");
    assert.equal(c.servers[0]!.maxSessionsPerToken, 2);
  });

  it("resolves root paths against the config folder and refuses other schemes", () => {
    const c = parseConfig("servers:\n  f: { command: x, roots: [./data, 'file:///srv'] }\n", {
      env: {},
      file: "/tmp/gw/gateway.yaml",
    });
    assert.deepEqual(c.servers[0]!.roots, [{ uri: "file:///tmp/gw/data" }, { uri: "file:///srv" }]);
    assert.deepEqual(
      problems("servers:\n  f: { command: x, roots: ['https://example.com/'] }\n"),
      ['servers.f.roots[0]: expected a file:// URI or a path, got "https://example.com/"'],
    );
  });
});
