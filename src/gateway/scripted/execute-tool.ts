/**
 * The `execute` tool (code mode, SPEC §7.3): one Lua script that searches, inspects and calls
 * many tools. Everything runs as the caller: search and describe see only what its token may
 * find, calls go through {@link bridgeFor} without reaching hidden tools.
 */
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { suggestNames } from "../../discovery/mod.ts";
import { countScriptLimit, countScriptRun } from "../../ops/mod.ts";
import {
  EXECUTE_TOOL_NAME,
  type ExecuteDeps,
  executeToolDefinition,
  runExecute,
} from "../../scripting/execute/mod.ts";
import type { ScriptHost, ScriptLimits, ToolResult } from "../../scripting/mod.ts";
import { GatewayError } from "../../shared/errors.ts";
import type { Gateway } from "../gateway.ts";
import type { MetaTools } from "../meta.ts";
import type { Caller, CallOptions, LocalTool, LocalToolProvider } from "../types.ts";
import { bridgeFor } from "./bridge.ts";

/** Provides the `execute` tool when `scripting.execute` is on. */
export class ExecuteTool implements LocalToolProvider {
  #gateway: Gateway;
  #host: ScriptHost;
  #meta: MetaTools;
  #tool: { key: string; local: LocalTool } | undefined;

  constructor(gateway: Gateway, host: ScriptHost, meta: MetaTools) {
    this.#gateway = gateway;
    this.#host = host;
    this.#meta = meta;
  }

  localTools(): readonly LocalTool[] {
    const scripting = this.#gateway.config.scripting;
    if (!scripting.execute) return [];
    const limits = this.#limits();
    // Rebuilt only when the limits (shown in the description) change on reload.
    const key = JSON.stringify(limits);
    if (this.#tool?.key !== key) {
      this.#tool = {
        key,
        local: {
          tool: executeToolDefinition(limits) as Tool,
          server: null,
          discoverable: false,
          alwaysListed: true,
          keywords: ["script", "lua", "batch", "orchestrate", "code"],
          script: "execute",
          call: (args, caller, options) => this.call(args, caller, options) as never,
        },
      };
    }
    return [this.#tool.local];
  }

  /** Runs one `execute` call as `caller`. */
  async call(
    args: Record<string, unknown>,
    caller: Caller,
    options: CallOptions = {},
  ): Promise<ToolResult> {
    const limits = this.#limits();
    const run = await runExecute(this.#host, args, this.#deps(caller, options), {
      limits,
      ...(options.signal ? { signal: options.signal } : {}),
    });
    const outcome = run.outcome;
    if (outcome) {
      if (outcome.ok && !run.tooManyPictures) countScriptRun("ok");
      else if (run.tooManyPictures) {
        countScriptRun("limit");
        countScriptLimit("pictures");
      } else if (!outcome.ok && outcome.limit) {
        countScriptRun("limit");
        countScriptLimit(outcome.limit === "time" ? "timeout" : outcome.limit);
      } else countScriptRun("error");
    }
    return run.result;
  }

  #limits(): ScriptLimits {
    const { timeoutMs, memoryBytes, transferBytes, pictures } =
      this.#gateway.config.scripting.limits;
    return { timeoutMs, memoryBytes, transferBytes, pictures };
  }

  #deps(caller: Caller, options: CallOptions): ExecuteDeps {
    return scriptDeps(this.#gateway, this.#meta, caller, { internal: false, parent: options });
  }
}

/**
 * What a script with the `tools` namespace needs, scoped to `caller`: `execute` runs as the
 * agent (`internal: false`), `mcp-gateway run` as the operator (`internal: true`, hidden tools
 * reachable). `execute` itself is never callable from inside a script.
 */
export function scriptDeps(
  gateway: Gateway,
  meta: MetaTools,
  caller: Caller,
  options: { internal: boolean; parent?: CallOptions },
): ExecuteDeps {
  const inner = bridgeFor(gateway, caller, {
    internal: options.internal,
    ...(options.parent ? { parent: options.parent } : {}),
  });
  return {
    bridge: {
      callTool(name, args, signal) {
        // A nested run would wait for a worker its parent may be holding.
        if (name === EXECUTE_TOOL_NAME) {
          return Promise.reject(
            new GatewayError("FORBIDDEN", "execute cannot be called from inside a script"),
          );
        }
        return inner.callTool(name, args, signal);
      },
      listTools: () => inner.listTools().filter((n) => n !== EXECUTE_TOOL_NAME),
    },
    search: (args) => meta.search(caller, args),
    describe: (path) => meta.describe(caller, path),
    suggest: (path) => suggestNames(path, inner.listTools()),
    outageCode: (path, result) => outageCode(gateway, caller, path, result),
  };
}

/**
 * The gateway answers an upstream that is down or too slow with an `isError` result naming the
 * server (so direct callers read it); scripts get a code for it instead of `tool_error`.
 */
function outageCode(
  gateway: Gateway,
  caller: Caller,
  path: string,
  result: ToolResult,
): "upstream_error" | "timeout" | undefined {
  const blocks = result.content ?? [];
  const only = blocks.length === 1 ? blocks[0] : undefined;
  if (only?.type !== "text" || typeof only.text !== "string" || result.structuredContent) {
    return undefined;
  }
  let server: string;
  try {
    const target = gateway.resolveTool(path, caller);
    if (!("server" in target) || typeof target.server !== "string") return undefined;
    server = target.server;
  } catch {
    return undefined;
  }
  const prefix = `server ${JSON.stringify(server)} `;
  if (!only.text.startsWith(prefix)) return undefined;
  const rest = only.text.slice(prefix.length);
  if (/^did not answer within \d+ms$/.test(rest)) return "timeout";
  if (/^(closed the connection during the call|is [a-z]+\b|is gone)/.test(rest)) {
    return "upstream_error";
  }
  return undefined;
}
