/**
 * Entry point: hand the command line to `cli/`.
 */
const { runCli } = await import("./cli/mod.ts");
const code = await runCli(process.argv.slice(2));
// Open handles (stdin, timers of stopped children) must not keep a finished command alive.
process.exit(code);
export {};
