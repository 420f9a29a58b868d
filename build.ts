/**
 * Builds the single binary: `bun build.ts` writes `dist/mcp-gateway` with `bun build --compile`
 * (the Lua wasm is embedded through its `with { type: "file" }` import, and the script worker is
 * this same binary re-spawned with a hidden sub-command). `--target=bun-linux-arm64` and other
 * Bun targets pass through and write `dist/mcp-gateway-linux-arm64` (never `dist/mcp-gateway`,
 * which stays this machine's binary). A Deno binary (`dist/mcp-gateway-deno`) is built too when Deno's
 * base runtime is available (`DENORT_BIN`); otherwise that step is skipped with a message.
 *
 * `--bytecode` (ESM) stores JSC bytecode beside the bundled source, so a start skips parsing
 * ~3 MB of JavaScript: ~100 ms less CPU for the gateway and for every script worker it spawns
 * (docs/PERFORMANCE.md has the measurements), for ~7 MB more binary and ~1 MiB more RSS.
 * `--compile-jit-policy=16` starts the binary with 16× the JIT tier-up thresholds, so code that
 * runs only at start is not optimized (less CPU beside the starting upstreams, ~5 MiB less RSS);
 * the gateway restores the normal policy once it serves, a script worker as it starts
 * (src/runtime/jit.ts). `--splitting` puts each module reached only through `import()` in a
 * chunk of its own: ES imports are evaluated before their module, so in one bundle the Node
 * built-ins of every lazily loaded package (OpenTelemetry's `zlib`, `stream`, `util`; the
 * cluster's `os`, `async_hooks`) were loaded at start; split, they load with their chunk
 * (~3.5 MiB less idle RSS, docs/PERFORMANCE.md).
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { buildOutput } from "./scripts/build-output.ts";

const root = dirname(fileURLToPath(import.meta.url));
const bin = (name: string) => join(root, "node_modules/.bin", name);
const extra = process.argv.slice(2);
mkdirSync(join(root, "dist"), { recursive: true });

function run(cmd: string, args: string[], env: Record<string, string> = {}): number {
  const r = spawnSync(cmd, args, { cwd: root, stdio: "inherit", env: { ...process.env, ...env } });
  return r.status ?? 1;
}

const { out: outName, target } = buildOutput(extra);
const out = join(root, outName);
// With --splitting each chunk writes its own source map beside the binary, named by a content
// hash: clear the last build's, or every build leaves a few dozen more behind.
for (const f of readdirSync(dirname(out))) {
  if (/-[a-z0-9]{8}\.js\.map$/.test(f)) rmSync(join(dirname(out), f));
}
const started = Date.now();
const code = run(bin("bun"), [
  "build",
  "--compile",
  "--minify",
  "--sourcemap",
  "--bytecode",
  "--format=esm",
  "--compile-jit-policy=16",
  "--splitting",
  ...extra,
  "src/main.ts",
  "--outfile",
  out,
]);
if (code !== 0) {
  console.error("build: bun build --compile failed");
  process.exit(code);
}
const mb = (statSync(out).size / 1024 ** 2).toFixed(1);
console.log(`build: wrote ${outName} (${mb} MB) in ${Date.now() - started}ms`);

const denort = process.env.DENORT_BIN;
if (target) {
  console.log("build: skipped the Deno binary — it is built for this machine only");
} else if (denort && existsSync(denort)) {
  const denoOut = join(root, "dist/mcp-gateway-deno");
  const c = run(bin("deno"), ["compile", "-A", "--no-check", "--output", denoOut, "src/main.ts"], {
    DENORT_BIN: denort,
  });
  if (c !== 0) process.exit(c);
  console.log("build: wrote dist/mcp-gateway-deno");
} else {
  console.log(
    "build: skipped the Deno binary — deno compile needs Deno's base runtime (set DENORT_BIN to a denort binary)",
  );
}
