/**
 * @module Script-backed tools: macros and the `execute` tool, running on one {@link ScriptHost}
 * per gateway, calling tools through {@link bridgeFor}.
 */
import type { GatewayConfig } from "../../config/mod.ts";
import { ScriptHost } from "../../scripting/mod.ts";
import type { Gateway } from "../gateway.ts";
import type { MetaTools } from "../meta.ts";
import { ExecuteTool } from "./execute-tool.ts";
import { MacroTools } from "./macro-tools.ts";
import { ScriptRuns } from "./runs.ts";

export { bridgeFor } from "./bridge.ts";
export type { BridgeOptions } from "./bridge.ts";
export { ExecuteTool } from "./execute-tool.ts";
export { MACRO_SERVER, MacroTools } from "./macro-tools.ts";
export { ScriptRuns, verdictOf } from "./runs.ts";
export type { ScriptRunRecord, ScriptVerdict } from "./runs.ts";

/** True when the config needs script workers at all. */
export function needsScripting(config: GatewayConfig): boolean {
  return config.scripting.execute || config.scripting.tools.length > 0 ||
    config.scripting.macrosDir !== null;
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
    limits: {
      timeoutMs: limits.timeoutMs,
      memoryBytes: limits.memoryBytes,
      transferBytes: limits.transferBytes,
      pictures: limits.pictures,
    },
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
  gateway.onStop(async () => {
    macros.unwatch();
    await host.close();
  });
  return { host, macros, runs };
}
