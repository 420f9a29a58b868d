/**
 * The start-time rules `mcp-gateway check` runs without starting anything: the listen/auth
 * rule, every stdio command resolvable, every folder present. Each problem names its YAML path;
 * the caller adds the line. (Schema, `${VAR}`s and cross-field rules are `loadConfig`'s; macro
 * registration is `check.ts`'s, since it needs a script sandbox.)
 */
import { accessSync, constants, statSync } from "node:fs";
import { basename, delimiter, isAbsolute, join } from "node:path";
import type { GatewayConfig, SandboxConfig, StdioServerConfig } from "../config/mod.ts";
import { assertSafeExposure } from "../http/mod.ts";
import { BWRAP_HINT, FETCHING_RUNNERS, findBwrap } from "../upstream/mod.ts";
import { GatewayError } from "../shared/errors.ts";

/** One problem found by a start-time rule. */
export interface PreflightProblem {
  /** YAML path; `["--listen"]` when the command-line override is at fault. */
  path: (string | number)[];
  message: string;
}

/** Options of {@link preflight}. */
export interface PreflightOptions {
  /** `--listen` given on the command line (overrides `gateway.listen`). */
  listen?: string | null;
  /** True when `scripting.macros` is written in the file (a missing default folder is fine). */
  macrosExplicit: boolean;
  /** The environment the gateway would start with (PATH lookups). */
  env?: Record<string, string | undefined>;
}

/** Runs every rule; returns all problems found (empty = would start). */
export function preflight(config: GatewayConfig, options: PreflightOptions): PreflightProblem[] {
  const problems: PreflightProblem[] = [];
  const env = options.env ?? process.env;
  const host = options.listen
    ? options.listen.slice(0, options.listen.lastIndexOf(":")).replace(/^\[(.*)\]$/, "$1")
    : config.gateway.host;
  try {
    assertSafeExposure(config.gateway, host);
  } catch (err) {
    if (!(err instanceof GatewayError)) throw err;
    problems.push({
      path: options.listen ? ["--listen"] : ["gateway", "listen"],
      message: err.message,
    });
  }
  for (const server of config.servers) {
    if (!server.enabled || server.kind !== "stdio") continue;
    const why = commandProblem(server, env);
    if (why) problems.push({ path: ["servers", server.name, "command"], message: why });
    const cwd = folderProblem(server.cwd);
    if (cwd) problems.push({ path: ["servers", server.name, "cwd"], message: cwd });
    if (server.sandbox) problems.push(...sandboxProblems(server, server.sandbox, env));
  }
  // A gateway-wide filter is in every server's list: each missing file is told once.
  const missing = new Set<string>();
  for (const server of config.servers) {
    if (!server.enabled) continue;
    for (const f of server.filters) {
      if (f.kind !== "lua" || missing.has(f.file) || fileExists(f.file)) continue;
      missing.add(f.file);
      problems.push({
        path: ["servers", server.name, "filters"],
        message: `Lua filter ${f.file} does not exist`,
      });
    }
  }
  const macros = config.scripting.macrosDir;
  if (macros && options.macrosExplicit) {
    const why = folderProblem(macros);
    if (why) problems.push({ path: ["scripting", "macros"], message: why });
  }
  return problems;
}

/** A sandboxed server needs bubblewrap and the folders it is given. */
function sandboxProblems(
  server: StdioServerConfig,
  sandbox: SandboxConfig,
  env: Record<string, string | undefined>,
): PreflightProblem[] {
  const at = ["servers", server.name, "sandbox"];
  const out: PreflightProblem[] = [];
  if (FETCHING_RUNNERS.test(basename(server.command))) {
    out.push({
      path: ["servers", server.name, "command"],
      message: `${basename(server.command)} fetches packages at start, which the sandbox ` +
        "refuses; install the package and run its file with node",
    });
  }
  if (!findBwrap(env.PATH)) {
    out.push({ path: at, message: `bubblewrap (bwrap) is not on PATH; ${BWRAP_HINT}` });
  }
  for (const key of ["read", "write"] as const) {
    sandbox[key].forEach((dir, i) => {
      const why = folderProblem(dir);
      if (why) out.push({ path: [...at, key, i], message: why });
    });
  }
  return out;
}

/** Why a stdio server's command cannot be started, or `undefined` when it can. */
export function commandProblem(
  server: Pick<StdioServerConfig, "command" | "env">,
  env: Record<string, string | undefined>,
): string | undefined {
  const { command } = server;
  if (command.includes("/")) {
    return executableProblem(isAbsolute(command) ? command : join(process.cwd(), command));
  }
  // The child is spawned with the gateway's environment plus the server's own `env`.
  const path = server.env.PATH ?? env.PATH ?? "";
  for (const dir of path.split(delimiter)) {
    if (dir && executableProblem(join(dir, command)) === undefined) return undefined;
  }
  return `command "${command}" is not found on PATH (${path || "empty"})`;
}

function executableProblem(file: string): string | undefined {
  let stat;
  try {
    stat = statSync(file);
  } catch {
    return `${file} does not exist`;
  }
  if (stat.isDirectory()) return `${file} is a folder, not a program`;
  try {
    accessSync(file, constants.X_OK);
  } catch {
    return `${file} is not executable (chmod +x)`;
  }
  return undefined;
}

function fileExists(file: string): boolean {
  try {
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

function folderProblem(dir: string): string | undefined {
  try {
    if (statSync(dir).isDirectory()) return undefined;
    return `${dir} is not a folder`;
  } catch {
    return `folder ${dir} does not exist`;
  }
}
