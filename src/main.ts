/**
 * Entry point. The hidden `__lua-worker` sub-command turns this process into a script worker:
 * the gateway re-spawns itself so a runaway script can be killed without touching the server.
 */
if (process.argv[2] === "__lua-worker") {
  // Scripts run at the runtime's normal JIT policy (the binary starts with a lazier one).
  (await import("./runtime/mod.ts")).setJitPolicy(1);
  // Imported apart from scripting/mod.ts so the gateway process itself never loads wasmoon.
  const { runWorkerProcess } = await import("./scripting/worker/main.ts");
  await runWorkerProcess();
} else {
  const { runCli } = await import("./cli/mod.ts");
  const { exitWhenFlushed } = await import("./runtime/mod.ts");
  const code = await runCli(process.argv.slice(2));
  // Open handles (stdin, timers of stopped children) must not keep a finished command alive,
  // and what it printed must reach a slow pipe whole before the process ends.
  await exitWhenFlushed(code);
}
export {};
