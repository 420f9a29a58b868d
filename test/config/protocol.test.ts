/**
 * The per-server `protocol` key: `auto` by default, `legacy` and `modern` taken as written, and
 * every wrong use refused with a problem naming its YAML path.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseConfig } from "../../src/config/mod.ts";
import { problemsOf } from "./_problems.ts";

const parse = (yaml: string) => parseConfig(yaml, { env: {}, file: "/tmp/gw/gateway.yaml" });

const problems = (yaml: string) => problemsOf(yaml);

describe("servers.<name>.protocol", () => {
  it("defaults to auto and keeps legacy and modern", () => {
    const c = parse(
      "servers:\n  a: { command: x }\n  l: { command: x, protocol: legacy }\n" +
        "  m: { url: 'https://example.com/mcp', protocol: modern }\n",
    );
    assert.deepEqual(c.servers.map((s) => [s.name, s.protocol]), [
      ["a", "auto"],
      ["l", "legacy"],
      ["m", "modern"],
    ]);
  });

  it("refuses an unknown era, naming the path and the choices", () => {
    const [problem] = problems("servers:\n  a: { command: x, protocol: latest }\n");
    assert.match(problem!, /^servers\.a\.protocol: expected auto, legacy or modern/);
  });

  it("refuses protocol: modern over legacy SSE", () => {
    assert.deepEqual(
      problems(
        "servers:\n  r: { url: 'https://example.com/sse', transport: sse, protocol: modern }\n",
      ),
      [
        "servers.r.protocol: protocol: modern needs streamable HTTP; transport: sse speaks the " +
        "2025 wire only",
      ],
    );
  });
});
