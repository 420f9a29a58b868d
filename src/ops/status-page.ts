/**
 * `GET /`: a small server-rendered status page — upstreams with state, transport, tool count and
 * last error, open sessions, and the most recent calls. One HTML string, inline CSS, no assets;
 * every value goes through hono's `html` template, which escapes it.
 */
import { html } from "hono/html";
import type { CallRecord, Gateway } from "../gateway/mod.ts";
import { runtimeVersion } from "../runtime/mod.ts";
import { NAME, VERSION } from "../version.ts";

/** What the page shows. */
export interface StatusSources {
  gateway: Gateway;
  recentCalls: () => readonly CallRecord[];
  sessions?: () => Record<string, number>;
  /** `starting`, `ready` or `draining`. */
  phase: () => string;
  startedAt: number;
  /** Cluster hook: every live instance with its upstream states (absent without a cluster). */
  instances?: readonly {
    id: string;
    url: string;
    phase: string;
    upstreams: readonly { name: string; state: string }[];
  }[];
}

const STYLE = `
body{font:14px/1.4 system-ui,sans-serif;margin:1.5rem;color:#1d2330;background:#fafbfc}
h1{font-size:1.3rem;margin:0 0 .2rem}h2{font-size:1.05rem;margin:1.4rem 0 .4rem}
.meta{color:#5a6272}table{border-collapse:collapse;width:100%;background:#fff}
th,td{text-align:left;padding:.3rem .6rem;border-bottom:1px solid #e3e6ea;vertical-align:top}
th{background:#f0f2f5;font-weight:600}td.num{text-align:right;font-variant-numeric:tabular-nums}
.state{display:inline-block;padding:0 .45rem;border-radius:.6rem;font-size:.85em;color:#fff}
.up,.ok{background:#1f883d}.starting{background:#9a6700}.down,.error{background:#cf222e}
.stopped,.disabled{background:#6e7781}.tool_error{background:#bc4c00}
.err{color:#a40e26;font-family:ui-monospace,monospace;font-size:.9em;word-break:break-word}
.empty{color:#5a6272;font-style:italic}`;

/** Renders the page as of now. */
export function renderStatusPage(s: StatusSources): ReturnType<typeof html> {
  const upstreams = s.gateway.pool.all();
  const sessions = s.sessions?.() ?? {};
  const sessionText = Object.entries(sessions).map(([k, n]) => `${n} ${k}`).join(", ") || "none";
  const calls = s.recentCalls();
  const uptime = formatDuration(Date.now() - s.startedAt);
  return html`
    <!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width">
        <meta http-equiv="refresh" content="10">
        <title>${NAME} status</title>
        <style>${STYLE}</style>
      </head>
      <body>
        <h1>${NAME} ${VERSION}</h1>
        <p class="meta">${runtimeVersion()} · ${s.phase()} · up ${uptime} · sessions: ${sessionText}
    · ${upstreams.filter((u) => u.state === "up").length}/${upstreams.length} upstreams up</p>
        <h2>Upstreams</h2>
        <table id="upstreams">
          <thead>
            <tr>
              <th>Server</th>
              <th>State</th>
              <th>Transport</th>
              <th>Tools</th>
              <th>Restarts</th>
              <th>In flight</th>
              <th>Last error</th>
            </tr>
          </thead>
          <tbody>
    ${upstreams.length === 0
      ? html`
        <tr>
          <td colspan="7" class="empty">no upstream servers configured</td>
        </tr>
      `
      : upstreams.map((u) =>
        html`
          <tr data-server="${u.name}">
            <td>${u.name}</td>
            <td><span class="state ${u.state}">${u.state}</span></td>
            <td>${u.kind ?? u.config.kind}</td>
            <td class="num">${u.catalog.tools.length}</td>
            <td class="num">${u.restarts}</td>
            <td class="num">${u.inFlight}</td>
            <td class="err">${u.lastError ?? ""}</td>
          </tr>
        `
      )}
          </tbody>
        </table>
        ${s.instances ? renderInstances(s.instances) : ""}
        <h2>Recent calls</h2>
        <table id="calls">
          <thead>
            <tr>
              <th>When</th>
              <th>Tool</th>
              <th>Server</th>
              <th>Token</th>
              <th>Outcome</th>
              <th>Duration</th>
              <th>Error</th>
            </tr>
          </thead>
          <tbody>
    ${calls.length === 0
      ? html`
        <tr>
          <td colspan="7" class="empty">no calls yet</td>
        </tr>
      `
      : calls.map((c) =>
        html`
          <tr>
            <td>${new Date(c.at).toISOString().slice(11, 23)}</td>
            <td>${c.name}</td>
            <td>${c.server ?? "(local)"}</td>
            <td>${c.tokenName ?? ""}</td>
            <td><span class="state ${c.outcome}">${c.outcome}</span></td>
            <td class="num">${c.durationMs.toFixed(1)} ms</td>
            <td class="err">${c.error ?? ""}</td>
          </tr>
        `
      )}
          </tbody>
        </table>
      </body>
    </html>
  `;
}

function renderInstances(list: NonNullable<StatusSources["instances"]>): ReturnType<typeof html> {
  return html`
    <h2>Instances</h2>
    <table id="instances">
      <thead>
        <tr>
          <th>Instance</th>
          <th>URL</th>
          <th>Phase</th>
          <th>Upstreams</th>
        </tr>
      </thead>
      <tbody>
    ${list.map((i) =>
      html`
        <tr data-instance="${i.id}">
          <td>${i.id}</td>
          <td>${i.url}</td>
          <td>${i.phase}</td>
          <td>${i.upstreams.map((u) =>
            html`
              <span class="state ${u.state}">${u.name}</span>
            `
          )}</td>
        </tr>
      `
    )}
      </tbody>
    </table>
  `;
}

function formatDuration(ms: number): string {
  const s = Math.floor(ms / 1000);
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m ${s % 60}s`;
  return `${Math.floor(s / 3600)}h ${Math.floor((s % 3600) / 60)}m`;
}
