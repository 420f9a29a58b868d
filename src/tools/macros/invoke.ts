/**
 * One macro call: check and complete the arguments, run the macro in a worker, and map what
 * `run` returned to a tool result (string → text, table → JSON text with pictures, nil → empty
 * text, a raised error → an `isError` result with the message and the Lua line).
 */
import { composeResult } from "../../media/mod.ts";
import { GatewayError, messageOf } from "../../shared/errors.ts";
import type { ScriptHost, ScriptOutcome, ToolBridge, ToolResult } from "../../scripting/mod.ts";
import { MACRO_MAIN, MACRO_PRELUDE } from "./lua.ts";
import { checkArgs } from "./params.ts";
import type { MacroDef } from "./registry.ts";

/** Options of {@link invokeMacro}. */
export interface InvokeOptions {
  bridge: ToolBridge;
  signal?: AbortSignal;
  /** Pictures one result may carry. */
  maxPictures: number;
  /** Script runs this one is nested in (a macro called from `execute`: 1). */
  depth?: number;
  /** The caller's token, whose share of the workers the run counts against. */
  owner?: string | null;
  /** Told how a run that started ended (`tooManyPictures`: its result was refused for them). */
  onFinished?: (outcome: ScriptOutcome, tooManyPictures: boolean) => void;
}

/** Runs a macro; failures of the macro itself are `isError` results, never throws for them. */
export async function invokeMacro(
  host: ScriptHost,
  def: MacroDef,
  rawArgs: Record<string, unknown>,
  options: InvokeOptions,
): Promise<ToolResult> {
  let args: Record<string, unknown>;
  try {
    args = checkArgs(def.name, def.params, rawArgs);
  } catch (err) {
    return errorResult(messageOf(err));
  }
  const run = {
    bridge: options.bridge,
    ...(options.signal ? { signal: options.signal } : {}),
    depth: options.depth ?? 0,
    owner: options.owner ?? null,
  };
  let outcome: ScriptOutcome;
  if (def.source.kind === "file") {
    outcome = await host.run(MACRO_MAIN, {
      ...run,
      prelude: MACRO_PRELUDE,
      globals: {
        MACRO_SOURCE: def.source.text,
        MACRO_FILE: def.source.file,
        MACRO_LIBS: def.source.libs,
        MACRO_TOOL: def.name,
        MACRO_ARGS: args,
      },
      chunkName: "macro",
    });
  } else {
    outcome = await host.run(def.source.text, {
      ...run,
      globals: { args },
      chunkName: def.source.chunkName,
    });
  }
  if (!outcome.ok) {
    options.onFinished?.(outcome, false);
    const at = outcome.line !== undefined && outcome.chunk && outcome.chunk !== "macro"
      ? ` (at ${outcome.chunk}:${outcome.line})`
      : "";
    return errorResult(`${def.name}: ${outcome.message}${at}`);
  }
  try {
    const result = composeResult(outcome.value, {
      maxPictures: options.maxPictures,
    }) as unknown as ToolResult;
    options.onFinished?.(outcome, false);
    return result;
  } catch (err) {
    if (!(err instanceof GatewayError)) throw err;
    options.onFinished?.(outcome, true);
    return errorResult(`${def.name}: ${err.message}`);
  }
}

function errorResult(text: string): ToolResult {
  return { content: [{ type: "text", text }], isError: true };
}
