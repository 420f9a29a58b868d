import assert from "node:assert/strict";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { type RunningGateway, startGateway } from "../../../src/cli/mod.ts";
import { parseConfig } from "../../../src/config/mod.ts";
import { httpClient, ROOT, textOf } from "../../_helpers/gateway.ts";

describe("the shipped gateway.yaml and macros", () => {
  let running: RunningGateway;
  let client: Client;
  before(async () => {
    const file = join(ROOT, "gateway.yaml");
    const env = {
      ...process.env,
      MEMORY_FILE_PATH: join(mkdtempSync(join(tmpdir(), "mcpgw-mem-")), "m.jsonl"),
    };
    running = await startGateway(parseConfig(readFileSync(file, "utf8"), { file, env }), {
      listen: "127.0.0.1:0",
      watch: false,
    });
    await running.settled;
    client = await httpClient(`http://127.0.0.1:${running.http!.port}`);
  });
  after(async () => {
    await client?.close();
    await running?.stop();
  });

  it("lists tools of all three shipped servers and the shipped macros", async () => {
    const names = (await client.listTools()).tools.map((t) => t.name);
    for (
      const n of [
        "everything__echo",
        "memory__read_graph",
        "filesystem__list_directory",
        "greet",
        "remember",
        "tiny_gallery",
        "execute",
      ]
    ) {
      assert.ok(names.includes(n), `${n} missing from ${names.join(",")}`);
    }
  });

  it("greet answers", async () => {
    const r = await client.callTool({ name: "greet", arguments: { name: "Ada", times: 2 } });
    assert.equal(textOf(r), "Hello, Ada! Hello, Ada! ");
  });

  it("tiny_gallery returns the pictures beside the text", async () => {
    const r = await client.callTool({ name: "tiny_gallery", arguments: { count: 2 } });
    assert.deepEqual(JSON.parse(textOf(r)), {
      caption: "2 tiny images",
      pictures: [{ type: "image", image: 1 }, { type: "image", image: 2 }],
    });
    const images = (r.content as { type: string; mimeType?: string }[]).filter((c) =>
      c.type === "image"
    );
    assert.equal(images.length, 2);
    assert.equal(images[0]!.mimeType, "image/png");
  });

  it("remember stores a fact in the memory server and reads it back", async () => {
    const r = await client.callTool({
      name: "remember",
      arguments: { subject: "Ada", fact: "wrote the first program" },
    });
    assert.equal(r.isError, undefined, textOf(r));
    const graph = JSON.parse(textOf(r)) as { entities: { name: string; observations: string[] }[] };
    assert.deepEqual(graph.entities.map((e) => [e.name, e.observations]), [["Ada", [
      "wrote the first program",
    ]]]);
  });

  it("filesystem serves the example folder", async () => {
    const r = await client.callTool({
      name: "filesystem__list_directory",
      arguments: { path: join(ROOT, "examples/files") },
    });
    assert.match(textOf(r), /README\.md/);
  });
});
