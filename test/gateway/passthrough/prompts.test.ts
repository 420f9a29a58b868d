/**
 * Prompts and completions through the gateway, over streamable HTTP and stdio: prompts listed as
 * `<server>__<prompt>` and fetched with their arguments; completions routed by prompt name and
 * by resource template, mapped back to the upstream's names.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { EVERYTHING, type Harness, HARNESSES, nodeServer } from "./_helpers.ts";

const paged = (name: string) =>
  nodeServer("paged.mjs", `env: { PAGED_NAME: ${name}, PAGED_PROMPTS: "3", PAGED_RESOURCES: "3" }`);
const YAML = `
servers:
  everything: ${EVERYTHING}
  a: ${paged("a")}
  b: ${paged("b")}
`;

for (const { kind, open } of HARNESSES) {
  describe(`prompts and completions over ${kind}`, () => {
    let h: Harness;
    let client: Client;
    before(async () => {
      h = await open(YAML);
      client = (await h.connect()).client;
    });
    after(async () => await h?.close());

    it("lists every upstream's prompts as <server>__<prompt>", async () => {
      const names = (await client.listPrompts()).prompts.map((p) => p.name);
      for (const n of ["everything__args-prompt", "a__prompt_0000", "b__prompt_0002"]) {
        assert.ok(names.includes(n), `${n} in ${names.join(",")}`);
      }
    });

    it("gets a prompt from its server with the arguments carried", async () => {
      const r = await client.getPrompt({
        name: "everything__args-prompt",
        arguments: { city: "Paris", state: "TX" },
      });
      const first = r.messages[0]!.content as { text: string };
      assert.equal(first.text, "What's weather in Paris, TX?");
      const p = await client.getPrompt({ name: "b__prompt_0001", arguments: { topic: "t" } });
      assert.equal((p.messages[0]!.content as { text: string }).text, "b prompt_0001 t");
    });

    it("completes a prompt argument through the prompt's server", async () => {
      const r = await client.complete({
        ref: { type: "ref/prompt", name: "everything__completable-prompt" },
        argument: { name: "department", value: "Eng" },
      });
      assert.deepEqual(r.completion.values, ["Engineering"]);
      const ctx = await client.complete({
        ref: { type: "ref/prompt", name: "everything__completable-prompt" },
        argument: { name: "name", value: "" },
        context: { arguments: { department: "Sales" } },
      });
      assert.deepEqual(ctx.completion.values, ["David", "Eve", "Frank"]);
    });

    it("completes a resource template argument through the template's server", async () => {
      const r = await client.complete({
        ref: { type: "ref/resource", uri: "demo://resource/dynamic/text/{resourceId}" },
        argument: { name: "resourceId", value: "5" },
      });
      assert.deepEqual(r.completion.values, ["5"]);
      const rewritten = await client.complete({
        ref: { type: "ref/resource", uri: "mcpgw://b/paged%3A%2F%2Fitem%2F{id}%2Fdetail" },
        argument: { name: "id", value: "x" },
      });
      assert.deepEqual(rewritten.completion.values, ["b|paged://item/{id}/detail|x"]);
    });

    it("maps an exposed prompt name back to the upstream's in completions", async () => {
      const r = await client.complete({
        ref: { type: "ref/prompt", name: "a__prompt_0002" },
        argument: { name: "topic", value: "q" },
      });
      assert.deepEqual(r.completion.values, ["a|prompt_0002|q"]);
    });

    it("answers a completion for an unknown prompt with a clear error", async () => {
      await assert.rejects(
        client.complete({
          ref: { type: "ref/prompt", name: "nope__nothing" },
          argument: { name: "x", value: "" },
        }),
        /unknown prompt "nope__nothing"/,
      );
    });
  });
}
