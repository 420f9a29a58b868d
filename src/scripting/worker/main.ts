/**
 * The worker process: the gateway re-spawned with `__lua-worker`. It reads runs and replies as
 * JSON lines on stdin, writes requests, output and results as JSON lines on stdout, and nothing
 * else: console output is sent to stderr so a stray log line cannot corrupt the channel. One run
 * at a time; a fresh engine per run, made ahead while the worker waits.
 */
import type { LuaEngine } from "wasmoon";
import { messageOf } from "../../shared/errors.ts";
import { createSandboxedEngine } from "./engine.ts";
import { frame, type FromWorker, LineSplitter, type ToWorker } from "../protocol.ts";
import { RunContext } from "./run-context.ts";
import { runScript } from "./run-script.ts";

function quietStdout(): void {
  const toStderr = (...args: unknown[]) => console.error(...args);
  console.log = toStderr;
  console.info = toStderr;
  console.debug = toStderr;
  console.warn = toStderr;
}

/**
 * Serves runs on stdin/stdout until stdin closes (the parent exited or closed the worker), then
 * exits the process.
 */
export async function runWorkerProcess(): Promise<void> {
  quietStdout();
  const send = (m: FromWorker) => {
    process.stdout.write(frame(m));
  };
  let nextEngine: Promise<LuaEngine> = createSandboxedEngine();
  let current: RunContext | undefined;

  const start = async (ctx: RunContext) => {
    current = ctx;
    let engine: LuaEngine | undefined;
    try {
      engine = await nextEngine;
      send(await runScript(engine, ctx));
    } catch (err) {
      send({
        t: "done",
        ok: false,
        message: `internal: ${messageOf(err)}`,
        toolCalls: 0,
        hostCalls: 0,
      });
    } finally {
      current = undefined;
      try {
        engine?.global.close();
      } catch { /* the engine is dropped either way */ }
      nextEngine = createSandboxedEngine();
    }
  };

  const splitter = new LineSplitter();
  const handle = (line: string) => {
    let m: ToWorker;
    try {
      m = JSON.parse(line) as ToWorker;
    } catch {
      process.stderr.write(`lua worker: unreadable message ignored\n`);
      return;
    }
    if (m.t === "run") {
      if (current) {
        send({
          t: "done",
          ok: false,
          message: "internal: worker is busy",
          toolCalls: 0,
          hostCalls: 0,
        });
        return;
      }
      void start(new RunContext(m, send));
    } else if (m.t === "reply") {
      current?.onReply(m);
    }
  };

  await nextEngine;
  send({ t: "ready" });
  await new Promise<void>((resolve) => {
    process.stdin.on("data", (chunk: Uint8Array) => {
      for (const line of splitter.push(chunk)) handle(line);
    });
    process.stdin.on("end", () => resolve());
    process.stdin.on("close", () => resolve());
  });
  process.exit(0);
}
