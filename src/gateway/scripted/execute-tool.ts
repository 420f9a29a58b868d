/**
 * The `execute` tool (code mode): one Lua script that searches, inspects and calls many tools.
 * Placeholder until code mode lands: provides no tool.
 */
import type { ScriptHost } from "../../scripting/mod.ts";
import type { Gateway } from "../gateway.ts";
import type { MetaTools } from "../meta.ts";
import type { LocalTool, LocalToolProvider } from "../types.ts";

/** Provides the `execute` tool when `scripting.execute` is on. */
export class ExecuteTool implements LocalToolProvider {
  constructor(_gateway: Gateway, _host: ScriptHost, _meta: MetaTools) {}

  localTools(): readonly LocalTool[] {
    return [];
  }
}
