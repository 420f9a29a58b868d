/**
 * Finding and registering macros: every `.lua` file of the macro folder (not `_*.lua`, which are
 * libraries) is run once with `mcp.tool` recording what it registers, and every
 * `scripting.tools` entry of the config is read. Errors name the file, the tool and the key.
 */
import { readdirSync, readFileSync } from "node:fs";
import { basename, join } from "node:path";
import type { InlineMacroConfig } from "../../config/mod.ts";
import { GatewayError } from "../../shared/errors.ts";
import type { ScriptHost } from "../../scripting/mod.ts";
import { MACRO_MAIN, MACRO_PRELUDE } from "./lua.ts";
import { inputSchemaOf, type Param, resolveParams } from "./params.ts";

/** A registered macro. */
export interface MacroDef {
  readonly name: string;
  readonly description: string;
  readonly params: readonly Param[];
  readonly inputSchema: Record<string, unknown> & { type: "object" };
  readonly keywords: readonly string[];
  readonly discoverable: boolean;
  /** Where it is defined, for error messages (`macros/greet.lua`, `gateway.yaml scripting.tools.x`). */
  readonly origin: string;
  /** How to run it. */
  readonly source:
    | { kind: "file"; file: string; text: string; libs: Record<string, string> }
    | { kind: "chunk"; chunkName: string; text: string };
}

const NAME = /^[a-zA-Z0-9_-]{1,64}$/;
const SPEC_KEYS = new Set(["name", "description", "params", "keywords", "discoverable", "run"]);

/** Lua sources of the folder's `_*.lua` libraries, keyed by file stem (`_util`). */
function readLibs(dir: string, files: string[]): Record<string, string> {
  const libs: Record<string, string> = {};
  for (const f of files) {
    if (f.startsWith("_")) libs[f.slice(0, -4)] = readFileSync(join(dir, f), "utf8");
  }
  return libs;
}

/** Lists `.lua` files of a folder (missing folder = none). */
function luaFiles(dir: string | null): string[] {
  if (!dir) return [];
  try {
    return readdirSync(dir).filter((f) => f.endsWith(".lua")).sort();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw new GatewayError(
      "CONFIG_INVALID",
      `scripting.macros: cannot read ${dir}: ${(err as Error).message}`,
    );
  }
}

/**
 * Registers every macro. Throws `CONFIG_INVALID` with all problems found (each naming where).
 */
export async function loadMacros(
  host: ScriptHost,
  dir: string | null,
  inline: readonly InlineMacroConfig[],
  configFile: string,
): Promise<MacroDef[]> {
  const files = luaFiles(dir);
  const libs = dir ? readLibs(dir, files) : {};
  const problems: string[] = [];
  // One file after another: each registration is a short run, and run side by side they would
  // start a script worker each (a ~55 MiB process and ~150 ms of CPU) while the upstreams start.
  const defs: MacroDef[] = [];
  for (const f of files) {
    if (f.startsWith("_")) continue;
    try {
      defs.push(...await registerFile(host, join(dir!, f), libs));
    } catch (err) {
      problems.push((err as Error).message);
    }
  }
  for (const t of inline) {
    try {
      defs.push(inlineDef(t, configFile));
    } catch (err) {
      problems.push((err as Error).message);
    }
  }
  const seen = new Map<string, string>();
  for (const d of defs) {
    const other = seen.get(d.name);
    if (other) problems.push(`macro "${d.name}" is defined twice: in ${other} and in ${d.origin}`);
    else seen.set(d.name, d.origin);
  }
  if (problems.length) {
    throw new GatewayError("CONFIG_INVALID", `invalid macros:\n  ${problems.join("\n  ")}`, {
      data: { problems },
    });
  }
  return defs;
}

async function registerFile(
  host: ScriptHost,
  file: string,
  libs: Record<string, string>,
): Promise<MacroDef[]> {
  const text = readFileSync(file, "utf8");
  const where = `macros/${basename(file)}`;
  const outcome = await host.run(MACRO_MAIN, {
    prelude: MACRO_PRELUDE,
    globals: { MACRO_SOURCE: text, MACRO_FILE: basename(file), MACRO_LIBS: libs },
    chunkName: "macro",
  });
  if (!outcome.ok) {
    const at = outcome.line !== undefined && outcome.chunk
      ? ` (${outcome.chunk}:${outcome.line})`
      : "";
    throw new GatewayError("CONFIG_INVALID", `${where}: ${outcome.message}${at}`);
  }
  const raw = outcome.value;
  const specs = Array.isArray(raw)
    ? raw
    : raw && typeof raw === "object" && Object.keys(raw).length === 0
    ? []
    : null;
  if (!specs) {
    throw new GatewayError("CONFIG_INVALID", `${where}: registration returned an unexpected value`);
  }
  return specs.map((s) =>
    specDef(s as Record<string, unknown>, where, { kind: "file", file: basename(file), text, libs })
  );
}

function specDef(s: Record<string, unknown>, where: string, source: MacroDef["source"]): MacroDef {
  const name = s.name as string;
  const at = `${where}: tool "${name}"`;
  if (!NAME.test(name)) {
    throw new GatewayError(
      "CONFIG_INVALID",
      `${at}: invalid name (expected 1-64 letters, digits, '_' or '-')`,
    );
  }
  for (const key of (s.__keys as string[] | undefined) ?? []) {
    if (!SPEC_KEYS.has(key)) {
      throw new GatewayError(
        "CONFIG_INVALID",
        `${at}: unknown key "${key}" (expected name, description, params, keywords, discoverable, run)`,
      );
    }
  }
  if (s.__run !== "function") {
    throw new GatewayError(
      "CONFIG_INVALID",
      `${at}: run must be a function(args), got ${s.__run === "nil" ? "nothing" : s.__run}`,
    );
  }
  return common(name, s, at, where, source);
}

function common(
  name: string,
  s: { description?: unknown; params?: unknown; keywords?: unknown; discoverable?: unknown },
  at: string,
  origin: string,
  source: MacroDef["source"],
): MacroDef {
  if (typeof s.description !== "string" || s.description.trim() === "") {
    throw new GatewayError("CONFIG_INVALID", `${at}: description is missing (a non-empty string)`);
  }
  const keywords = s.keywords === undefined ||
      (typeof s.keywords === "object" && s.keywords && Object.keys(s.keywords).length === 0)
    ? []
    : s.keywords;
  if (!Array.isArray(keywords) || keywords.some((k) => typeof k !== "string")) {
    throw new GatewayError("CONFIG_INVALID", `${at}: keywords must be a list of strings`);
  }
  if (s.discoverable !== undefined && typeof s.discoverable !== "boolean") {
    throw new GatewayError("CONFIG_INVALID", `${at}: discoverable must be a boolean`);
  }
  const params = resolveParams(s.params, at);
  return {
    name,
    description: s.description,
    params,
    inputSchema: inputSchemaOf(params),
    keywords,
    discoverable: (s.discoverable as boolean | undefined) ?? false,
    origin,
    source,
  };
}

function inlineDef(t: InlineMacroConfig, configFile: string): MacroDef {
  const origin = `${basename(configFile)} scripting.tools.${t.name}`;
  let text: string;
  let chunkName: string;
  if (t.file) {
    try {
      text = readFileSync(t.file, "utf8");
    } catch (err) {
      throw new GatewayError(
        "CONFIG_INVALID",
        `${origin}.file: cannot read ${t.file}: ${(err as Error).message}`,
      );
    }
    chunkName = basename(t.file);
  } else {
    text = t.lua ?? "";
    chunkName = `tools.${t.name}`;
  }
  return common(t.name, t, origin, origin, { kind: "chunk", chunkName, text });
}
