/**
 * `tool_describe` / `tools.describe`: the untouched schemas plus the compact forms a model reads
 * first — a one-line signature, a TypeScript-like parameter shape, and the parameter
 * descriptions that shape leaves out.
 */
import { putOwn } from "../shared/by-name.ts";
import { isSchema, propertiesOf, propertyKey, renderType, requiredOf } from "./shape.ts";
import type { DescribableTool, ToolDescription } from "./types.ts";

/** Where an output schema applies inside a successful `{ ok: true, data }` call envelope. */
export const OUTPUT_SCHEMA_TARGET = "data.structuredContent";

/** Defaults longer than this are cut in signatures. */
const MAX_DEFAULT = 40;
/** Guidance walks nested params this deep … */
const MAX_GUIDANCE_DEPTH = 6;
/** … and keeps at most this many entries. */
const MAX_GUIDANCE_ENTRIES = 200;

/** Describes one tool: original schemas, signature, compact input shape and guidance. */
export function describeTool(tool: DescribableTool): ToolDescription {
  const inputTypeScript = inputShape(tool.inputSchema);
  const out: ToolDescription = {
    name: tool.name,
    server: tool.server,
    description: tool.description ?? "",
    inputSchema: tool.inputSchema,
    signature: signatureOf(tool),
    inputTypeScript: inputTypeScript ?? JSON.stringify(tool.inputSchema, null, 2),
  };
  // The formatted-schema fallback already carries every description.
  if (inputTypeScript !== undefined) {
    const guidance = inputGuidance(tool.inputSchema);
    if (guidance !== undefined) out.inputGuidance = guidance;
  }
  if (isSchema(tool.outputSchema)) {
    out.outputSchema = tool.outputSchema;
    out.outputSchemaTarget = OUTPUT_SCHEMA_TARGET;
  }
  return out;
}

/**
 * A one-line signature: `name(a: string, b?: integer = 10) -> { … }`. The arrow part appears only
 * when the tool advertises an output schema.
 */
export function signatureOf(tool: DescribableTool): string {
  const schema = tool.inputSchema;
  const props = propertiesOf(schema);
  let params: string;
  if (props.length > 0) {
    const required = requiredOf(schema);
    params = props.map(([key, spec]) => {
      const optional = required.has(key) ? "" : "?";
      const type = renderType(spec, "signature", 1) ?? "any";
      return `${propertyKey(key)}${optional}: ${type}${defaultSuffix(spec)}`;
    }).join(", ");
  } else {
    params = hasOnlyObjectType(schema) ? "" : `args: ${renderType(schema, "signature") ?? "any"}`;
  }
  const output = isSchema(tool.outputSchema)
    ? ` -> ${renderType(tool.outputSchema, "signature") ?? "any"}`
    : "";
  return `${tool.name}(${params})${output}`;
}

/** The compact TypeScript shape of an input schema, or `undefined` when it cannot be expressed. */
export function inputShape(schema: object): string | undefined {
  if (propertiesOf(schema).length === 0 && hasOnlyObjectType(schema)) return "{}";
  return renderType(schema, "ts");
}

/**
 * Descriptions of documented params (with format and range), keyed by dotted path
 * (`filter.state`, `items[].name`); `undefined` when nothing is documented.
 */
export function inputGuidance(schema: object): Record<string, string> | undefined {
  const out: Record<string, string> = {};
  let count = 0;
  const walk = (node: unknown, prefix: string, depth: number): void => {
    if (depth > MAX_GUIDANCE_DEPTH) return;
    for (const [key, spec] of propertiesOf(node)) {
      if (count >= MAX_GUIDANCE_ENTRIES) return;
      const path = prefix === "" ? key : `${prefix}.${key}`;
      const note = noteOf(spec);
      if (note !== undefined) {
        // An upstream's param may be named `__proto__`: set as an own key.
        putOwn(out, path, note);
        count++;
      }
      walk(spec, path, depth + 1);
      if (isSchema(spec) && isSchema(spec.items)) walk(spec.items, `${path}[]`, depth + 1);
    }
  };
  walk(schema, "", 0);
  return count === 0 ? undefined : out;
}

function noteOf(spec: unknown): string | undefined {
  if (!isSchema(spec)) return undefined;
  const description = typeof spec.description === "string" ? spec.description.trim() : "";
  const extras: string[] = [];
  if (typeof spec.format === "string") extras.push(`format: ${spec.format}`);
  const min = spec.minimum ?? spec.exclusiveMinimum;
  const max = spec.maximum ?? spec.exclusiveMaximum;
  if (typeof min === "number") extras.push(`${"minimum" in spec ? ">=" : ">"} ${min}`);
  if (typeof max === "number") extras.push(`${"maximum" in spec ? "<=" : "<"} ${max}`);
  // A bare range is a constraint, not documentation; only descriptions and formats qualify.
  if (description === "" && typeof spec.format !== "string") return undefined;
  if (description === "") return extras.join(", ");
  return extras.length === 0 ? description : `${description} (${extras.join(", ")})`;
}

function defaultSuffix(spec: unknown): string {
  if (!isSchema(spec) || !("default" in spec)) return "";
  const text = JSON.stringify(spec.default) ?? "null";
  return ` = ${text.length > MAX_DEFAULT ? `${text.slice(0, MAX_DEFAULT - 1)}…` : text}`;
}

// `{}` or `{ type: "object" }` (annotations aside): a tool without parameters.
function hasOnlyObjectType(schema: object): boolean {
  const ignored = new Set([
    "type",
    "$schema",
    "$id",
    "title",
    "description",
    "$defs",
    "definitions",
  ]);
  const s = schema as Record<string, unknown>;
  if (s.type !== undefined && s.type !== "object") return false;
  return Object.keys(s).every((k) =>
    ignored.has(k) || (k === "properties" && isSchema(s[k])) ||
    (k === "required" && Array.isArray(s[k])) || (k === "additionalProperties" && s[k] === false)
  );
}
