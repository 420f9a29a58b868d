/**
 * A standalone entry for this room, used until and beside `src/main.ts`: with `__lua-worker` it
 * is a worker; otherwise it runs the Lua given as argument (or a built-in probe) on a
 * ScriptHost whose workers are this same file (or this same compiled binary), and prints the
 * outcome as JSON. Tests spawn workers through it, and `bun build --compile` of it checks that
 * the wasm is embedded.
 */
import { fileURLToPath } from "node:url";
import { isCompiledBinary, runtimeName } from "../runtime/mod.ts";
import { ScriptHost } from "./host/host.ts";
import { runWorkerProcess } from "./worker/main.ts";
import { WORKER_SUBCOMMAND } from "./host/worker-process.ts";

/** The argv that starts this entry again, on whichever runtime runs it. */
export function standaloneCommand(): string[] {
  if (isCompiledBinary()) return [process.execPath];
  const entry = fileURLToPath(import.meta.url);
  return runtimeName() === "deno"
    ? [process.execPath, "run", "-A", entry]
    : [process.execPath, entry];
}

const PROBE = `
local s = 0
for i = 1, 1000 do s = s + i end
return { sum = s, version = _VERSION, utf8 = utf8.char(72, 228) }
`;

async function main(): Promise<void> {
  if (process.argv.includes(WORKER_SUBCOMMAND)) {
    await runWorkerProcess();
    return;
  }
  const code = process.argv[2] ?? PROBE;
  const host = new ScriptHost({
    vfs: { "/source": process.cwd() },
    poolSize: 1,
    command: standaloneCommand(),
  });
  try {
    const outcome = await host.run(code);
    process.stdout.write(JSON.stringify(outcome) + "\n");
    process.exitCode = outcome.ok ? 0 : 1;
  } finally {
    await host.close();
  }
}

// Bun and Deno set `import.meta.main` on the entry module; importing this file runs nothing.
if ((import.meta as ImportMeta & { main?: boolean }).main || isCompiledBinary()) await main();
