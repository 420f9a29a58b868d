/**
 * `/metrics`: tool calls (count, errors, latency histogram) per server and tool, upstream
 * up/down and restarts, open sessions, script runs and limit hits, config reloads.
 *
 * The `tool` label is bounded: a client can send any name, and every new label value is a new
 * series held for the life of the process. Calls to names the gateway does not know count under
 * `tool="unknown"`, and after {@link MAX_TOOL_LABELS} distinct names every further one counts
 * under `tool="other"`.
 */
import type { CallRecord, Gateway } from "../gateway/mod.ts";
import type { ScriptRunRecord } from "../tools/mod.ts";
import { VERSION } from "../version.ts";
import {
  family,
  histogramSamples,
  type HistogramState,
  newHistogram,
  observe,
  type Sample,
} from "./prometheus.ts";

/** What the metrics read at scrape time. */
export interface MetricsSources {
  gateway: Gateway;
  /** Open sessions by transport (`SessionRegistry.counts`); absent in stdio mode. */
  sessions?: () => Record<string, number>;
  /** Ceiling on distinct `tool` label values (default {@link MAX_TOOL_LABELS}). */
  maxToolLabels?: number;
}

/** Default ceiling on distinct `tool` label values. */
export const MAX_TOOL_LABELS = 500;
/** The `tool` label of calls to names the gateway does not know (client-chosen names). */
export const UNKNOWN_TOOL_LABEL = "unknown";
/** The `tool` label of calls to known tools once the ceiling is reached. */
export const OTHER_TOOL_LABEL = "other";

interface CallCounts {
  readonly labels: { server: string; tool: string };
  ok: number;
  toolError: number;
  error: number;
  readonly latency: HistogramState;
}

const P = "mcp_gateway";

/** Collects call metrics from `gateway.observeCalls` and renders every family on scrape. */
export class Metrics {
  readonly #sources: MetricsSources;
  /** Series by server, then tool: a call finds its series without building a key or labels. */
  readonly #calls = new Map<string, Map<string, CallCounts>>();
  readonly #reloads = { ok: 0, rejected: 0 };
  readonly #scriptRuns = new Map<string, number>();
  readonly #scriptLimits = new Map<string, number>();
  readonly #startedAt = Date.now();
  readonly #toolLabels = new Set<string>();
  readonly #maxToolLabels: number;

  constructor(sources: MetricsSources) {
    this.#sources = sources;
    this.#maxToolLabels = sources.maxToolLabels ?? MAX_TOOL_LABELS;
  }

  /**
   * The `tool` label of a call. A `TOOL_NOT_FOUND` call carries whatever name the client sent;
   * every other call names a tool of the catalog (a `FORBIDDEN` one too: existence is checked
   * first), which the ceiling still bounds in case catalogs churn.
   */
  #toolLabel(call: CallRecord): string {
    if (call.code === "TOOL_NOT_FOUND") return UNKNOWN_TOOL_LABEL;
    if (this.#toolLabels.has(call.name)) return call.name;
    if (this.#toolLabels.size >= this.#maxToolLabels) return OTHER_TOOL_LABEL;
    this.#toolLabels.add(call.name);
    return call.name;
  }

  /** Counts one finished call (pass to `gateway.observeCalls`). */
  observe(call: CallRecord): void {
    // Local tools (macros, meta-tools) have no server: label them with an empty server.
    const server = call.server ?? "";
    const tool = this.#toolLabel(call);
    let byTool = this.#calls.get(server);
    if (!byTool) {
      byTool = new Map();
      this.#calls.set(server, byTool);
    }
    let counts = byTool.get(tool);
    if (!counts) {
      const labels = { server, tool };
      counts = { labels, ok: 0, toolError: 0, error: 0, latency: newHistogram(labels) };
      byTool.set(tool, counts);
    }
    if (call.outcome === "ok") counts.ok++;
    else if (call.outcome === "tool_error") counts.toolError++;
    else counts.error++;
    observe(counts.latency, call.durationMs / 1000);
  }

  /** Counts one finished macro or execute run (pass to `Scripting.runs.observe`). */
  observeScript(run: ScriptRunRecord): void {
    this.#scriptRuns.set(run.outcome, (this.#scriptRuns.get(run.outcome) ?? 0) + 1);
    if (run.limit) this.#scriptLimits.set(run.limit, (this.#scriptLimits.get(run.limit) ?? 0) + 1);
  }

  /** Counts one config reload. */
  reload(ok: boolean): void {
    if (ok) this.#reloads.ok++;
    else this.#reloads.rejected++;
  }

  /** The whole exposition text. */
  render(): string {
    const calls = [...this.#calls.values()].flatMap((byTool) => [...byTool.values()]);
    const upstreams = this.#sources.gateway.pool.all();
    const runs = this.#scriptRuns;
    const limits = this.#scriptLimits;
    const parts = [
      family(`${P}_info`, "gauge", "Build information.", [{
        labels: { version: VERSION },
        value: 1,
      }]),
      family(
        `${P}_start_time_seconds`,
        "gauge",
        "Start time of the process since the Unix epoch.",
        [{ labels: {}, value: Math.floor(this.#startedAt / 1000) }],
      ),
      family(
        `${P}_tool_calls_total`,
        "counter",
        "Finished tool calls by server, tool and outcome (ok, tool_error, error).",
        calls.flatMap((c): Sample[] => [
          { labels: { ...c.labels, outcome: "ok" }, value: c.ok },
          { labels: { ...c.labels, outcome: "tool_error" }, value: c.toolError },
          { labels: { ...c.labels, outcome: "error" }, value: c.error },
        ]),
      ),
      family(
        `${P}_tool_call_errors_total`,
        "counter",
        "Tool calls that failed: an isError result or a thrown error.",
        calls.map((c) => ({ labels: c.labels, value: c.toolError + c.error })),
      ),
      family(
        `${P}_tool_call_duration_seconds`,
        "histogram",
        "Tool call latency through the gateway.",
        calls.map((c) => c.latency).flatMap(histogramSamples),
      ),
      family(
        `${P}_upstream_up`,
        "gauge",
        "1 while the upstream server is connected, else 0.",
        upstreams.map((u) => ({
          labels: { server: u.name, transport: u.kind ?? u.config.kind },
          value: u.state === "up" ? 1 : 0,
        })),
      ),
      family(
        `${P}_upstream_restarts_total`,
        "counter",
        "Restarts and reconnects of the upstream server (reset when a reload replaces it).",
        upstreams.map((u) => ({ labels: { server: u.name }, value: u.restarts })),
      ),
      family(
        `${P}_upstream_in_flight`,
        "gauge",
        "Requests sent to the upstream server and not yet answered.",
        upstreams.map((u) => ({ labels: { server: u.name }, value: u.inFlight })),
      ),
      family(
        `${P}_quarantined_tools`,
        "gauge",
        "Tools of a server held back by pin: quarantine until approved.",
        [...this.#sources.gateway.pins.quarantinedTools()].map(([server, n]) => ({
          labels: { server },
          value: n,
        })),
      ),
      family(
        `${P}_sessions`,
        "gauge",
        "Open downstream sessions by transport.",
        Object.entries(this.#sources.sessions?.() ?? {}).map(([transport, n]) => ({
          labels: { transport },
          value: n,
        })),
      ),
      family(
        `${P}_script_runs_total`,
        "counter",
        "Lua script runs (macros and execute) by outcome.",
        [...runs].map(([outcome, n]) => ({ labels: { outcome }, value: n })),
      ),
      family(
        `${P}_script_limit_hits_total`,
        "counter",
        "Script runs stopped at a limit, by limit.",
        [...limits].map(([limit, n]) => ({ labels: { limit }, value: n })),
      ),
      family(`${P}_config_reloads_total`, "counter", "Config reloads by result.", [
        { labels: { result: "applied" }, value: this.#reloads.ok },
        { labels: { result: "rejected" }, value: this.#reloads.rejected },
      ]),
    ];
    return parts.join("");
  }
}
