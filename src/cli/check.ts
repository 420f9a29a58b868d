/**
 * `mcp-gateway check [--connect]`: every rule the gateway applies at start, without starting it
 * — the schema, `${VAR}`s, the listen/auth rule, commands and folders, and macro registration in
 * a real script sandbox — so a config that passes here does not fail at start; and profile
 * globs that can match nothing (`./profile-globs.ts`). `--connect` then
 * starts each upstream once and reports its tool count or why it failed.
 */
import { existsSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import {
  configError,
  type ConfigProblem,
  dotted,
  type GatewayConfig,
  yamlLocator,
} from "../config/mod.ts";
import { isClientConfig, parseJsonc } from "../config/client/mod.ts";
import { ScriptHost } from "../scripting/mod.ts";
import { buildCatalog, META_TOOL_NAMES } from "../gateway/mod.ts";
import { EXECUTE_TOOL_NAME } from "../tools/execute/mod.ts";
import { loadMacros, type MacroDef } from "../tools/macros/mod.ts";
import { runLimitsOf } from "../tools/mod.ts";
import { GatewayError, messageOf } from "../shared/errors.ts";
import { createLogger } from "../shared/log.ts";
import { UpstreamPool } from "../upstream/mod.ts";
import { authModeOf, UpstreamAuth } from "../upstream/oauth/mod.ts";
import { needsMetaTools } from "./boot.ts";
import { readForCheck } from "./check-read.ts";
import { deadProfileGlobs } from "./profile-globs.ts";
import { preflight } from "./preflight.ts";

/** Options of {@link checkCommand}. */
export interface CheckOptions {
  listen?: string | null;
  /** Start each upstream once and report it. */
  connect?: boolean;
}

/**
 * Exit 0 when the config would start; throws `CONFIG_INVALID` (exit 2) listing every problem
 * with its YAML path and line. With `connect`, exit 1 when an upstream did not come up.
 */
export async function checkCommand(
  configFile: string,
  options: CheckOptions = {},
): Promise<number> {
  const read = await readForCheck(configFile);
  if (read.config === null) throw configError(resolve(configFile), read.problems);
  const { config } = read;
  const text = readFileSync(config.file, "utf8");
  // A client config given as --config was converted: its lines are not the problems' lines.
  const converted = config.file.endsWith(".json") && isClientConfig(parseJsonc(text, config.file));
  const where = converted ? { lineOf: () => undefined, has: () => false } : yamlLocator(text);
  const at = (path: (string | number)[], message: string): ConfigProblem => {
    const line = String(path[0]).startsWith("--") ? undefined : where.lineOf(path);
    return { path: dotted(path), message, ...(line === undefined ? {} : { line }) };
  };
  const macrosExplicit = where.has(["scripting", "macros"]);
  const problems = preflight(config, { listen: options.listen ?? null, macrosExplicit })
    .map((p) => at(p.path, p.message));
  const macros = await registerMacros(config, at);
  problems.push(...macros.problems);
  const locals = [
    ...macros.names,
    ...(config.scripting.execute ? [EXECUTE_TOOL_NAME] : []),
    ...META_TOOL_NAMES,
  ];
  if (macros.problems.length === 0) {
    problems.push(
      ...deadProfileGlobs(config, locals, macros.names, null).map((p) => at(p.path, p.message)),
    );
  }
  if (read.problems.length > 0 || problems.length > 0) {
    throw configError(config.file, withRead(read.problems, problems));
  }

  const servers = config.servers.map((s) =>
    `${s.name} (${s.kind === "stdio" ? s.command : s.url}${s.enabled ? "" : ", disabled"})`
  );
  const out = [
    `${config.file}: ok — ${config.servers.length} server(s)${
      servers.length ? ": " + servers.join(", ") : ""
    }; ${macros.names.length} macro(s)${
      config.profiles.length ? `; profiles: ${config.profiles.map((p) => p.name).join(", ")}` : ""
    }`,
  ];
  const dir = config.scripting.macrosDir;
  if (dir && !macrosExplicit && !existsSync(dir)) {
    out.push(`note: no macros folder at ${dir} (scripting.macros defaults to ./macros)`);
  }
  process.stdout.write(out.join("\n") + "\n");
  if (!options.connect) return 0;
  return await connectEach(
    config,
    ownToolNames(config, macros),
    (catalog) => deadProfileGlobs(config, locals, macros.names, catalog),
  );
}

/**
 * The problems met reading the config, then `others` but those at or under their paths: a rule
 * that tripped over a value set aside (or a stand-in for an unset variable) reports it again.
 */
function withRead(read: ConfigProblem[], others: ConfigProblem[]): ConfigProblem[] {
  const covered = (p: ConfigProblem) =>
    read.some((u) => p.path === u.path || p.path.startsWith(`${u.path}.`));
  return [...read, ...others.filter((p) => !covered(p))];
}

/** The names of the tools the gateway itself would serve with this config and these macros. */
function ownToolNames(
  config: GatewayConfig,
  macros: { names: string[]; discoverable: boolean },
): Set<string> {
  const names = new Set(macros.names);
  if (config.scripting.execute) names.add(EXECUTE_TOOL_NAME);
  if (needsMetaTools(config) || macros.discoverable) {
    for (const n of META_TOOL_NAMES) names.add(n);
  }
  return names;
}

/** Registers the macros in a script sandbox, as start does; problems name the YAML path. */
async function registerMacros(
  config: GatewayConfig,
  at: (path: (string | number)[], message: string) => ConfigProblem,
): Promise<{ count: number; problems: ConfigProblem[]; names: string[]; discoverable: boolean }> {
  const { macrosDir, tools, limits, vfs } = config.scripting;
  const none = { names: [], discoverable: false };
  if (macrosDir === null && tools.length === 0) return { count: 0, problems: [], ...none };
  const host = new ScriptHost({
    limits: runLimitsOf(limits),
    vfs: { ...vfs },
    poolSize: 1,
    lazy: true,
  });
  const problems: ConfigProblem[] = [];
  const attempt = async (
    path: (string | number)[],
    register: () => Promise<MacroDef[]>,
  ): Promise<MacroDef[]> => {
    try {
      return await register();
    } catch (err) {
      if (!(err instanceof GatewayError) || err.code !== "CONFIG_INVALID") throw err;
      const listed = err.data?.problems;
      const messages = Array.isArray(listed) ? listed.map(String) : [err.message];
      problems.push(...messages.map((m) => at(path, m)));
      return [];
    }
  };
  try {
    // Each source on its own first, so every problem is attributed to its YAML path.
    await attempt(["scripting", "macros"], () => loadMacros(host, macrosDir, [], config.file));
    for (const t of tools) {
      await attempt(["scripting", "tools", t.name], () => loadMacros(host, null, [t], config.file));
    }
    if (problems.length > 0) return { count: 0, problems, ...none };
    // Then together: a name defined twice is only visible this way.
    const defs = await attempt(
      ["scripting", "tools"],
      () => loadMacros(host, macrosDir, tools, config.file),
    );
    return {
      count: defs.length,
      problems,
      names: defs.map((d) => d.name),
      discoverable: defs.some((d) => d.discoverable),
    };
  } finally {
    await host.close();
  }
}

/**
 * Starts each enabled upstream once, prints its tool count or reason, and each tool that would
 * be renamed because its name is taken (by the gateway's own tools, `own`, or another
 * server's); stops them all. When all came up, `deadGlobs` judges the profile globs against the
 * real catalog (exit 1 if any is dead).
 */
async function connectEach(
  config: GatewayConfig,
  own: ReadonlySet<string>,
  deadGlobs: (catalog: string[]) => { path: (string | number)[]; message: string }[],
): Promise<number> {
  const log = createLogger("check");
  // An OAuth server is started with the login the gateway would use (its state folder or
  // cluster store), so one that has none is told apart from one that is down.
  const auth = new UpstreamAuth(() => config, log.child("upstream-oauth"));
  const pool = new UpstreamPool(
    config.servers.filter((s) => s.enabled),
    log,
    { credential: (server) => auth.credentialFor(server) },
    { spares: false },
  );
  try {
    await pool.startAll();
    const up = pool.all().filter((u) => u.state === "up");
    const quiet = { ...log, warn: () => {} };
    const renamed = buildCatalog(config, up, quiet, own).renamed;
    let down = 0;
    for (const u of pool.all()) {
      if (u.state === "up") {
        process.stdout.write(`${u.name}: up, ${u.catalog.tools.length} tool(s)\n`);
        for (const r of renamed.filter((r) => r.server === u.name)) {
          const holder = r.kept === "gateway" ? "the gateway's own tool" : r.kept;
          process.stdout.write(
            `${u.name}: tool "${r.tool}" is exposed as "${r.as}": "${r.name}" is taken by ${holder}\n`,
          );
        }
      } else if (u.state === "needs-login") {
        down++;
        const how = authModeOf(u.config)?.adminLogin
          ? `run \`mcp-gateway login ${u.name}\``
          : u.lastError;
        process.stdout.write(`${u.name}: needs a login: ${how}\n`);
      } else {
        down++;
        // A failed first start may already be waiting for its retry ("starting"): it is down.
        process.stdout.write(`${u.name}: down — ${u.lastError ?? u.state}\n`);
      }
    }
    if (down > 0) return 1;
    const catalog = buildCatalog(config, pool.all(), quiet, own);
    const dead = deadGlobs(catalog.tools.map((e) => e.name));
    for (const p of dead) process.stderr.write(`  ${dotted(p.path)}: ${p.message}\n`);
    return dead.length > 0 ? 1 : 0;
  } catch (err) {
    process.stderr.write(`mcp-gateway: check --connect: ${messageOf(err)}\n`);
    return 1;
  } finally {
    await pool.stopAll();
    await auth.close();
  }
}
