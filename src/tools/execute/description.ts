/** The `execute` tool's definition: agents learn the API from its description. */
import { formatBytes, formatMs } from "../../scripting/mod.ts";
import type { ScriptLimits } from "../../scripting/mod.ts";

/** Name of the tool. */
export const EXECUTE_TOOL_NAME = "execute";

/** The tool definition for the configured limits. */
export function executeToolDefinition(limits: ScriptLimits): {
  name: string;
  description: string;
  inputSchema: { type: "object"; [key: string]: unknown };
  outputSchema: { type: "object"; [key: string]: unknown };
} {
  const description = [
    "Run one Lua 5.4 script that searches, inspects and calls many tools in a single round trip.",
    "Inside: tools.search{query=, server=, limit=, offset=} -> {items={{path, name, server, " +
    "description (first sentence), score}}, total, has_more, next_offset}; " +
    "tools.describe{path=} -> signature, inputTypeScript, inputGuidance (parameter notes), " +
    "outputSchema (it describes data.structuredContent); " +
    "tools.call(path, args) -> {ok=true, data=<CallToolResult>} or {ok=false, error={code, " +
    "message}} (never raises; an isError result is code 'tool_error' with data); " +
    'tools["server__tool"](args) is shorthand. For concurrency start mcp.call(path, args) for ' +
    "each, then task.await(id) -> {is_error, content, result}. emit(value) and print(...) are " +
    "captured; return the result. Image values (mcp.image(...), image blocks) become pictures.",
    `Limits: ${formatMs(limits.timeoutMs)} (timeout_ms may lower it; higher values are ` +
    `clamped), ${formatBytes(limits.memoryBytes)} memory, ${
      formatBytes(limits.transferBytes)
    } of tool data into the script, ${limits.pictures} pictures.`,
    "Example:",
    'local found = tools.search{query = "read file", limit = 1}',
    "local hit = found.items[1]",
    'if not hit then return "no tool" end',
    'local r = tools.call(hit.path, {path = "notes.txt"})',
    "if not r.ok then return r.error end",
    "return r.data.structuredContent or r.data.content",
  ].join("\n");
  return {
    name: EXECUTE_TOOL_NAME,
    description,
    inputSchema: {
      type: "object",
      properties: {
        code: { type: "string", description: "Lua 5.4 source; what it returns is the result" },
        timeout_ms: {
          type: "integer",
          minimum: 1,
          description: `Time limit in ms (default and ceiling ${limits.timeoutMs})`,
        },
      },
      required: ["code"],
      additionalProperties: false,
    },
    outputSchema: {
      type: "object",
      properties: {
        // Any JSON value, said explicitly: a schema without a validation keyword is flagged
        // by strict checkers (MCP Inspector --strict) as a mistake.
        result: {
          type: ["object", "array", "string", "number", "boolean", "null"],
          description: "The script's return value (pictures as {type, image})",
        },
        emitted: { type: "array", description: "Values passed to emit, in order" },
        output: { type: "string", description: "Captured print output" },
        calls: {
          type: "array",
          description: "Trace: {operation, path|query, ok, error?, duration_ms, incomplete?}",
          items: { type: "object" },
        },
        stats: { type: "object", description: "elapsed_ms, bytes_transferred, operations" },
      },
      required: ["result", "emitted", "output", "calls", "stats"],
    },
  };
}
