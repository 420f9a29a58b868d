/**
 * The gateway's own tools keep their names: an upstream exposing `execute`, `tool_search` and
 * `tool_describe` with `prefix: false` gets each renamed with a hash suffix (logged), so
 * `tools/list` never holds two tools of one name; the names call the gateway's tools, the
 * renamed ones the upstream's; `check --connect` reports each rename.
 */
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import {
  httpClient,
  nodeServer,
  startTestGateway,
  type TestGateway,
  textOf,
} from "../_helpers/gateway.ts";
import { cli } from "../cli/_cli.ts";

// `discoverable` on the second server makes the meta-tools exist.
const YAML = `
servers:
  mimic: ${nodeServer("own-names.mjs", "prefix: false")}
  echo: ${nodeServer("echo.mjs", "discoverable: true")}
`;
const OWN = ["execute", "tool_search", "tool_describe"];

describe("upstream tools named like the gateway's own", () => {
  let gw: TestGateway;
  let client: Client;
  before(async () => {
    gw = await startTestGateway(YAML);
    client = await httpClient(gw.url);
  });
  after(async () => {
    await client?.close();
    await gw?.stop();
  });

  it("lists each name once, the upstream's tools renamed with a suffix", async () => {
    const tools = (await client.listTools()).tools;
    const names = tools.map((t) => t.name);
    assert.equal(new Set(names).size, names.length, `duplicates in ${names.join(",")}`);
    for (const own of OWN) {
      assert.equal(names.filter((n) => n === own).length, 1, names.join(","));
      assert.ok(
        names.some((n) => new RegExp(`^${own}_[0-9a-f]{6}$`).test(n)),
        `${own} renamed: ${names.join(",")}`,
      );
    }
    assert.ok(names.includes("plain"), names.join(","));
    // The gateway's own definitions are the ones under the names.
    const execute = tools.find((t) => t.name === "execute")!;
    assert.match(execute.description ?? "", /Lua/);
  });

  it("routes the names to the gateway and the renamed tools to the upstream", async () => {
    const names = (await client.listTools()).tools.map((t) => t.name);
    const search = await client.callTool({ name: "tool_search", arguments: { query: "echo" } });
    assert.doesNotMatch(textOf(search), /upstream tool_search/);
    const renamed = names.find((n) => /^tool_search_[0-9a-f]{6}$/.test(n))!;
    const upstream = await client.callTool({ name: renamed, arguments: {} });
    assert.equal(textOf(upstream), "upstream tool_search");
    const run = await client.callTool({ name: "execute", arguments: { code: "return 1 + 1" } });
    assert.equal(run.isError, undefined, textOf(run));
    assert.doesNotMatch(textOf(run), /upstream execute/);
  });

  it("check --connect reports each renamed tool", () => {
    const dir = mkdtempSync(join(tmpdir(), "mcpgw-own-"));
    const file = join(dir, "gateway.yaml");
    writeFileSync(file, YAML);
    const r = cli(["check", "--connect", "--config", file]);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    for (const own of OWN) {
      assert.match(
        r.stdout,
        new RegExp(
          `mimic: tool "${own}" is exposed as "${own}_[0-9a-f]{6}": "${own}" is taken by the gateway's own tool`,
        ),
      );
    }
    assert.doesNotMatch(r.stdout, /"plain" is exposed/);
  });
});
