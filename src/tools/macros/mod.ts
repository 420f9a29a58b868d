/**
 * @module Macros: Lua files (and `scripting.tools` entries) that register MCP tools with
 * `mcp.tool { name, description, params, keywords, discoverable, run }`: the tool adapter
 * (`tool.ts`), registration, parameter checking, invocation, and the one bridge to the gateway
 * (`bridge.ts`).
 */
export { bridgeFor, type BridgeOptions } from "./bridge.ts";
export { invokeMacro } from "./invoke.ts";
export type { InvokeOptions } from "./invoke.ts";
export { checkArgs, inputSchemaOf, resolveParams, resolveType, TYPE_NAMES } from "./params.ts";
export type { Param } from "./params.ts";
export { loadMacros } from "./registry.ts";
export type { MacroDef } from "./registry.ts";
export { MACRO_SERVER, MacroTools } from "./tool.ts";
