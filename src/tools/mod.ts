/**
 * @module Script-backed tools: macros (`macros/`) and the `execute` tool (`execute/`), each with
 * its tool adapter, its logic and its one bridge to the gateway, running on one
 * {@link ScriptHost} per gateway. Finished runs are published through {@link ScriptRuns}.
 */
import type { GatewayConfig, ScriptLimitsConfig } from "../config/mod.ts";
import { ScriptHost, type ScriptLimits } from "../scripting/mod.ts";
import type { Gateway, MetaTools } from "../gateway/mod.ts";
import { ExecuteTool } from "./execute/mod.ts";
import { LuaFilter } from "./filters/lua-filter.ts";
import { MacroTools } from "./macros/mod.ts";
import { ScriptRuns } from "./runs.ts";

export { ExecuteTool } from "./execute/mod.ts";
export { bridgeFor, type BridgeOptions, MACRO_SERVER, MacroTools } from "./macros/mod.ts";
export { ScriptRuns, verdictOf } from "./runs.ts";
export type { ScriptRunRecord, ScriptVerdict } from "./runs.ts";

/** True when the config needs script workers at all (Lua filters count). */
export function needsScripting(config: GatewayConfig): boolean {
  return config.scripting.execute || config.scripting.tools.length > 0 ||
    config.scripting.macrosDir !== null ||
    config.servers.some((s) => s.filters.some((f) => f.kind === "lua"));
}

/** What {@link attachScripting} set up. */
export interface Scripting {
  host: ScriptHost;
  macros: MacroTools;
  /** Finished macro and execute runs, for observers (metrics, status page). */
  runs: ScriptRuns;
}

/**
 * Starts the script workers, registers macros (throwing `CONFIG_INVALID` on registration
 * errors, after closing the workers) and adds the macro and execute tools to the gateway.
 */
export async function attachScripting(
  gateway: Gateway,
  meta: MetaTools,
  force = false,
): Promise<Scripting | null> {
  const config = gateway.config;
  if (!force && !needsScripting(config)) return null;
  const { limits } = config.scripting;
  const host = new ScriptHost({
    limits: runLimitsOf(limits),
    vfs: { ...config.scripting.vfs },
    poolSize: limits.workers,
    ...(limits.workersPerToken === null ? {} : { workersPerToken: limits.workersPerToken }),
    // Workers start on the first script (macro registration is one): start-up stays light.
    lazy: true,
  });
  const runs = new ScriptRuns();
  const macros = new MacroTools(gateway, host, runs);
  try {
    await macros.load(config);
  } catch (err) {
    await host.close();
    throw err;
  }
  gateway.addProvider(macros);
  gateway.addProvider(new ExecuteTool(gateway, host, meta, runs));
  gateway.filters.useLua((spec) => new LuaFilter(host, spec));
  gateway.onStop(async () => {
    macros.unwatch();
    await host.close();
  });
  return { host, macros, runs };
}

/** The per-run limits of `scripting.limits` (the rest of it sizes the worker pool). */
export function runLimitsOf(limits: ScriptLimitsConfig): ScriptLimits {
  return {
    timeoutMs: limits.timeoutMs,
    memoryBytes: limits.memoryBytes,
    transferBytes: limits.transferBytes,
    pictures: limits.pictures,
  };
}
