/** Shared by the code-mode tests: calling `execute` and reading its structured result. */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { nodeServer, ROOT, textOf } from "../../_helpers/gateway.ts";

/** One trace entry as `structuredContent.calls` carries it. */
export interface Entry {
  operation: string;
  path?: string;
  query?: string;
  ok: boolean;
  error?: string;
  duration_ms: number;
  incomplete?: boolean;
}

/** What an `execute` call answered. */
export interface Executed {
  isError: boolean;
  text: string;
  content: Array<{ type: string; text?: string; data?: string; mimeType?: string }>;
  structured: {
    result?: unknown;
    emitted: unknown[];
    output: string;
    calls: Entry[];
    stats: {
      elapsed_ms: number;
      bytes_transferred: number;
      operations: number;
      timeout_ms: number;
    };
    error?: { message: string; line?: number; limit?: string };
  };
}

/** Calls `execute` with `code` (and `timeout_ms` when given). */
export async function execute(
  client: Client,
  code: string,
  timeoutMs?: number,
): Promise<Executed> {
  const args: Record<string, unknown> = { code };
  if (timeoutMs !== undefined) args.timeout_ms = timeoutMs;
  const r = await client.callTool({ name: "execute", arguments: args }, undefined, {
    timeout: 120_000,
  });
  return {
    isError: r.isError === true,
    text: textOf(r),
    content: r.content as Executed["content"],
    structured: r.structuredContent as Executed["structured"],
  };
}

/** The result of a successful run; fails the test with the script's error otherwise. */
export async function resultOf(client: Client, code: string): Promise<unknown> {
  const r = await execute(client, code);
  if (r.isError) throw new Error(`script failed: ${r.text}`);
  return r.structured.result;
}

/** The gateway the code-mode suites share: a healthy, a crashing, a hanging and a slow server. */
export const EXECUTE_YAML = `
servers:
  echo: ${nodeServer("echo.mjs")}
  crashy: ${nodeServer("echo.mjs", "tools: { allow: [crash] }")}
  hang: ${nodeServer("hang.mjs")}
  late: ${nodeServer("hang.mjs", "timeout: 1s, tools: { allow: [hang] }")}
scripting:
  execute: true
  vfs: { /pics: ${JSON.stringify(`${ROOT}/test/fixtures/images`)} }
`;
