/**
 * The worker process: the gateway re-spawned with `__lua-worker`. It reads runs and replies as
 * JSON lines on stdin, writes requests, output and results as JSON lines on stdout, and nothing
 * else: console output is sent to stderr so a stray log line cannot corrupt the channel. One run
 * at a time, on a warm engine: reused after a clean run that left every shared table as it found
 * it (warm-engine.ts), otherwise closed and replaced by a new one, made after the run's answer
 * was sent.
 */
import { messageOf } from "../../shared/errors.ts";
import { WarmEngine } from "./warm-engine.ts";
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
  let nextEngine: Promise<WarmEngine> = WarmEngine.create();
  let current: RunContext | undefined;

  const start = async (ctx: RunContext) => {
    current = ctx;
    let warm: WarmEngine | undefined;
    let ok = false;
    try {
      warm = await nextEngine;
      warm.attach(ctx);
      const done = await runScript(warm, ctx);
      ok = done.ok;
      send({ ...done, engineRun: warm.runs });
    } catch (err) {
      send({
        t: "done",
        ok: false,
        message: `internal: ${messageOf(err)}`,
        toolCalls: 0,
        hostCalls: 0,
      });
    } finally {
      // Decided after the answer left, so the check and any replacement are off the call path.
      const discard = warm ? warm.detach(ok) : "failed";
      if (discard !== null) {
        warm?.close();
        nextEngine = WarmEngine.create();
      }
      current = undefined;
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
