/**
 * Reads `gateway.yaml`: YAML parse → `${ENV}` expansion → strict validation → normalised IR.
 * Every problem is reported with its YAML path (and line when known), all at once.
 */
import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { LineCounter, parseDocument } from "yaml";
import type { z } from "zod";
import { GatewayError } from "../shared/errors.ts";
import { type EnvProblem, expandEnv } from "./env.ts";
import { normaliseConfig } from "./normalise.ts";
import { configSchema } from "./schema.ts";
import type { GatewayConfig } from "./types.ts";

/** One config problem: where (dotted YAML path, line) and what was expected. */
export interface ConfigProblem {
  path: string;
  line?: number;
  message: string;
}

/** Options for {@link loadConfig} and {@link parseConfig}. */
export interface LoadOptions {
  env?: Record<string, string | undefined>;
}

/** Reads and validates a config file; throws `GatewayError(CONFIG_INVALID)` listing problems. */
export function loadConfig(file: string, options: LoadOptions = {}): GatewayConfig {
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
  return parseConfig(text, { ...options, file: path });
}

/** Validates config text; `file` locates relative paths and names the file in errors. */
export function parseConfig(
  text: string,
  options: LoadOptions & { file?: string } = {},
): GatewayConfig {
  const file = options.file ?? resolve("gateway.yaml");
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
  if (doc.errors.length > 0) {
    const problems = doc.errors.map((e) => ({
      path: "",
      line: e.linePos?.[0]?.line,
      message: e.message.split("\n")[0] ?? e.message,
    }));
    throw configError(file, problems);
  }
  const raw = doc.toJS() ?? {};
  const envProblems: EnvProblem[] = [];
  const expanded = expandEnv(raw, options.env ?? process.env, envProblems);
  const problems: ConfigProblem[] = envProblems.map((p) => locate(p.path, p.message, lineOf));
  const parsed = configSchema.safeParse(expanded, { reportInput: true });
  if (!parsed.success) {
    for (const issue of parsed.error.issues) problems.push(...describeIssue(issue, lineOf));
  }
  if (problems.length > 0 || !parsed.success) throw configError(file, problems);
  const normalised = normaliseConfig(parsed.data, dirname(file), file);
  if (normalised.problems.length > 0) {
    throw configError(file, normalised.problems.map((p) => locate(p.path, p.message, lineOf)));
  }
  return normalised.config;
}

function locate(
  path: (string | number)[],
  message: string,
  lineOf: (p: (string | number)[]) => number | undefined,
): ConfigProblem {
  const line = lineOf(path);
  return { path: dotted(path), message, ...(line === undefined ? {} : { line }) };
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
  issue: z.core.$ZodIssue,
  lineOf: (p: (string | number)[]) => number | undefined,
): ConfigProblem[] {
  const path = issue.path.filter((p): p is string | number => typeof p !== "symbol");
  switch (issue.code) {
    case "unrecognized_keys":
      return issue.keys.map((k) => locate([...path, k], `unknown key "${k}"`, lineOf));
    case "invalid_key": {
      const inner = issue.issues[0]?.message ?? issue.message;
      return [locate(path, `invalid name "${String(path.at(-1))}": ${inner}`, lineOf)];
    }
    case "invalid_type": {
      const got = issue.input === undefined ? "nothing" : describeValue(issue.input);
      const msg = issue.message.startsWith("Invalid input")
        ? `expected ${issue.expected}, got ${got}`
        : `${issue.message}, got ${got}`;
      return [locate(path, msg, lineOf)];
    }
    default:
      return [locate(path, issue.message, lineOf)];
  }
}

/**
 * What kind of value was found — never the value itself: config values include secrets (tokens,
 * headers, env), and an error message travels to terminals and logs.
 */
function describeValue(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "a list";
  if (typeof v === "object") return "a map";
  return `a ${typeof v}`;
}

function configError(file: string, problems: ConfigProblem[]): GatewayError {
  const lines = problems.map((p) =>
    `  ${p.path || "(document)"}${p.line ? ` (line ${p.line})` : ""}: ${p.message}`
  );
  return new GatewayError(
    "CONFIG_INVALID",
    `${file}: invalid config (${problems.length} problem${problems.length === 1 ? "" : "s"})\n${
      lines.join("\n")
    }`,
    { data: { problems } },
  );
}
