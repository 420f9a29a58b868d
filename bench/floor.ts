/**
 * The floor: the least any MCP gateway on this runtime must spend per proxied call. `bun
 * bench/floor.ts --listen 127.0.0.1:PORT` serves `/mcp` with `Bun.serve` in front of one stdio
 * child (the bench-echo fixture, as the gateway rows use) and does nothing but forward: parse
 * the JSON-RPC message, rewrite its id to one of its own, write it to the child, and send the
 * child's answer back under the client's id. Its HTTP half (`./floor-http.ts`) answers
 * `initialize` itself (with an `Mcp-Session-Id` for a 2025-11-25 session, which later requests
 * must present) and `server/discover` for a 2026-07-28 client, and accepts notifications with
 * 202; it stamps `resultType` on 2026-07-28 results (the one field that revision's clients
 * require). No auth, no catalog, no validation: whatever the gateway spends beyond this is its
 * own.
 *
 * With `--resident-core` it also boots the gateway's core (`./bench-core.ts`) and keeps it idle
 * beside its own forwarding: its calls never touch it, so what it adds is what a resident heap
 * of the gateway's size costs the same calls (the collector's and the allocator's share).
 *
 * It prints `{"port":N}` on stdout once listening. It is bench code, so it may use `Bun.*`.
 */
import { join } from "node:path";
import { type FloorMessage, jsonAnswer, serveFloor } from "./floor-http.ts";

// Not imported from ./procs.ts: that module loads the SDK client, which the floor never needs
// and whose memory would be counted as the floor's.
const BENCH_ECHO = join(import.meta.dirname!, "../test/fixtures/servers/bench-echo.mjs");

/** The slice of Bun's API used here (the project compiles without Bun's type package). */
declare const Bun: {
  spawn(argv: string[], options: Record<string, string>): {
    stdin: { write(text: string): void; flush(): void };
    stdout: AsyncIterable<Uint8Array>;
    kill(): void;
  };
};

const pending = new Map<number, (answer: Record<string, unknown>) => void>();
let nextId = 0;

const child = Bun.spawn(["node", BENCH_ECHO], { stdin: "pipe", stdout: "pipe", stderr: "ignore" });
// Imported only when asked for: the plain floor's memory must hold nothing of the gateway.
const resident = process.argv.includes("--resident-core")
  ? await (await import("./bench-core.ts")).bootBenchCore()
  : undefined;
// Stopped by pid (SIGTERM) at the end of a run: take the child (and the resident core) along.
process.on("SIGTERM", () => {
  child.kill();
  void (resident?.stop() ?? Promise.resolve()).finally(() => process.exit(0));
});

/** Reads the child's newline-delimited answers; a large one arrives in many chunks. */
async function readAnswers(): Promise<void> {
  const decoder = new TextDecoder();
  let parts: string[] = [];
  for await (const chunk of child.stdout) {
    let text = decoder.decode(chunk, { stream: true });
    for (let nl = text.indexOf("\n"); nl >= 0; nl = text.indexOf("\n")) {
      parts.push(text.slice(0, nl));
      text = text.slice(nl + 1);
      const answer = JSON.parse(parts.join("")) as Record<string, unknown>;
      parts = [];
      const resolve = pending.get(answer.id as number);
      pending.delete(answer.id as number);
      resolve?.(answer);
    }
    if (text) parts.push(text);
  }
}
void readAnswers();

/** Sends one request to the child under a fresh id; resolves with its answer. */
function forward(message: FloorMessage): Promise<Record<string, unknown>> {
  const id = ++nextId;
  const answer = new Promise<Record<string, unknown>>((r) => pending.set(id, r));
  child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", ...message, id })}\n`);
  child.stdin.flush();
  return answer;
}

await forward({
  method: "initialize",
  params: {
    protocolVersion: "2025-11-25",
    capabilities: {},
    clientInfo: { name: "floor", version: "1.0.0" },
  },
});
child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`);

serveFloor("floor", async (message, sid) => {
  const answer = await forward(message);
  answer.id = message.id;
  if (sid === null && answer.result) {
    (answer.result as Record<string, unknown>).resultType ??= "complete";
  }
  return jsonAnswer(answer);
});
