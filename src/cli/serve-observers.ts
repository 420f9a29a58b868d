/**
 * What a serving gateway's events feed: metrics, the recent calls and script runs, per-tool
 * figures, the audit log and the event streams' report. Built in stdio mode too (they stay
 * empty there): cheap, and metrics read one source.
 */
import type { GatewayConfig } from "../config/mod.ts";
import type { Gateway, MetaTools } from "../gateway/mod.ts";
import { AuditLog, CallJournal, Metrics, ScriptJournal, ToolStats } from "../ops/mod.ts";
import { createLogger, type Logger } from "../shared/log.ts";
import type { StreamReport } from "../shared/stream-guard.ts";
import type { Scripting } from "../tools/mod.ts";

/** The observers {@link observeGateway} made, for the operator routes and the doors. */
export interface Observers {
  readonly journal: CallJournal;
  readonly scriptJournal: ScriptJournal;
  readonly toolStats: ToolStats;
  readonly metrics: Metrics;
  readonly audit: AuditLog | null;
  /** What the doors' event streams report to (their guards' actions and what they hold). */
  readonly streams: StreamReport;
}

/**
 * Subscribes the observers to a booted gateway. `sessions` counts the open sessions by
 * transport; it is read only when metrics are.
 */
export function observeGateway(
  { gateway, scripting, meta }: { gateway: Gateway; scripting: Scripting | null; meta: MetaTools },
  config: GatewayConfig,
  sessions: () => Record<string, number>,
  log: Logger,
): Observers {
  const journal = new CallJournal(createLogger("calls"));
  // Event streams report what their guards do and hold; metrics count it, closures are logged.
  const streams: StreamReport = {
    ledger: { queued: 0 },
    observe: (event) => {
      metrics.observeStream(event);
      if (event.kind === "closed") {
        log.info("event stream closed: its client reads too slowly", {
          stream: event.stream,
          bytes: event.bytes,
        });
      }
    },
  };
  const metrics = new Metrics({
    gateway,
    sessions,
    streamQueued: () => streams.ledger.queued,
    semantic: () => meta.semanticStats(),
  });
  const toolStats = new ToolStats();
  gateway.calls.observeCalls((call) => {
    metrics.observe(call);
    toolStats.record(call);
  });
  // Recent calls list prompt gets and resource reads too.
  gateway.calls.observeOperations((call) => journal.record(call));
  gateway.filters.observe((event) => metrics.observeFilter(event));
  // The audit settings are read at start: a change to gateway.audit applies on restart.
  const audit = config.gateway.audit
    ? new AuditLog(config.gateway.audit, gateway, createLogger("audit"))
    : null;
  audit?.observe(gateway);
  const scriptJournal = new ScriptJournal();
  scripting?.runs.observe((run) => {
    scriptJournal.record(run);
    metrics.observeScript(run);
  });
  return { journal, scriptJournal, toolStats, metrics, audit, streams };
}
