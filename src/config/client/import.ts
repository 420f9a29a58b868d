/**
 * Client configs as gateway configs: the `mcpServers` files of Claude Desktop, Claude Code and
 * Cursor and the `servers` file of VS Code become the equivalent `gateway.yaml`, so an operator
 * can paste what they already have. Whatever has no equivalent is dropped with a comment.
 */
import { parse, type ParseError, printParseErrorCode } from "jsonc-parser";
import { byName, own } from "../../shared/by-name.ts";
import { Document, isScalar, isSeq, type YAMLMap } from "yaml";
import { GatewayError } from "../../shared/errors.ts";
import { hasReferences, literalString } from "../env.ts";
import { NAME_PATTERN } from "../schema.ts";

/** A client config converted: the gateway config and what the conversion changed or dropped. */
export interface ImportedConfig {
  /** `{ servers: { … } }` in gateway.yaml's form (`${VAR}`s still unexpanded). */
  config: { servers: Record<string, Record<string, unknown>> };
  /** Per server (by its new name): comments for the YAML (renames, dropped keys). */
  notes: Record<string, string[]>;
  /** Notes about the whole file (variables to set, values kept literal). */
  header: string[];
  /**
   * YAML paths of values that held `${…}` or `$$` as text: their `$`s are doubled, so the
   * gateway keeps them literal instead of expanding them from its own environment.
   */
  escaped: string[];
  /**
   * Secrets taken out of the config: an `env` value or header whose name says it holds one
   * (token, key, password, authorization…) became a `${NAME}`; its value is here, for an env
   * file (`writeEnvFile`), never for the YAML.
   */
  secrets: Map<string, string>;
}

/** What an escaped value means, for the YAML comment and the command's stderr. */
export const ESCAPED_NOTE = "Kept literal ($ doubled, so the gateway does not expand " +
  "${…} from its environment; write ${VAR} yourself where you mean one)";

const KNOWN_TOP = new Set(["mcpServers", "servers", "inputs"]);

/**
 * True when parsed JSON is a client config rather than a gateway config written as JSON: it
 * has `mcpServers`, or only client keys at the top with an entry using `type` or `disabled`.
 */
export function isClientConfig(value: unknown): boolean {
  if (!value || typeof value !== "object" || Array.isArray(value)) return false;
  const top = value as Record<string, unknown>;
  if (!Object.keys(top).every((k) => KNOWN_TOP.has(k))) return false;
  if (top.mcpServers !== undefined || top.inputs !== undefined) return true;
  const servers = top.servers;
  if (!servers || typeof servers !== "object") return false;
  return Object.values(servers).some((s) =>
    s && typeof s === "object" && ("type" in s || "disabled" in s)
  );
}

/** Parses JSON that may carry `//` and `/* *\/` comments and trailing commas (VS Code's JSONC). */
export function parseJsonc(text: string, file: string): unknown {
  const errors: ParseError[] = [];
  const value = parse(text, errors, { allowTrailingComma: true });
  const first = errors[0];
  if (first) {
    const line = text.slice(0, first.offset).split("\n").length;
    throw new GatewayError(
      "CONFIG_INVALID",
      `${file}: not valid JSON: ${printParseErrorCode(first.error)} on line ${line}`,
    );
  }
  return value;
}

/** What one conversion collects: variables to set, values escaped, secrets taken out. */
interface Found {
  used: Set<string>;
  escaped: string[];
  secrets: Map<string, string>;
}

/** Names of env variables and headers that hold a secret. */
const SECRET_NAME =
  /token|secret|passw|api[_-]?key|apikey|auth|credential|private[_-]?key|access[_-]?key|cookie/i;

const CLIENT_VARIABLE = /\$\{(env|input):([^}]+)\}|\$\{workspaceFolder\}/g;

/**
 * One client value as gateway.yaml text, `at` its YAML path. VS Code's and Cursor's `${env:X}`,
 * `${input:x}` and `${workspaceFolder}` are variables there, and become gateway `${VAR}`s.
 * Every other `$` is doubled: a `${HOME}` or `$$` a client passes on as text would otherwise
 * expand from the gateway's environment — a hostile config could send a secret in a URL.
 */
function variables(value: string, at: string, found: Found): string {
  if (hasReferences(value.replace(CLIENT_VARIABLE, ""))) found.escaped.push(at);
  let out = "";
  let last = 0;
  for (const m of value.matchAll(CLIENT_VARIABLE)) {
    out += literalString(value.slice(last, m.index));
    last = m.index + m[0].length;
    const [, kind, id] = m;
    if (!kind) {
      found.used.add("WORKSPACE_FOLDER (was ${workspaceFolder})");
      out += "${WORKSPACE_FOLDER}";
      continue;
    }
    const name = String(id).replace(/[^A-Za-z0-9_]/g, "_").toUpperCase();
    if (kind === "input") found.used.add(`${name} (was the VS Code input "${id}")`);
    out += `\${${name}}`;
  }
  return out + literalString(value.slice(last));
}

function strings(value: unknown, at: string, found: Found): string[] | undefined {
  return Array.isArray(value)
    ? value.map((v, i) => variables(String(v), `${at}[${i}]`, found))
    : undefined;
}

function stringMap(
  value: unknown,
  at: string,
  found: Found,
  server: string,
): Record<string, string> | undefined {
  if (!value || typeof value !== "object" || Array.isArray(value)) return undefined;
  // Entries, then one object from them: a variable named `__proto__` stays a key.
  const out: [string, string][] = [];
  for (const [k, v] of Object.entries(value)) {
    const text = String(v);
    // A secret the client holds as plain text moves to the env file; a value naming a variable
    // (the client's, or `${…}` text) is no secret and converts as any other.
    if (
      SECRET_NAME.test(k) && text !== "" && !hasReferences(text) && text.search(CLIENT_VARIABLE) < 0
    ) {
      const name = secretName(server, k, found.secrets);
      found.secrets.set(name, text);
      out.push([k, `\${${name}}`]);
    } else out.push([k, variables(text, `${at}.${k}`, found)]);
  }
  return Object.fromEntries(out);
}

/** `SERVER_KEY` in upper case, unique among `taken`. */
function secretName(server: string, key: string, taken: ReadonlyMap<string, string>): string {
  const up = (s: string) => s.replace(/[^A-Za-z0-9]+/g, "_").toUpperCase();
  const base = up(key).startsWith(`${up(server)}_`) ? up(key) : `${up(server)}_${up(key)}`;
  let name = /^[0-9]/.test(base) ? `_${base}` : base;
  for (let n = 2; taken.has(name); n++) name = `${base}_${n}`;
  return name;
}

/** A server name valid in gateway.yaml (NAME_PATTERN, no `__`), unique among `taken`. */
export function sanitiseName(name: string, taken: ReadonlySet<string>): string {
  let base = name.replace(/[^A-Za-z0-9_-]/g, "_").replace(/_{2,}/g, "_")
    .replace(/^[^A-Za-z0-9]+/, "").slice(0, 48);
  if (base === "") base = "server";
  let candidate = base;
  for (let n = 2; taken.has(candidate) || !NAME_PATTERN.test(candidate); n++) {
    candidate = `${base.slice(0, 48 - String(n).length - 1)}-${n}`;
  }
  return candidate;
}

const HANDLED = new Set([
  "type",
  "command",
  "args",
  "env",
  "cwd",
  "url",
  "headers",
  "disabled",
]);

/** Converts a parsed client config; throws `CONFIG_INVALID` when it holds no server map. */
export function importClientConfig(value: unknown, file: string): ImportedConfig {
  const top = (value ?? {}) as Record<string, unknown>;
  const entries = top.mcpServers ?? top.servers;
  if (!entries || typeof entries !== "object" || Array.isArray(entries)) {
    throw new GatewayError(
      "CONFIG_INVALID",
      `${file}: expected a "mcpServers" (Claude, Cursor) or "servers" (VS Code) map of servers`,
    );
  }
  const servers: ImportedConfig["config"]["servers"] = {};
  const notes: ImportedConfig["notes"] = byName();
  const found: Found = { used: new Set(), escaped: [], secrets: new Map() };
  for (const [original, raw] of Object.entries(entries as Record<string, unknown>)) {
    const name = sanitiseName(original, new Set(Object.keys(servers)));
    const mine: string[] = [];
    if (name !== original) mine.push(`was "${original}" (renamed to a valid server name)`);
    if (!raw || typeof raw !== "object" || Array.isArray(raw)) {
      throw new GatewayError("CONFIG_INVALID", `${file}: server "${original}" is not an object`);
    }
    const s = raw as Record<string, unknown>;
    const out: Record<string, unknown> = {};
    const at = `servers.${name}`;
    const type = typeof s.type === "string" ? s.type : undefined;
    if (typeof s.url === "string" && type !== "stdio") {
      out.url = variables(s.url, `${at}.url`, found);
      const headers = stringMap(s.headers, `${at}.headers`, found, name);
      if (headers) out.headers = headers;
      if (type === "sse") out.transport = "sse";
      else if (type && type !== "stdio") out.transport = "streamable-http";
    } else if (typeof s.command === "string") {
      out.command = variables(s.command, `${at}.command`, found);
      const args = strings(s.args, `${at}.args`, found);
      if (args?.length) out.args = args;
      const env = stringMap(s.env, `${at}.env`, found, name);
      if (env && Object.keys(env).length > 0) out.env = env;
      if (typeof s.cwd === "string") out.cwd = variables(s.cwd, `${at}.cwd`, found);
    } else {
      throw new GatewayError(
        "CONFIG_INVALID",
        `${file}: server "${original}" has neither a command nor a url`,
      );
    }
    if (s.disabled === true) out.enabled = false;
    const dropped = Object.keys(s).filter((k) => !HANDLED.has(k));
    if (dropped.length > 0) mine.push(`dropped (no gateway equivalent): ${dropped.join(", ")}`);
    servers[name] = out;
    if (mine.length > 0) notes[name] = mine;
  }
  const header: string[] = [];
  if (found.used.size > 0) {
    header.push("Set these environment variables before starting the gateway:");
    for (const v of [...found.used].sort()) header.push(`  ${v}`);
  }
  if (found.escaped.length > 0) {
    header.push(`${ESCAPED_NOTE}:`, ...found.escaped.map((p) => `  ${p}`));
  }
  if (found.secrets.size > 0) {
    header.push(
      "Secrets found in the client's config are ${VARS} here; their values are in the env file",
      "beside this file (mode 0600): start with --env-file, or as systemd's EnvironmentFile=:",
      ...[...found.secrets.keys()].map((n) => `  ${n}`),
    );
  }
  return {
    config: { servers },
    notes,
    header,
    escaped: found.escaped,
    secrets: found.secrets,
  };
}

/** The imported config as gateway.yaml text, with its notes as comments. */
export function importedYaml(imported: ImportedConfig, from: string): string {
  const doc = new Document(imported.config);
  doc.commentBefore = [
    ` gateway.yaml imported from ${from} by mcp-gateway import.`,
    " Relative paths now resolve against this file's folder. Every option: mcp-gateway's",
    " docs/CONFIGURATION.md.",
    ...imported.header.map((l) => ` ${l}`),
  ].join("\n");
  const servers = doc.get("servers", true) as YAMLMap;
  for (const pair of servers.items) {
    const name = isScalar(pair.key) ? String(pair.key.value) : "";
    const lines = own(imported.notes, name);
    if (lines && isScalar(pair.key)) pair.key.commentBefore = lines.map((l) => ` ${l}`).join("\n");
    const args = (pair.value as YAMLMap).get("args", true);
    if (isSeq(args)) args.flow = true;
  }
  return doc.toString({ lineWidth: 0 });
}
