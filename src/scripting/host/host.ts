/**
 * ScriptHost: a warm pool of worker processes running Lua scripts off the gateway's event loop.
 * Safe to call from many sessions at once: idle workers are reused, extra runs spawn workers up
 * to the slots {@link WorkerSlots} grants (per nesting depth, per token), beyond that they queue.
 * A run that outlives its time limit (plus a grace for the in-engine stop) has its worker
 * SIGKILLed and replaced.
 */
import { selfCommand } from "../../runtime/mod.ts";
import { GatewayError } from "../../shared/errors.ts";
import { createLogger } from "../../shared/log.ts";
import { TransferBudget } from "./budget.ts";
import { CallBroker } from "./call-broker.ts";
import { type DoneMessage, type FromWorker, timeLimitMessage } from "../protocol.ts";
import {
  DEFAULT_LIMITS,
  type LimitName,
  type RunOptions,
  ScriptBuffer,
  type ScriptLimits,
  type ScriptOutcome,
} from "./types.ts";
import { WorkerProcess } from "./worker-process.ts";
import { WorkerSlots } from "./worker-slots.ts";

const log = createLogger("scripting");

/** Options of a {@link ScriptHost}. */
export interface ScriptHostOptions {
  limits?: Partial<ScriptLimits>;
  /** VFS mounts: mount point → absolute host directory (`/source` = the config folder). */
  vfs: Record<string, string>;
  /** Warm workers kept ready (default 2). */
  poolSize?: number;
  /** Runs at once per nesting depth; further runs queue (default 2 × poolSize). */
  maxWorkers?: number;
  /** Runs one token may have at once per depth (default half of maxWorkers, at least 1). */
  workersPerToken?: number;
  /** Argv that starts this program (default `selfCommand()`); `__lua-worker` is appended. */
  command?: string[];
  /**
   * Spawn workers on the first run instead of at construction, so a gateway whose scripts may
   * never run (only `execute` enabled, no macros) keeps no idle processes.
   */
  lazy?: boolean;
}

/** Time the worker gets to stop a script by itself before it is killed. */
function graceMs(timeoutMs: number): number {
  return Math.min(1000, Math.max(150, Math.round(timeoutMs / 10)));
}

/** Runs Lua scripts in a pool of killable worker processes. */
export class ScriptHost {
  readonly limits: ScriptLimits;
  #vfs: Record<string, string>;
  #poolSize: number;
  #maxWorkers: number;
  #command: string[];
  #workers = new Set<WorkerProcess>();
  #idle: WorkerProcess[] = [];
  #slots: WorkerSlots;
  #closed = false;
  #runs = 0;

  constructor(opts: ScriptHostOptions) {
    this.limits = { ...DEFAULT_LIMITS, ...opts.limits };
    this.#vfs = { ...opts.vfs };
    this.#poolSize = Math.max(1, opts.poolSize ?? 2);
    this.#maxWorkers = Math.max(this.#poolSize, opts.maxWorkers ?? this.#poolSize * 2);
    this.#command = opts.command ?? selfCommand();
    this.#slots = new WorkerSlots(
      this.#maxWorkers,
      opts.workersPerToken ?? Math.ceil(this.#maxWorkers / 2),
    );
    if (!opts.lazy) { for (let i = 0; i < this.#poolSize; i++) this.#idle.push(this.#spawn()); }
  }

  /** Process ids of the live workers (tests check that none leak). */
  workerPids(): number[] {
    return [...this.#workers].filter((w) => w.alive && w.pid !== undefined).map((w) =>
      w.pid as number
    );
  }

  /** Resolves once every warm worker is ready (optional; runs wait for their worker anyway). */
  async warmup(): Promise<void> {
    await Promise.all([...this.#workers].map((w) => w.ready.catch(() => {})));
  }

  #spawn(): WorkerProcess {
    const worker = new WorkerProcess(this.#command);
    this.#workers.add(worker);
    worker.exited.then(() => this.#forget(worker));
    return worker;
  }

  #forget(worker: WorkerProcess): void {
    this.#workers.delete(worker);
    this.#idle = this.#idle.filter((w) => w !== worker);
    // A worker that never got ready is not replaced eagerly: a broken command would respawn
    // forever. The next run spawns one and reports the failure.
    if (this.#closed || !worker.everReady) return;
    if (this.#workers.size < this.#poolSize) this.#idle.push(this.#spawn()); // keep it warm
  }

  /** A process for a run that holds a slot: an idle one, or a new one. */
  #process(): WorkerProcess {
    return this.#idle.pop() ?? this.#spawn();
  }

  /**
   * Returns a process to the idle list. Extra processes are trimmed a tick later, after the runs
   * that the freed slot let start have taken theirs (no kill-then-spawn).
   */
  #park(worker: WorkerProcess): void {
    if (!worker.alive || this.#closed) return;
    this.#idle.push(worker);
    if (this.#workers.size > this.#poolSize) setTimeout(() => this.#trim(), 0);
  }

  #trim(): void {
    while (this.#workers.size > this.#poolSize && this.#idle.length > 0) {
      const worker = this.#idle.shift()!;
      this.#workers.delete(worker);
      void worker.kill();
    }
  }

  /** Runs one script; resolves with its outcome (script errors and limits are outcomes, not throws). */
  async run(code: string, opts: RunOptions = {}): Promise<ScriptOutcome> {
    if (this.#closed) throw new GatewayError("INTERNAL", "the script host is closed");
    const depth = opts.depth ?? 0;
    const owner = opts.owner ?? null;
    await this.#slots.acquire(depth, owner);
    let worker: WorkerProcess | undefined;
    try {
      if (this.#closed) throw new GatewayError("INTERNAL", "the script host is closed");
      worker = this.#process();
      return await this.#execute(worker, code, opts);
    } finally {
      this.#slots.release(depth, owner);
      if (worker) this.#park(worker);
    }
  }

  async #execute(worker: WorkerProcess, code: string, opts: RunOptions): Promise<ScriptOutcome> {
    const limits: ScriptLimits = { ...this.limits, ...opts.limits };
    const output: string[] = [];
    const emitted: unknown[] = [];
    const started = Date.now();
    const stats = { elapsedMs: 0, toolCalls: 0, hostCalls: 0, bytesIn: 0 };
    const failure = (message: string, limit?: LimitName): ScriptOutcome => ({
      ok: false,
      message,
      limit,
      output: output.join(""),
      emitted,
      stats,
    });
    try {
      await worker.ready;
    } catch (err) {
      return failure(`script worker could not start: ${(err as Error).message}`, "crash");
    }
    const controller = new AbortController();
    const deadline = Date.now() + limits.timeoutMs;
    const budget = new TransferBudget(limits.transferBytes);
    const broker = new CallBroker({
      bridge: opts.bridge,
      hostFunctions: opts.hostFunctions,
      deadline,
      budget,
      signal: controller.signal,
    });
    const run = ++this.#runs;
    return await new Promise<ScriptOutcome>((resolve) => {
      let stopping: LimitName | undefined;
      let finished = false;
      const finish = (outcome: ScriptOutcome) => {
        finished = true;
        clearTimeout(killTimer);
        opts.signal?.removeEventListener("abort", onAbort);
        controller.abort(); // in-flight tool and host calls end with the script
        worker.onMessage = undefined;
        worker.onExit = undefined;
        stats.elapsedMs = Date.now() - started;
        stats.bytesIn = budget.used;
        resolve(outcome);
      };
      const stop = (why: LimitName) => {
        stopping = why;
        log.warn("killing script worker", { pid: worker.pid, why });
        void worker.kill();
      };
      const killTimer = setTimeout(
        () => stop("time"),
        limits.timeoutMs + graceMs(limits.timeoutMs),
      );
      const onAbort = () => stop("aborted");
      if (opts.signal?.aborted) return finish(failure("script run was aborted", "aborted"));
      opts.signal?.addEventListener("abort", onAbort);
      worker.onExit = (exit) => {
        if (stopping === "time") finish(failure(timeLimitMessage(limits.timeoutMs), "time"));
        else if (stopping === "aborted") finish(failure("script run was aborted", "aborted"));
        else {finish(
            failure(`script worker died (${exit.signal ?? `exit code ${exit.code}`})`, "crash"),
          );}
      };
      worker.onMessage = (m: FromWorker) => {
        if (m.t === "print") output.push(m.text);
        else if (m.t === "emit") emitted.push(JSON.parse(m.json));
        else if (m.t === "request") {
          // An answer that arrives after the run ended is dropped: the worker may be serving
          // the next run by then.
          void broker.answer(m).then((reply) => {
            if (!finished) worker.send(reply);
          });
        } else if (m.t === "done") finish(this.#outcome(m, output, emitted, stats));
      };
      worker.send({
        t: "run",
        run,
        code,
        chunk: opts.chunkName ?? "script",
        prelude: opts.prelude,
        exposeHost: opts.exposeHost ?? false,
        globals: opts.globals ?? {},
        limits,
        deadline,
        vfs: this.#vfs,
        hostNames: Object.keys(opts.hostFunctions ?? {}),
        bufferKey: ScriptBuffer.MARKER,
      });
    });
  }

  #outcome(
    m: DoneMessage,
    output: string[],
    emitted: unknown[],
    stats: ScriptOutcome["stats"],
  ): ScriptOutcome {
    stats.toolCalls = m.toolCalls;
    stats.hostCalls = m.hostCalls;
    if (m.engineRun !== undefined) stats.engineRun = m.engineRun;
    if (m.ok) {
      return { ok: true, value: JSON.parse(m.json), output: output.join(""), emitted, stats };
    }
    const { message, line, chunk, limit } = m;
    return { ok: false, message, line, chunk, limit, output: output.join(""), emitted, stats };
  }

  /** Kills every worker and fails queued runs; resolves when all processes are gone. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#slots.rejectAll(new GatewayError("INTERNAL", "the script host is closed"));
    this.#idle = [];
    await Promise.all([...this.#workers].map((w) => w.kill()));
  }
}
