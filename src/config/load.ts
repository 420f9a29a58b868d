/**
 * Reads `gateway.yaml`: YAML parse → `${ENV}` expansion → strict validation → normalised IR.
 * Every problem is reported with its YAML path (and line when known), all at once.
 */
import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { LineCounter, parseDocument } from "yaml";
import type { z } from "zod";
import { GatewayError } from "../shared/errors.ts";
import { createLogger } from "../shared/log.ts";
import { plainData } from "./aliases.ts";
import { type EnvProblem, expandEnv } from "./env.ts";
import { allowedKeys, closestKey } from "./keys.ts";
import { normaliseConfig } from "./normalise.ts";
import { type ConfigSchema, configSchema } from "./schema.ts";
import { secretVariables } from "./secret-env.ts";
import type { GatewayConfig } from "./types.ts";

/** One config problem: where (dotted YAML path, line, column) and what was expected. */
export interface ConfigProblem {
  path: string;
  line?: number;
  /** Set for YAML syntax errors, which have no path yet. */
  column?: number;
  message: string;
  /** The path as its keys and indexes (absent for YAML syntax errors). */
  segments?: (string | number)[];
  /** Set when the problem is this environment variable being unset. */
  unsetVariable?: string;
}

/** Options for {@link loadConfig} and {@link parseConfig}. */
export interface LoadOptions {
  env?: Record<string, string | undefined>;
}

/**
 * Reads and validates a config file; throws `GatewayError(CONFIG_INVALID)` listing problems. A
 * `.json` file may be a client's config: the converter (and its JSONC parser) is loaded for it.
 */
export async function loadConfig(file: string, options: LoadOptions = {}): Promise<GatewayConfig> {
  const path = resolve(file);
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    const reason = (err as NodeJS.ErrnoException).code === "ENOENT" ? "no such file" : String(err);
    throw new GatewayError("CONFIG_INVALID", `${file}: cannot read config: ${reason}`, {
      data: { problems: [{ path: "", message: reason }] },
    });
  }
  if (path.endsWith(".json")) {
    const client = await import("./client/mod.ts");
    const json = client.parseJsonc(text, file);
    if (client.isClientConfig(json)) return parseImported(client, json, options, path);
  }
  return parseConfig(text, { ...options, file: path });
}

/**
 * A Claude/Cursor/VS Code config used as `--config` directly: converted as `mcp-gateway import`
 * would, then validated; problems keep their paths but not lines (those are of the conversion).
 */
function parseImported(
  client: typeof import("./client/mod.ts"),
  json: unknown,
  options: LoadOptions,
  file: string,
): GatewayConfig {
  const imported = client.importClientConfig(json, file);
  if (imported.escaped.length > 0) {
    createLogger("config").warn(client.ESCAPED_NOTE, { file, values: imported.escaped });
  }
  const yaml = client.importedYaml(imported, file);
  try {
    return parseConfig(yaml, { ...options, file });
  } catch (err) {
    if (!(err instanceof GatewayError) || err.code !== "CONFIG_INVALID") throw err;
    const problems = (err.data?.problems ?? []) as ConfigProblem[];
    throw configError(
      file,
      problems.map(({ path, message, unsetVariable }) => ({
        path,
        message,
        ...(unsetVariable === undefined ? {} : { unsetVariable }),
      })),
    );
  }
}

/** Validates config text; `file` locates relative paths and names the file in errors. */
export function parseConfig(
  text: string,
  options: LoadOptions & { file?: string } = {},
): GatewayConfig {
  const file = options.file ?? resolve("gateway.yaml");
  const { doc, lines, lineOf } = readYaml(text);
  if (doc.errors.length > 0) {
    const problems = doc.errors.map((e): ConfigProblem => {
      const { line, col } = lines.linePos(e.pos[0]);
      return { path: "", line, column: col, message: e.message.split("\n")[0] ?? e.message };
    });
    throw configError(file, problems);
  }
  const plain = plainData(doc);
  if ("problem" in plain) {
    throw configError(file, [locate(plain.problem.path, plain.problem.message, lineOf)]);
  }
  const raw = plain.data;
  const envProblems: EnvProblem[] = [];
  const expanded = expandEnv(raw, options.env ?? process.env, envProblems);
  const problems: ConfigProblem[] = envProblems.map((p) => ({
    ...locate(p.path, p.message, lineOf),
    unsetVariable: p.variable,
  }));
  const schema = configSchema();
  const parsed = schema.safeParse(expanded, { reportInput: true });
  if (!parsed.success) {
    for (const issue of parsed.error.issues) problems.push(...describeIssue(schema, issue, lineOf));
  }
  if (problems.length > 0 || !parsed.success) throw configError(file, problems);
  const env = options.env ?? process.env;
  const withheldEnv = secretVariables(raw, parsed.data, env);
  const normalised = normaliseConfig(parsed.data, dirname(file), file, {
    withheldEnv,
    stateDirectory: env.STATE_DIRECTORY,
  });
  if (normalised.problems.length > 0) {
    throw configError(file, normalised.problems.map((p) => locate(p.path, p.message, lineOf)));
  }
  return normalised.config;
}

/** A YAML path → line lookup over config text (the nearest written ancestor when absent). */
export interface YamlLocator {
  /** Line of the node at `path`, or of its nearest ancestor that is written. */
  lineOf(path: (string | number)[]): number | undefined;
  /** True when the key at `path` is written in the file (not a default). */
  has(path: (string | number)[]): boolean;
}

/** Parses config text keeping node positions, for locating problems found after loading. */
export function yamlLocator(text: string): YamlLocator {
  const { doc, lineOf } = readYaml(text);
  return { lineOf, has: (path) => doc.errors.length === 0 && doc.hasIn(path) };
}

function readYaml(text: string) {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  const lineOf = (path: (string | number)[]): number | undefined => {
    for (let p = path; p.length >= 0; p = p.slice(0, -1)) {
      const node = p.length === 0 ? doc.contents : doc.getIn(p, true);
      const offset = (node as { range?: [number] } | undefined)?.range?.[0];
      if (offset !== undefined) return lines.linePos(offset).line;
      if (p.length === 0) return undefined;
    }
    return undefined;
  };
  return { doc, lines, lineOf };
}

function locate(
  path: (string | number)[],
  message: string,
  lineOf: (p: (string | number)[]) => number | undefined,
): ConfigProblem {
  const line = lineOf(path);
  return { path: dotted(path), message, segments: path, ...(line === undefined ? {} : { line }) };
}

/** `["servers", "docs", "args", 0]` → `servers.docs.args[0]`. */
export function dotted(path: readonly PropertyKey[]): string {
  let out = "";
  for (const part of path) {
    if (typeof part === "number") out += `[${part}]`;
    else out += (out ? "." : "") + String(part);
  }
  return out;
}

function describeIssue(
  schema: ConfigSchema,
  issue: z.core.$ZodIssue,
  lineOf: (p: (string | number)[]) => number | undefined,
): ConfigProblem[] {
  const path = issue.path.filter((p): p is string | number => typeof p !== "symbol");
  switch (issue.code) {
    case "unrecognized_keys": {
      const allowed = allowedKeys(schema, path);
      return issue.keys.map((k) => {
        const near = closestKey(k, allowed);
        const hint = near
          ? `; did you mean "${near}"?`
          : allowed.length > 0
          ? ` (expected one of ${allowed.join(", ")})`
          : "";
        return locate([...path, k], `unknown key "${k}"${hint}`, lineOf);
      });
    }
    case "invalid_format": {
      const got = issue.input === undefined
        ? ""
        : `, got ${describeValue(issue.input, path, true)}`;
      return [locate(path, `${issue.message}${got}`, lineOf)];
    }
    case "invalid_key": {
      const inner = issue.issues[0]?.message ?? issue.message;
      return [locate(path, `invalid name "${String(path.at(-1))}": ${inner}`, lineOf)];
    }
    case "invalid_type": {
      const got = issue.input === undefined ? "nothing" : describeValue(issue.input, path);
      const msg = issue.message.startsWith("Invalid input")
        ? `expected ${issue.expected}, got ${got}`
        : `${issue.message}, got ${got}`;
      return [locate(path, msg, lineOf)];
    }
    default:
      return [locate(path, issue.message, lineOf)];
  }
}

/** Keys under which a value may be a secret: what is found there is never echoed. */
const SECRET_KEYS: ReadonlySet<string> = new Set([
  "auth",
  "headers",
  "env",
  "token",
  "oauth",
  "cluster",
]);

/**
 * What kind of value was found. A number or boolean (and, for a value of the wrong form, a
 * short string) is shown as written — `got 30` says more than `got a number` — except under
 * keys that may hold secrets (tokens, headers, env), where only its kind is named: an error
 * message travels to terminals and logs.
 */
function describeValue(v: unknown, path: readonly (string | number)[], strings = false): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "a list";
  if (typeof v === "object") return "a map";
  const secret = path.some((k) => typeof k === "string" && SECRET_KEYS.has(k));
  if (!secret && (typeof v === "number" || typeof v === "boolean")) return String(v);
  if (!secret && strings && typeof v === "string") {
    return `string ${JSON.stringify(v).slice(0, 40)}`;
  }
  return `a ${typeof v}`;
}

/** `GatewayError(CONFIG_INVALID)` listing every problem with its YAML path and line. */
export function configError(file: string, problems: ConfigProblem[]): GatewayError {
  const lines = problems.map((p) => {
    const at = p.line === undefined
      ? ""
      : p.column === undefined
      ? ` (line ${p.line})`
      : ` (line ${p.line}, column ${p.column})`;
    return `  ${p.path || "YAML syntax"}${at}: ${p.message}`;
  });
  return new GatewayError(
    "CONFIG_INVALID",
    `${file}: invalid config (${problems.length} problem${problems.length === 1 ? "" : "s"})\n${
      lines.join("\n")
    }`,
    { data: { problems } },
  );
}
