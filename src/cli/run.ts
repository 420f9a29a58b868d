/**
 * `mcp-gateway run SCRIPT.lua`: run one Lua script against the configured upstreams (macros
 * included; hidden tools reachable — the operator runs it), with the same `mcp`, `task` and
 * `tools` API as `execute`. The composed result goes to stdout,
 * what the script printed to stderr, and pictures into files next to the script.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { basename, dirname, extname, join } from "node:path";
import { enterCall, LOCAL_CALLER } from "../gateway/mod.ts";
import { composeResult } from "../media/mod.ts";
import { CallTrace, EXECUTE_PRELUDE, runCalls } from "../tools/execute/mod.ts";
import { GatewayError } from "../shared/errors.ts";
import { bootGateway, readConfig } from "./boot.ts";

const EXT: Record<string, string> = {
  "image/png": "png",
  "image/jpeg": "jpg",
  "image/gif": "gif",
  "image/webp": "webp",
};

/** Runs the script; exit 0 on success, 1 when it raised or hit a limit. */
export async function runCommand(configFile: string, script: string): Promise<number> {
  let code: string;
  try {
    code = readFileSync(script, "utf8");
  } catch (err) {
    throw new GatewayError("USAGE", `run: cannot read ${script}: ${(err as Error).message}`);
  }
  const config = await readConfig(configFile);
  // The gateway's own script host (the one macros use) runs the script: no second pool.
  const { gateway, scripting, meta } = await bootGateway(config, true, { scripting: true });
  const host = scripting!.host;
  const { limits } = config.scripting;
  try {
    // The `tools` namespace of `execute` (search, describe, call, tools["x"]), as the operator.
    const { bridge, hostFunctions } = runCalls({
      gateway,
      parent: enterCall(LOCAL_CALLER),
      internal: true,
      search: (args) => meta.searchFused(LOCAL_CALLER, args),
      describe: (path) => meta.describe(LOCAL_CALLER, path),
    }, new CallTrace());
    const outcome = await host.run(code, {
      bridge,
      hostFunctions,
      prelude: EXECUTE_PRELUDE,
      chunkName: basename(script),
    });
    if (outcome.output) process.stderr.write(outcome.output);
    for (const e of outcome.emitted) process.stdout.write(`emit: ${JSON.stringify(e)}\n`);
    if (!outcome.ok) {
      const at = outcome.line !== undefined
        ? ` (at ${outcome.chunk ?? basename(script)}:${outcome.line})`
        : "";
      process.stderr.write(`mcp-gateway: script failed: ${outcome.message}${at}\n`);
      return 1;
    }
    const { content } = composeResult(outcome.value, { maxPictures: limits.pictures });
    const stem = join(dirname(script), basename(script, extname(script)));
    let n = 0;
    for (const block of content) {
      if (block.type === "text") {
        process.stdout.write(block.text + (block.text.endsWith("\n") ? "" : "\n"));
      } else {
        const file = `${stem}.picture-${++n}.${EXT[block.mimeType] ?? "bin"}`;
        writeFileSync(file, Buffer.from(block.data, "base64"));
        process.stderr.write(`picture ${n}: ${file}\n`);
      }
    }
    return 0;
  } finally {
    await gateway.stop(); // closes the script host too
  }
}
