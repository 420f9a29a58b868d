/**
 * Lua overhead micro-benchmark (one run, bounded): engine start, worker start, an empty script's
 * round trip through the pool, a macro-shaped script's round trip (one `mcp.call` awaited, over
 * an in-process echo bridge that costs next to nothing: what the scripting layer adds to the call
 * a macro wraps, minus the gateway's tool-call plumbing), and the `mcp.call` → `task.await` round
 * trip over the same bridge. Prints one JSON object; figures are medians in milliseconds.
 *
 *   bun bench/lua.ts [iterations]      deno run -A bench/lua.ts [iterations]
 */
import { ScriptHost, type ToolBridge } from "../src/scripting/mod.ts";
import { createSandboxedEngine } from "../src/scripting/worker/engine.ts";
import { standaloneCommand } from "../src/scripting/standalone.ts";

const N = Math.max(10, Math.min(5000, Number(process.argv[2] ?? 200) || 200));

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return Number((s[Math.floor(s.length / 2)] ?? NaN).toFixed(3));
}

/** Fresh sandboxed engine in this process (first one includes compiling the wasm). */
async function engineStart(): Promise<{ firstMs: number; medianMs: number }> {
  let t = performance.now();
  (await createSandboxedEngine()).global.close();
  const firstMs = performance.now() - t;
  const times: number[] = [];
  for (let i = 0; i < Math.min(N, 100); i++) {
    t = performance.now();
    const engine = await createSandboxedEngine();
    times.push(performance.now() - t);
    engine.global.close();
  }
  return { firstMs: Number(firstMs.toFixed(3)), medianMs: median(times) };
}

async function main(): Promise<void> {
  const engine = await engineStart();

  let t = performance.now();
  const host = new ScriptHost({
    vfs: { "/source": process.cwd() },
    poolSize: 1,
    command: standaloneCommand(),
  });
  await host.warmup();
  const workerReadyMs = Number((performance.now() - t).toFixed(1));

  try {
    const empty: number[] = [];
    for (let i = 0; i < Math.min(N, 200); i++) {
      t = performance.now();
      const outcome = await host.run("return 1");
      empty.push(performance.now() - t);
      if (!outcome.ok) throw new Error(outcome.message);
    }

    const echo: ToolBridge = {
      listTools: () => ["echo"],
      callTool: (_name, args) =>
        Promise.resolve({ content: [{ type: "text", text: String(args.text) }] }),
    };
    const macro: number[] = [];
    for (let i = 0; i < Math.min(N, 200); i++) {
      t = performance.now();
      const outcome = await host.run(
        `return task.await(mcp.call('echo', { text = args.text })).content`,
        { bridge: echo, globals: { args: { text: "x" } } },
      );
      macro.push(performance.now() - t);
      if (!outcome.ok) throw new Error(outcome.message);
    }

    // Each arrival at the bridge follows one full round trip: reply → Lua wakes → next call.
    const arrivals: number[] = [];
    const bridge: ToolBridge = {
      listTools: () => ["echo"],
      callTool: (_name, args) => {
        arrivals.push(performance.now());
        return Promise.resolve({ content: [{ type: "text", text: JSON.stringify(args) }] });
      },
    };
    const outcome = await host.run(
      `for i = 1, ${N} do task.await(mcp.call('echo', { i = i })) end return ${N}`,
      { bridge, limits: { timeoutMs: 120_000 } },
    );
    if (!outcome.ok) throw new Error(outcome.message);
    const gaps = arrivals.slice(1).map((a, i) => a - (arrivals[i] as number));

    process.stdout.write(
      JSON.stringify(
        {
          runtime: typeof (globalThis as { Bun?: unknown }).Bun !== "undefined"
            ? "bun"
            : "deno/node",
          iterations: N,
          engineStartFirstMs: engine.firstMs,
          engineStartMedianMs: engine.medianMs,
          workerReadyMs,
          emptyScriptRoundTripMedianMs: median(empty),
          macroScriptRoundTripMedianMs: median(macro),
          mcpCallAwaitRoundTripMedianMs: median(gaps),
          mcpCallsPerSecond: Math.round(N / (outcome.stats.elapsedMs / 1000)),
        },
        null,
        2,
      ) + "\n",
    );
  } finally {
    await host.close();
  }
}

await main();
process.exit(0);
