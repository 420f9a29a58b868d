/**
 * docs/CONFIGURATION.md lists every key of `gateway.yaml`. The keys are read from the JSON Schema
 * generated from the zod schema (a separate test keeps that file current), so a key added to the
 * schema without a line in the reference fails here, and so does a line for a key that is gone.
 * And every `yaml` example in the README and docs/ is a config the schema accepts, so no page
 * shows a key, a value or a shape the gateway would refuse.
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { parse } from "yaml";
import { configSchema } from "../../src/config/mod.ts";
import { ROOT } from "../_helpers/gateway.ts";

interface SchemaNode {
  properties?: Record<string, SchemaNode>;
  additionalProperties?: SchemaNode | boolean;
  items?: SchemaNode;
  anyOf?: SchemaNode[];
  oneOf?: SchemaNode[];
}

/** Every key path of the schema: `gateway.limits.batch`, `servers.<name>.args`, `…tokens.[].name`. */
function schemaKeys(node: SchemaNode, prefix = "", keys = new Set<string>()): Set<string> {
  for (const [key, child] of Object.entries(node.properties ?? {})) {
    keys.add(prefix + key);
    schemaKeys(child, `${prefix}${key}.`, keys);
  }
  for (const alternative of [...(node.anyOf ?? []), ...(node.oneOf ?? [])]) {
    schemaKeys(alternative, prefix, keys);
  }
  if (typeof node.additionalProperties === "object") {
    schemaKeys(node.additionalProperties, `${prefix}<name>.`, keys);
  }
  if (node.items) schemaKeys(node.items, `${prefix}[].`, keys);
  return keys;
}

/** The keys the reference's tables name: the first cell of each row, in backticks. */
function documentedKeys(markdown: string): Set<string> {
  const section = markdown.slice(markdown.indexOf("## Every key"));
  return new Set([...section.matchAll(/^\| `([^`]+)`\s*\|/gm)].map((m) => m[1]!));
}

describe("docs/CONFIGURATION.md: the configuration reference", () => {
  const schema = JSON.parse(readFileSync(join(ROOT, "gateway.schema.json"), "utf8")) as SchemaNode;
  const keys = schemaKeys(schema);
  const documented = documentedKeys(readFileSync(join(ROOT, "docs/CONFIGURATION.md"), "utf8"));

  it("reads keys from the schema", () => {
    assert.ok(keys.has("gateway.limits.batch") && keys.has("servers.<name>.oauth.mode"));
  });

  it("lists every key of the schema", () => {
    assert.deepEqual([...keys].filter((k) => !documented.has(k)), []);
  });

  it("lists no key the schema does not have", () => {
    assert.deepEqual([...documented].filter((k) => !keys.has(k)), []);
  });
});

/** Stands for every `${VAR}` of an example: as long as the longest minimum (a secrets key). */
const VALUE = "example-value-0123456789abcdef0123456789";

describe("docs: every yaml example is a valid config", () => {
  const docs = readdirSync(join(ROOT, "docs")).filter((f) => f.endsWith(".md"));
  for (const page of ["README.md", ...docs.map((f) => `docs/${f}`)]) {
    it(page, () => {
      const text = readFileSync(join(ROOT, page), "utf8");
      const refused: string[] = [];
      for (const block of text.matchAll(/```yaml\n([\s\S]*?)```/g)) {
        const line = text.slice(0, block.index).split("\n").length;
        const config = parse(block[1]!.replace(/\$\{[^}]+\}/g, VALUE));
        const result = configSchema().safeParse(config);
        if (!result.success) {
          const issues = result.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
          refused.push(`${page}:${line}: ${issues.join("; ")}`);
        }
      }
      assert.deepEqual(refused, []);
    });
  }
});
