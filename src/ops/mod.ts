/**
 * @module Operations: metrics, the status page, config reload (SIGHUP and file watch), the
 * start-up/drain lifecycle and process signals.
 */
export { CallJournal } from "./call-journal.ts";
export { type ConfigWatch, watchConfigFile } from "./config-watch.ts";
export { Lifecycle, type Phase } from "./lifecycle.ts";
export { Metrics, type MetricsSources } from "./metrics.ts";
export { PROMETHEUS_CONTENT_TYPE } from "./prometheus.ts";
export { createReloader, type ReloaderOptions } from "./reload.ts";
export { onSignals, type SignalHandlers } from "./signals.ts";
export { ScriptJournal } from "./script-journal.ts";
export { renderStatusPage, type StatusSources } from "./status-page.ts";
