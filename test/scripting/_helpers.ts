/** Shared fixtures of the scripting tests: a host whose workers are the standalone entry, a fake bridge. */
import {
  ScriptHost,
  type ScriptHostOptions,
  type ScriptOutcome,
  type ToolBridge,
  type ToolResult,
} from "../../src/scripting/mod.ts";
import { standaloneCommand } from "../../src/scripting/standalone.ts";
import { fileURLToPath } from "node:url";

/** test/fixtures, mounted as /source in every test host. */
export const FIXTURES = fileURLToPath(new URL("../fixtures/", import.meta.url));

/** A host on the standalone entry (src/main.ts may not dispatch `__lua-worker` yet). */
export function makeHost(opts: Partial<ScriptHostOptions> = {}): ScriptHost {
  return new ScriptHost({ vfs: { "/source": FIXTURES }, command: standaloneCommand(), ...opts });
}

/** One recorded tool call. */
export interface CallRecord {
  name: string;
  args: Record<string, unknown>;
  signal: AbortSignal;
}

/** An in-process bridge; handlers default to echoing their arguments as text. */
export function fakeBridge(
  handlers: Record<
    string,
    (args: Record<string, unknown>, signal: AbortSignal) => Promise<ToolResult> | ToolResult
  > = {},
): ToolBridge & { calls: CallRecord[] } {
  const calls: CallRecord[] = [];
  return {
    calls,
    listTools: () => Object.keys(handlers).length > 0 ? Object.keys(handlers) : ["echo"],
    callTool: async (name, args, ctx) => {
      const signal = ctx.signal;
      calls.push({ name, args, signal });
      const handler = handlers[name] ??
        (name === "echo"
          ? (a: Record<string, unknown>) => ({
            content: [{ type: "text", text: JSON.stringify(a) }],
          })
          : undefined);
      if (!handler) {
        const { GatewayError } = await import("../../src/shared/errors.ts");
        throw new GatewayError("TOOL_NOT_FOUND", `unknown tool ${name}`);
      }
      return await handler(args, signal);
    },
  };
}

/** Resolves after ms milliseconds. */
export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** Asserts a successful outcome and returns its value (with the failure message on mismatch). */
export function valueOf(outcome: ScriptOutcome): unknown {
  if (!outcome.ok) throw new Error(`script failed: ${outcome.message} (line ${outcome.line})`);
  return outcome.value;
}

/** True while a process with this pid exists. */
export function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
