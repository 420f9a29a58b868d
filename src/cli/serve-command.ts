/**
 * `mcp-gateway [--listen] [--stdio]`: serve the aggregated endpoint until SIGTERM/SIGINT (drain,
 * then stop); SIGHUP or an edit of the config file reloads it.
 */
import { messageOf } from "../shared/errors.ts";
import { createLogger } from "../shared/log.ts";
import { onSignals } from "../ops/mod.ts";
import { readConfig } from "./boot.ts";
import { type RunningGateway, startGateway, type StartOptions } from "./serve.ts";

const log = createLogger("serve");

/**
 * The `serve` command: runs until a signal; returns the exit code. Signals are handled from the
 * first moment: a stop or reload asked for during start-up runs once the start completes.
 */
export async function serveCommand(configFile: string, options: StartOptions): Promise<number> {
  const config = await readConfig(configFile);
  let running: RunningGateway | undefined;
  let pending: { stop?: string; reload?: boolean } = {};
  let resolve!: (code: number) => void;
  const done = new Promise<number>((r) => (resolve = r));
  const stop = (signal: string) => {
    if (!running) {
      pending.stop ??= signal;
      return;
    }
    log.info("shutting down", { signal });
    running.stop().then(() => {
      log.info("stopped");
      resolve(0);
    }, (err) => {
      log.error("shutdown failed", { error: messageOf(err) });
      resolve(1);
    });
  };
  const off = onSignals({
    stop,
    force: (signal) => {
      log.warn("second signal: not waiting for in-flight calls", { signal });
      running?.forceStop();
    },
    reload: () => {
      if (running) void running.reload("SIGHUP");
      else pending.reload = true;
    },
  });
  // A `--stdio` client gone before it was served (an era probe's throwaway process) does not
  // wait for every upstream's start: nothing was served, so nothing is drained; the process
  // ends, and the stdio upstreams started so far see their pipes close.
  const gone = options.stdio
    ? new Promise<null>((r) => process.stdin.once("end", () => r(null)))
    : null;
  try {
    const started = startGateway(config, options);
    const first = gone ? await Promise.race([started, gone]) : await started;
    if (first === null) {
      started.catch(() => {}); // a start failing now has nobody to tell
      off();
      log.info("stdin closed before serving; not waiting for the start");
      return 0;
    }
    running = first;
  } catch (err) {
    off();
    throw err;
  }
  const asked = pending;
  pending = {};
  if (asked.stop) stop(asked.stop);
  else if (asked.reload) void running.reload("SIGHUP");
  if (options.stdio) process.stdin.on("end", () => stop("stdin closed"));
  const code = await done;
  off();
  return code;
}
