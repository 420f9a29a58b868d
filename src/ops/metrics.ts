/**
 * `/metrics`: tool calls (count, errors, latency histogram) per server and tool, upstream
 * up/down and restarts, open sessions, script runs and limit hits, config reloads, and what the
 * event-stream guards did (events dropped for slow readers, streams closed).
 *
 * The `tool` label is bounded: a client can send any name, and every new label value is a new
 * series held for the life of the process. Calls to names the gateway does not know count under
 * `tool="unknown"`, and after {@link MAX_TOOL_LABELS} distinct names every further one counts
 * under `tool="other"`.
 *
 * Calls that came to a profile's endpoint are also counted per profile
 * (`mcp_gateway_profile_tool_calls_total{profile, outcome}`), beside the per-tool series whose
 * labels stay as they were. Profile names come from the config, and after
 * {@link MAX_PROFILE_LABELS} distinct ones every further one counts under `profile="other"`.
 */
import type { CallRecord, FilterEvent, Gateway } from "../gateway/mod.ts";
import type { StreamGuardEvent, StreamKind } from "../shared/stream-guard.ts";
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
import { OTHER_TOOL_LABEL, ToolLabels } from "./tool-labels.ts";

/** What the metrics read at scrape time. */
export interface MetricsSources {
  gateway: Gateway;
  /** Open sessions by transport (`SessionRegistry.counts`); absent in stdio mode. */
  sessions?: () => Record<string, number>;
  /** Bytes the event-stream guards hold for slow readers right now. */
  streamQueued?: () => number;
  /** Ceiling on distinct `tool` label values (default {@link MAX_TOOL_LABELS}). */
  maxToolLabels?: number;
  /** Counters of tool search's semantic ranking; `null` while it is not configured. */
  semantic?: () => { fallbacks: number; embedded: number } | null;
}

/** Default ceiling on distinct `tool` label values. */
export const MAX_TOOL_LABELS = 500;
/** Ceiling on distinct `profile` label values (names come from the config; reloads add more). */
export const MAX_PROFILE_LABELS = 64;
export { OTHER_TOOL_LABEL, UNKNOWN_TOOL_LABEL } from "./tool-labels.ts";

interface CallCounts {
  readonly labels: { server: string; tool: string };
  ok: number;
  toolError: number;
  error: number;
  readonly latency: HistogramState;
}

const P = "mcp_gateway";

/** Collects call metrics from `gateway.calls.observeCalls` and renders every family on scrape. */
export class Metrics {
  readonly #sources: MetricsSources;
  /** Series by server, then tool: a call finds its series without building a key or labels. */
  readonly #calls = new Map<string, Map<string, CallCounts>>();
  readonly #reloads = { ok: 0, rejected: 0 };
  readonly #scriptRuns = new Map<string, number>();
  readonly #scriptLimits = new Map<string, number>();
  /** Filter actions by `server\0filter\0action` (bounded: servers × configured filters × 3). */
  readonly #filterActions = new Map<string, number>();
  readonly #startedAt = Date.now();
  /** By stream kind: events dropped for slow readers, streams closed as too slow or expired. */
  readonly #streams = new Map<StreamKind, { dropped: number; slow: number; expired: number }>();
  readonly #toolLabels: ToolLabels;
  /** Calls per profile label, then outcome. */
  readonly #profiles = new Map<string, { ok: number; toolError: number; error: number }>();

  constructor(sources: MetricsSources) {
    this.#sources = sources;
    this.#toolLabels = new ToolLabels(sources.maxToolLabels ?? MAX_TOOL_LABELS);
  }

  /** Counts one finished call (pass to `gateway.calls.observeCalls`). */
  observe(call: CallRecord): void {
    // Local tools (macros, meta-tools) have no server: label them with an empty server.
    const server = call.server ?? "";
    const tool = this.#toolLabels.of(call);
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
    if (call.profile !== null) this.#observeProfile(call);
  }

  #observeProfile(call: CallRecord): void {
    const full = this.#profiles.size >= MAX_PROFILE_LABELS && !this.#profiles.has(call.profile!);
    const label = full ? OTHER_TOOL_LABEL : call.profile!;
    let counts = this.#profiles.get(label);
    if (!counts) {
      counts = { ok: 0, toolError: 0, error: 0 };
      this.#profiles.set(label, counts);
    }
    if (call.outcome === "ok") counts.ok++;
    else if (call.outcome === "tool_error") counts.toolError++;
    else counts.error++;
  }

  /** Counts one finished macro or execute run (pass to `Scripting.runs.observe`). */
  observeScript(run: ScriptRunRecord): void {
    this.#scriptRuns.set(run.outcome, (this.#scriptRuns.get(run.outcome) ?? 0) + 1);
    if (run.limit) this.#scriptLimits.set(run.limit, (this.#scriptLimits.get(run.limit) ?? 0) + 1);
  }

  /** Counts what one result filter did (pass to `gateway.filters.observe`). */
  observeFilter(event: FilterEvent): void {
    const key = `${event.server}\0${event.filter}\0${event.action}`;
    this.#filterActions.set(key, (this.#filterActions.get(key) ?? 0) + 1);
  }

  /** Counts what an event-stream guard did (pass as the doors' `observeStreams`). */
  observeStream(event: StreamGuardEvent & { stream: StreamKind }): void {
    let n = this.#streams.get(event.stream);
    if (!n) {
      n = { dropped: 0, slow: 0, expired: 0 };
      this.#streams.set(event.stream, n);
    }
    if (event.kind === "dropped") n.dropped += event.events;
    else if (event.kind === "closed") n.slow++;
    else n.expired++;
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
        `${P}_profile_tool_calls_total`,
        "counter",
        "Finished tool calls that came to a profile's endpoint, by profile and outcome.",
        [...this.#profiles].flatMap(([profile, c]): Sample[] => [
          { labels: { profile, outcome: "ok" }, value: c.ok },
          { labels: { profile, outcome: "tool_error" }, value: c.toolError },
          { labels: { profile, outcome: "error" }, value: c.error },
        ]),
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
      family(
        `${P}_filter_actions_total`,
        "counter",
        "Results a filter changed, blocked or failed on, by server and filter.",
        [...this.#filterActions].map(([key, n]) => {
          const [server, filter, action] = key.split("\0") as [string, string, string];
          return { labels: { server, filter, action }, value: n };
        }),
      ),
      family(
        `${P}_stream_queued_bytes`,
        "gauge",
        "Bytes queued on event streams for clients that read slower than they are written to.",
        [{ labels: {}, value: this.#sources.streamQueued?.() ?? 0 }],
      ),
      family(
        `${P}_stream_events_dropped_total`,
        "counter",
        "Progress and log notifications dropped from event streams whose client reads too slowly.",
        [...this.#streams].map(([stream, n]) => ({ labels: { stream }, value: n.dropped })),
      ),
      family(
        `${P}_streams_closed_total`,
        "counter",
        "Event streams closed by the gateway: slow (queue full, nothing droppable), expired (token).",
        [...this.#streams].flatMap(([stream, n]): Sample[] => [
          { labels: { stream, reason: "slow" }, value: n.slow },
          { labels: { stream, reason: "expired" }, value: n.expired },
        ]),
      ),
      family(`${P}_config_reloads_total`, "counter", "Config reloads by result.", [
        { labels: { result: "applied" }, value: this.#reloads.ok },
        { labels: { result: "rejected" }, value: this.#reloads.rejected },
      ]),
      ...this.#semanticFamilies(),
    ];
    return parts.join("");
  }

  #semanticFamilies(): string[] {
    const stats = this.#sources.semantic?.() ?? null;
    if (stats === null) return [];
    return [
      family(
        `${P}_search_semantic_fallbacks_total`,
        "counter",
        "Tool searches ranked lexically alone because the embeddings endpoint failed.",
        [{ labels: {}, value: stats.fallbacks }],
      ),
      family(
        `${P}_search_embedded_texts_total`,
        "counter",
        "Texts (tools and queries) sent to the embeddings endpoint.",
        [{ labels: {}, value: stats.embedded }],
      ),
    ];
  }
}
