/**
 * @module Macros: Lua files (and `scripting.tools` entries) that register MCP tools with
 * `mcp.tool { name, description, params, keywords, discoverable, run }`.
 */
export { invokeMacro } from "./invoke.ts";
export type { InvokeOptions } from "./invoke.ts";
export { checkArgs, inputSchemaOf, resolveParams, resolveType, TYPE_NAMES } from "./params.ts";
export type { Param } from "./params.ts";
export { loadMacros } from "./registry.ts";
export type { MacroDef } from "./registry.ts";
