/**
 * Macro parameter specs → JSON Schema, and argument checking against them. A
 * float default infers `number` (registration marks it, since JSON cannot tell 2.0 from 2).
 * A spec is a description string (type string, or inferred from nothing) or a map with `type`,
 * `description`, `default`, `required`. Untyped params take their type from `default`.
 */
import { own, putOwn } from "../../shared/by-name.ts";
import { GatewayError } from "../../shared/errors.ts";

/** Scalar parameter types after alias resolution. */
export type ScalarType = "string" | "integer" | "number" | "boolean";
/** A resolved parameter. */
export interface Param {
  readonly name: string;
  readonly type: ScalarType | `array:${ScalarType}`;
  readonly description?: string;
  readonly default?: unknown;
  readonly required: boolean;
}

const ALIASES: Record<string, ScalarType> = {
  string: "string",
  str: "string",
  integer: "integer",
  int: "integer",
  number: "number",
  float: "number",
  boolean: "boolean",
  bool: "boolean",
};
const SPEC_KEYS = new Set(["type", "description", "default", "required"]);
/** The type names a spec may use, for error messages. */
export const TYPE_NAMES =
  "string|str, integer|int, number|float, boolean|bool, array:<one of those>";

/** Resolves `int`, `array:float`, … or returns `undefined` for an unknown type. */
export function resolveType(t: string): Param["type"] | undefined {
  if (t.startsWith("array:")) {
    const inner = own(ALIASES, t.slice(6));
    return inner ? `array:${inner}` : undefined;
  }
  return own(ALIASES, t);
}

function inferType(def: unknown): Param["type"] {
  if (typeof def === "boolean") return "boolean";
  if (typeof def === "number") return Number.isInteger(def) ? "integer" : "number";
  return "string";
}

/**
 * Resolves every param spec; `where` prefixes errors (`macros/greet.lua: tool "greet"`).
 * Throws `CONFIG_INVALID` naming the param and key.
 */
export function resolveParams(specs: unknown, where: string): Param[] {
  if (specs === undefined || specs === null) return [];
  if (typeof specs !== "object" || Array.isArray(specs)) {
    // An empty Lua table arrives as an empty object or array; both mean "no params".
    if (Array.isArray(specs) && specs.length === 0) return [];
    throw new GatewayError(
      "CONFIG_INVALID",
      `${where}: params must be a table keyed by parameter name`,
    );
  }
  const out: Param[] = [];
  for (const [name, spec] of Object.entries(specs as Record<string, unknown>)) {
    const at = `${where}: param "${name}"`;
    if (!/^[A-Za-z_][A-Za-z0-9_]{0,63}$/.test(name)) {
      throw new GatewayError("CONFIG_INVALID", `${at}: invalid parameter name`);
    }
    if (typeof spec === "string") {
      out.push({ name, type: "string", description: spec, required: true });
      continue;
    }
    if (!spec || typeof spec !== "object" || Array.isArray(spec)) {
      throw new GatewayError("CONFIG_INVALID", `${at}: expected a description string or a table`);
    }
    const s = spec as Record<string, unknown>;
    for (const key of Object.keys(s)) {
      if (!SPEC_KEYS.has(key)) {
        throw new GatewayError(
          "CONFIG_INVALID",
          `${at}: unknown key "${key}" (expected type, description, default, required)`,
        );
      }
    }
    let type: Param["type"];
    if (s.type === undefined) type = inferType(s.default);
    else {
      const resolved = typeof s.type === "string" ? resolveType(s.type) : undefined;
      if (!resolved) {
        throw new GatewayError(
          "CONFIG_INVALID",
          `${at}: unknown type ${JSON.stringify(s.type)} (expected ${TYPE_NAMES})`,
        );
      }
      type = resolved;
    }
    if (s.description !== undefined && typeof s.description !== "string") {
      throw new GatewayError("CONFIG_INVALID", `${at}: description must be a string`);
    }
    if (s.required !== undefined && typeof s.required !== "boolean") {
      throw new GatewayError("CONFIG_INVALID", `${at}: required must be a boolean`);
    }
    if (s.default !== undefined) {
      const problem = checkValue(s.default, type, "default");
      if (problem) throw new GatewayError("CONFIG_INVALID", `${at}: ${problem}`);
    }
    out.push({
      name,
      type,
      ...(s.description === undefined ? {} : { description: s.description as string }),
      ...(s.default === undefined ? {} : { default: s.default }),
      required: (s.required as boolean | undefined) ?? s.default === undefined,
    });
  }
  return out.sort((a, b) => a.name.localeCompare(b.name));
}

/** The tool's `inputSchema`. */
export function inputSchemaOf(
  params: readonly Param[],
): Record<string, unknown> & { type: "object" } {
  // From entries: a param named `__proto__` is an own key, not the object's prototype.
  const properties = Object.fromEntries(params.map((p) => {
    const schema: Record<string, unknown> = p.type.startsWith("array:")
      ? { type: "array", items: { type: p.type.slice(6) } }
      : { type: p.type };
    if (p.description !== undefined) schema.description = p.description;
    if (p.default !== undefined) schema.default = p.default;
    return [p.name, schema];
  }));
  const required = params.filter((p) => p.required).map((p) => p.name);
  return {
    type: "object",
    properties,
    ...(required.length ? { required } : {}),
    additionalProperties: false,
  };
}

function checkValue(v: unknown, type: Param["type"], what: string): string | undefined {
  if (type.startsWith("array:")) {
    if (!Array.isArray(v)) return `${what} must be an array of ${type.slice(6)}`;
    for (let i = 0; i < v.length; i++) {
      const p = checkValue(v[i], type.slice(6) as ScalarType, `${what}[${i}]`);
      if (p) return p;
    }
    return undefined;
  }
  const ok = type === "integer"
    ? typeof v === "number" && Number.isInteger(v)
    : type === "number"
    ? typeof v === "number" && Number.isFinite(v)
    : type === "boolean"
    ? typeof v === "boolean"
    : typeof v === "string";
  return ok
    ? undefined
    : `${what} must be ${type === "integer" ? "an integer" : `a ${type}`}, got ${describe(v)}`;
}

function describe(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "an array";
  return typeof v === "string"
    ? `string ${JSON.stringify(v.slice(0, 40))}`
    : `${typeof v} ${JSON.stringify(v)}`;
}

/**
 * Checks call arguments against the params and fills defaults. Throws `INVALID_ARGUMENTS`
 * naming every problem.
 */
export function checkArgs(
  tool: string,
  params: readonly Param[],
  args: Record<string, unknown>,
): Record<string, unknown> {
  const problems: string[] = [];
  const out: Record<string, unknown> = {};
  const known = new Set(params.map((p) => p.name));
  for (const key of Object.keys(args)) {
    if (!known.has(key)) problems.push(`unknown argument "${key}"`);
  }
  for (const p of params) {
    // Own keys only: a param named `constructor` is not given by Object.prototype.
    const v = own(args, p.name);
    if (v === undefined || v === null) {
      if (p.default !== undefined) putOwn(out, p.name, structuredClone(p.default));
      else if (p.required) problems.push(`missing required argument "${p.name}"`);
      continue;
    }
    const problem = checkValue(v, p.type, `argument "${p.name}"`);
    if (problem) problems.push(problem);
    else putOwn(out, p.name, v);
  }
  if (problems.length) {
    throw new GatewayError("INVALID_ARGUMENTS", `${tool}: ${problems.join("; ")}`);
  }
  return out;
}
