/**
 * @module Operations: metrics, the status page, config reload (SIGHUP and file watch), the
 * start-up/drain lifecycle and process signals.
 */
export { AuditLog } from "./audit/mod.ts";
export { type Actor, type ControlSources, OperatorControl } from "./control.ts";
export { type ServerOverride, ServerOverrides } from "./server-overrides.ts";
export { ToolStats } from "./tool-stats.ts";
export { CallJournal } from "./call-journal.ts";
export { type ConfigWatch, watchConfigFile } from "./config-watch.ts";
export { Lifecycle, type Phase } from "./lifecycle.ts";
export {
  MAX_TOOL_LABELS,
  Metrics,
  type MetricsSources,
  OTHER_TOOL_LABEL,
  UNKNOWN_TOOL_LABEL,
} from "./metrics.ts";
export { PROMETHEUS_CONTENT_TYPE } from "./prometheus.ts";
export { createReloader, type ReloaderOptions } from "./reload.ts";
export { onSignals, type SignalHandlers } from "./signals.ts";
export { renderLoginPage } from "./login-page.ts";
export {
  accountStatuses,
  downReasonOf,
  sessionStatuses,
  type StatusSnapshot,
  statusSnapshot,
  type StatusSources,
  upstreamStatuses,
} from "./status-data.ts";
export { type PageOptions, renderActionProblem, renderStatusPage } from "./status-page.ts";
export { ScriptJournal } from "./script-journal.ts";
