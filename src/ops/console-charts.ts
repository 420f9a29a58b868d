/**
 * The console's per-tool charts: calls a minute (errors in red) and p50/p99 latency over the
 * last minutes, drawn on the server as small inline SVG — no script, no build step, no
 * asset — beside the figures they show, so the table reads without the pictures too.
 */
import { html } from "hono/html";
import type { ToolStatsStatus } from "./status-data.ts";

type Html = ReturnType<typeof html>;

const W = 150;
const H = 34;

/** The "Tools" section: one row per tool called in the window, busiest first. */
export function renderToolStats(stats: readonly ToolStatsStatus[]): Html {
  const minutes = stats[0]?.calls.length ?? 0;
  return html`
    <h2>Tools, last ${minutes || 15} minutes</h2>
    <table id="tools">
      <thead>
        <tr>
          <th>Tool</th>
          <th>Calls a minute</th>
          <th>Rate</th>
          <th>Errors</th>
          <th>p50 / p99</th>
          <th>Latency</th>
        </tr>
      </thead>
      <tbody>
    ${stats.length === 0
      ? html`
        <tr>
          <td colspan="6" class="empty">no tool calls in the last ${minutes || 15} minutes</td>
        </tr>
      `
      : stats.map(row)}
      </tbody>
    </table>
  `;
}

function row(s: ToolStatsStatus): Html {
  const total = s.calls.reduce((a, b) => a + b, 0);
  const errors = s.errors.reduce((a, b) => a + b, 0);
  const last = lastIndex(s.p50);
  const p50 = last < 0 ? null : s.p50[last]!;
  const p99 = last < 0 ? null : s.p99[last]!;
  return html`
    <tr data-tool="${s.tool}">
      <td data-label="Tool" class="name">${s.tool}</td>
      <td data-label="Calls a minute">${callsChart(s)}</td>
      <td data-label="Rate" class="num">${(total / s.calls.length).toFixed(1)}/min</td>
      <td data-label="Errors" class="num">${percent(errors, total)}</td>
      <td data-label="p50 / p99" class="num">${ms(p50)} / ${ms(p99)}</td>
      <td data-label="Latency">${latencyChart(s)}</td>
    </tr>
  `;
}

/** Bars of calls a minute, the errors of each minute drawn in red over its bar. */
function callsChart(s: ToolStatsStatus): Html {
  const max = Math.max(1, ...s.calls);
  const bw = W / s.calls.length;
  const bar = (n: number, i: number, cls: string) => {
    const h = (n / max) * (H - 2);
    return n === 0 ? "" : html`
      <rect class="${cls}" x="${(i * bw + 0.5).toFixed(1)}" y="${(H - h).toFixed(
        1,
      )}" width="${(bw - 1).toFixed(1)}"
        height="${h.toFixed(1)}" />
    `;
  };
  const label = `${s.tool}: calls a minute, oldest first: ${s.calls.join(", ")}; errors: ${
    s.errors.join(", ")
  }`;
  return html`
    <svg class="chart" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}"
      role="img"
      aria-label="${label}"><title>${label}</title>${s.calls.map((n, i) => bar(n, i, "calls"))}${s
        .errors.map((n, i) => bar(n, i, "errors"))}</svg>
  `;
}

/** p50 (solid) and p99 (dashed) a minute, on one scale; minutes without calls leave gaps. */
function latencyChart(s: ToolStatsStatus): Html {
  const max = Math.max(0.001, ...s.p99.map((v) => v ?? 0));
  const step = W / Math.max(1, s.p50.length - 1);
  const path = (values: readonly (number | null)[]) => {
    let d = "";
    let pen = false;
    values.forEach((v, i) => {
      if (v === null) {
        pen = false;
        return;
      }
      const x = (i * step).toFixed(1);
      const y = (H - 1 - (v / max) * (H - 3)).toFixed(1);
      d += `${pen ? "L" : "M"}${x} ${y} `;
      pen = true;
    });
    return d.trim();
  };
  const dots = (values: readonly (number | null)[], cls: string) =>
    values.map((v, i) =>
      v === null ? "" : html`
        <circle class="${cls}" cx="${(i * step).toFixed(1)}" cy="${(H - 1 - (v / max) * (H - 3))
          .toFixed(1)}" r="1.5" />
      `
    );
  const label = `${s.tool}: latency a minute (ms), p50: ${s.p50.map(ms).join(", ")}; p99: ${
    s.p99.map(ms).join(", ")
  }`;
  return html`
    <svg class="chart" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}"
      role="img"
      aria-label="${label}"><title>${label}</title><path class="p99" d="${path(
        s.p99,
      )}"/><path class="p50" d="${path(s.p50)}"/>${dots(s.p99, "p99")}${dots(s.p50, "p50")}</svg>
  `;
}

/** The chart styles (part of the page's stylesheet). */
export const CHART_STYLE = `
svg.chart{display:block;background:#f6f8fa;border-radius:.2rem;max-width:100%;height:auto}
svg.chart rect.calls{fill:#54aeff}svg.chart rect.errors{fill:#cf222e}
svg.chart path{fill:none;stroke-width:1.5}svg.chart .p50{stroke:#1f883d;fill:#1f883d}
svg.chart .p99{stroke:#9a6700;fill:#9a6700;stroke-dasharray:3 2}svg.chart circle{stroke:none}`;

function lastIndex(values: readonly (number | null)[]): number {
  for (let i = values.length - 1; i >= 0; i--) if (values[i] !== null) return i;
  return -1;
}

function percent(part: number, whole: number): string {
  return whole === 0 ? "–" : `${((part / whole) * 100).toFixed(part === whole ? 0 : 1)} %`;
}

function ms(v: number | null): string {
  if (v === null) return "–";
  return v < 10
    ? `${v.toFixed(2)} ms`
    : v < 1000
    ? `${v.toFixed(0)} ms`
    : `${(v / 1000).toFixed(1)} s`;
}
