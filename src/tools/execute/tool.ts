/**
 * The `execute` tool (code mode): one Lua script that searches, inspects and calls many tools.
 * Everything runs as the caller: search and describe see only what its token may find, calls
 * go through `Gateway.callToolOutcome` without reaching hidden tools, and upstream outages reach
 * the script as data (their kind), never as text to be read.
 */
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { suggestNames } from "../../discovery/mod.ts";
import { type ExecuteDeps } from "./bridge.ts";
import { EXECUTE_TOOL_NAME, executeToolDefinition } from "./description.ts";
import { runExecute } from "./run.ts";
import type { ScriptHost, ScriptLimits, ToolResult } from "../../scripting/mod.ts";
import { GatewayError } from "../../shared/errors.ts";
import type {
  Caller,
  CallOptions,
  Gateway,
  LocalTool,
  LocalToolProvider,
  MetaTools,
} from "../../gateway/mod.ts";
import { type ScriptRuns, verdictOf } from "../runs.ts";

/** Provides the `execute` tool when `scripting.execute` is on. */
export class ExecuteTool implements LocalToolProvider {
  #gateway: Gateway;
  #host: ScriptHost;
  #meta: MetaTools;
  #runs: ScriptRuns;
  #tool: { key: string; local: LocalTool } | undefined;

  constructor(gateway: Gateway, host: ScriptHost, meta: MetaTools, runs: ScriptRuns) {
    this.#gateway = gateway;
    this.#host = host;
    this.#meta = meta;
    this.#runs = runs;
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
    const started = performance.now();
    const run = await runExecute(this.#host, args, this.#deps(caller, options), {
      limits: this.#limits(),
      ...(options.signal ? { signal: options.signal } : {}),
      depth: options.scriptDepth ?? 0,
      owner: caller.tokenName,
    });
    if (run.outcome) {
      this.#runs.publish({
        feature: "execute",
        name: EXECUTE_TOOL_NAME,
        tokenName: caller.tokenName,
        durationMs: performance.now() - started,
        ...verdictOf(run.outcome, run.tooManyPictures === true),
        at: Date.now(),
      });
    }
    return run.result;
  }

  #limits(): ScriptLimits {
    const { timeoutMs, memoryBytes, transferBytes, pictures } =
      this.#gateway.config.scripting.limits;
    return { timeoutMs, memoryBytes, transferBytes, pictures };
  }

  /** What the run reaches of the gateway, as `caller`, on behalf of the call in `options`. */
  #deps(caller: Caller, options: CallOptions): ExecuteDeps {
    const gateway = this.#gateway;
    const listTools = () =>
      gateway.callableNames(caller, false).filter((n) => n !== EXECUTE_TOOL_NAME);
    return {
      call(name, args, signal) {
        // A nested run of execute would wait for a worker its parent may be holding.
        if (name === EXECUTE_TOOL_NAME) {
          return Promise.reject(
            new GatewayError("FORBIDDEN", "execute cannot be called from inside a script"),
          );
        }
        return gateway.callToolOutcome(name, args, caller, {
          signal,
          internal: false,
          scriptDepth: (options.scriptDepth ?? 0) + 1,
          ...(options.session ? { session: options.session } : {}),
          ...(options.requestId !== undefined ? { requestId: options.requestId } : {}),
        });
      },
      listTools,
      search: (args) => this.#meta.search(caller, args),
      describe: (path) => this.#meta.describe(caller, path),
      suggest: (path) => suggestNames(path, listTools()),
    };
  }
}
