/**
 * Renders JSON Schema as compact type text. Two dialects: `ts` is strict TypeScript that gives up
 * (returns `undefined`) on constructs it cannot state faithfully, so the caller can fall back to
 * the schema itself; `signature` always answers, approximating (`$ref` → its name) where needed,
 * because a signature is a hint beside the full schema, never a replacement for it.
 */

/** Which dialect to render. */
export type ShapeDialect = "ts" | "signature";

type Schema = Record<string, unknown>;

/** Object nesting rendered in full; deeper objects show as `object`. */
const MAX_DEPTH = 1;
/** A nested object longer than this collapses to `object` in signatures. */
const MAX_SIGNATURE_OBJECT = 120;

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
const STRICT_UNSUPPORTED = [
  "$ref",
  "oneOf",
  "allOf",
  "not",
  "if",
  "patternProperties",
  "$dynamicRef",
];

/** True for a plain JSON object (not an array, not null). */
export function isSchema(value: unknown): value is Schema {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The declared properties of an object schema, in declaration order. */
export function propertiesOf(schema: unknown): [string, unknown][] {
  if (!isSchema(schema) || !isSchema(schema.properties)) return [];
  return Object.entries(schema.properties);
}

/** The `required` names of an object schema. */
export function requiredOf(schema: unknown): ReadonlySet<string> {
  if (!isSchema(schema) || !Array.isArray(schema.required)) return new Set();
  return new Set(schema.required.filter((r): r is string => typeof r === "string"));
}

/** A property key as written in a TS type or signature: quoted when not an identifier. */
export function propertyKey(key: string): string {
  return IDENTIFIER.test(key) ? key : JSON.stringify(key);
}

/**
 * Renders `schema` as type text. `depth` counts enclosing objects (the parameter object itself is
 * depth 0). Returns `undefined` only in the `ts` dialect, for what it cannot express.
 */
export function renderType(schema: unknown, dialect: ShapeDialect, depth = 0): string | undefined {
  if (schema === true || schema === undefined) return "unknown";
  if (schema === false) return "never";
  if (!isSchema(schema)) return dialect === "ts" ? undefined : "any";
  const strict = dialect === "ts";
  if (strict && STRICT_UNSUPPORTED.some((k) => k in schema)) return undefined;
  if (typeof schema.$ref === "string") return schema.$ref.split("/").pop() || "any";
  if ("const" in schema) return literal(schema.const, dialect);
  if (Array.isArray(schema.enum)) {
    const parts = schema.enum.map((v) => literal(v, dialect));
    return parts.includes(undefined) ? undefined : union(parts as string[]);
  }
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(alternatives)) return renderUnion(alternatives, dialect, depth);
  if (Array.isArray(schema.allOf)) return "object";

  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  const parts: string[] = [];
  for (const t of types) {
    const part = renderBase(schema, t, dialect, depth);
    if (part === undefined) return undefined;
    parts.push(part);
  }
  return union(parts);
}

function renderBase(
  schema: Schema,
  type: unknown,
  dialect: ShapeDialect,
  depth: number,
): string | undefined {
  switch (type) {
    case "string":
    case "boolean":
    case "null":
    case "number":
      return type;
    case "integer":
      return dialect === "ts" ? "number" : "integer";
    case "array":
      return renderArray(schema, dialect, depth);
    case "object":
      return renderObject(schema, dialect, depth);
    case undefined:
      if ("properties" in schema || "additionalProperties" in schema) {
        return renderObject(schema, dialect, depth);
      }
      return "items" in schema ? renderArray(schema, dialect, depth) : "unknown";
    default:
      return dialect === "ts" ? undefined : "any";
  }
}

function renderArray(schema: Schema, dialect: ShapeDialect, depth: number): string | undefined {
  const items = schema.items;
  if (Array.isArray(items) || Array.isArray(schema.prefixItems)) {
    return dialect === "ts" ? undefined : "any[]";
  }
  const inner = items === undefined ? "unknown" : renderType(items, dialect, depth);
  if (inner === undefined) return undefined;
  return inner.includes(" | ") ? `(${inner})[]` : `${inner}[]`;
}

function renderObject(schema: Schema, dialect: ShapeDialect, depth: number): string | undefined {
  const props = propertiesOf(schema);
  const extra = schema.additionalProperties;
  if (props.length === 0) {
    if (isSchema(extra)) {
      const value = renderType(extra, dialect, depth + 1);
      return value === undefined ? undefined : `Record<string, ${value}>`;
    }
    return dialect === "ts" ? "Record<string, unknown>" : "object";
  }
  if (depth > MAX_DEPTH) return "object";
  const required = requiredOf(schema);
  const fields: string[] = [];
  for (const [key, spec] of props) {
    const type = renderType(spec, dialect, depth + 1);
    if (type === undefined) return undefined;
    fields.push(`${propertyKey(key)}${required.has(key) ? "" : "?"}: ${type}`);
  }
  const text = `{ ${fields.join(dialect === "ts" ? "; " : ", ")} }`;
  return dialect === "signature" && depth > 0 && text.length > MAX_SIGNATURE_OBJECT
    ? "object"
    : text;
}

function renderUnion(
  alternatives: readonly unknown[],
  dialect: ShapeDialect,
  depth: number,
): string | undefined {
  const parts: string[] = [];
  for (const alt of alternatives) {
    const part = renderType(alt, dialect, depth);
    if (part === undefined) return undefined;
    parts.push(part);
  }
  return parts.length === 0 ? "unknown" : union(parts);
}

function literal(value: unknown, dialect: ShapeDialect): string | undefined {
  if (value === null || ["string", "number", "boolean"].includes(typeof value)) {
    return JSON.stringify(value);
  }
  return dialect === "ts" ? undefined : "any";
}

function union(parts: readonly string[]): string {
  const unique = [...new Set(parts)];
  return unique.length === 0 ? "never" : unique.join(" | ");
}
