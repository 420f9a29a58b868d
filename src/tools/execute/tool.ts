/**
 * The `execute` tool (code mode): one Lua script that searches, inspects and calls many tools.
 * Everything runs as the caller: search and describe see only what its token may find, and calls
 * go through the run's one bridge (`bridge.ts`) without reaching hidden tools.
 */
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { type ExecuteDeps } from "./bridge.ts";
import { EXECUTE_TOOL_NAME, executeToolDefinition } from "./description.ts";
import { runExecute } from "./run.ts";
import type { ScriptHost, ScriptLimits, ToolResult } from "../../scripting/mod.ts";
import type {
  CallContext,
  Gateway,
  LocalTool,
  LocalToolProvider,
  MetaTools,
} from "../../gateway/mod.ts";
import { type ScriptRuns, verdictOf } from "../runs.ts";
import { signalOf } from "../../shared/call-context.ts";

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
          script: "execute",
          // as never: a script's result: content optional
          call: (args, options) => this.call(args, options) as never,
        },
      };
    }
    return [this.#tool.local];
  }

  /** Runs one `execute` call as `options.caller`. */
  async call(args: Record<string, unknown>, options: CallContext): Promise<ToolResult> {
    const started = performance.now();
    const caller = options.caller;
    const signal = signalOf(options);
    const run = await runExecute(this.#host, args, this.#deps(options), {
      limits: this.#limits(),
      ...(signal ? { signal } : {}),
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

  /** What the run reaches of the gateway, as the caller of the call in `options`. */
  #deps(options: CallContext): ExecuteDeps {
    const caller = options.caller;
    return {
      gateway: this.#gateway,
      parent: options,
      search: (args) => this.#meta.searchFused(caller, args),
      describe: (path) => this.#meta.describe(caller, path),
    };
  }
}
