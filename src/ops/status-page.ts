/**
 * `GET /`: a small server-rendered status page — upstreams with state, transport, exposed tool
 * count and down reason, macros with their source file, open sessions, the most recent calls
 * with the error of each failed one, and the most recent script runs. It renders the same {@link StatusSnapshot} `/status.json`
 * serves. One HTML string, inline CSS, no assets; every value goes through hono's `html`
 * template, which escapes it. Below 640 px each table row becomes a card, so nothing overflows
 * a phone screen.
 */
import { html, raw } from "hono/html";
import { htmlPage } from "./html-page.ts";
import { CHART_STYLE, renderToolStats } from "./console-charts.ts";
import {
  actionButton,
  renderAccounts,
  renderProblemPage,
  renderSessions,
  when,
} from "./console-sections.ts";
import type { CallStatus, StatusSnapshot, UpstreamStatus } from "./status-data.ts";
import { renderPins } from "./pins-status.ts";
import { authModeNamed } from "../upstream/oauth/mod.ts";
import { renderInstances, renderProfiles } from "./status-tables.ts";

/** How the page was opened: with a status-page cookie it offers a sign-out button. */
export interface PageOptions {
  signedInAs?: string | null;
}

type Html = ReturnType<typeof html>;

/** The shared stylesheet (also used by the sign-in page). */
export const STATUS_STYLE = `
*{box-sizing:border-box}
body{font:14px/1.4 system-ui,sans-serif;margin:1.5rem;color:#1d2330;background:#fafbfc}
h1{font-size:1.3rem;margin:0 0 .2rem}h2{font-size:1.05rem;margin:1.4rem 0 .4rem}
.meta{color:#5a6272;margin:.8rem 0;overflow-wrap:anywhere}
table{border-collapse:collapse;width:100%;background:#fff}
th,td{text-align:left;padding:.3rem .6rem;border-bottom:1px solid #e3e6ea;vertical-align:top}
td.name,td.err{overflow-wrap:anywhere}
th{background:#f0f2f5;font-weight:600;white-space:nowrap}td.num{text-align:right;font-variant-numeric:tabular-nums}
.state{display:inline-block;padding:0 .45rem;border-radius:.6rem;font-size:.85em;color:#fff;
white-space:nowrap}
.up,.ok{background:#1f883d}.starting{background:#9a6700}.down,.error{background:#cf222e}
.stopped,.disabled{background:#6e7781}.needs-login{background:#8250df}.tool_error,.limit{background:#bc4c00}
.err{color:#a40e26;font-family:ui-monospace,monospace;font-size:.9em;word-break:break-word}
.empty{color:#5a6272;font-style:italic}
form.inline{display:inline}button{font:inherit;padding:.3rem .8rem;cursor:pointer}
form.act button{padding:.1rem .5rem;font-size:.85em;margin:0 .2rem .2rem 0}
td.acts{white-space:nowrap}.mono,pre{font-family:ui-monospace,monospace;font-size:.85em}
pre{white-space:pre-wrap;overflow-wrap:anywhere;margin:.3rem 0;max-height:16rem;overflow:auto}
.note{color:#5a6272;font-size:.85em}details summary{cursor:pointer;color:#5a6272}
.override{background:#6e7781}
@media (max-width:640px){
body{margin:.75rem}
table,tbody,tr,td{display:block;width:100%}
thead{display:none}
table{background:none}
tr{background:#fff;border:1px solid #e3e6ea;border-radius:.4rem;margin:0 0 .6rem;padding:.3rem .6rem}
td,td.num{border:0;padding:.15rem 0;text-align:left;display:flex;gap:.6rem}
td::before{content:attr(data-label);flex:0 0 6rem;color:#5a6272;font:600 14px system-ui,sans-serif}
td.empty::before{content:none}td.err:empty{display:none}td>*{min-width:0}td.acts{flex-wrap:wrap}
}${CHART_STYLE}`;

/**
 * Live updates: every few seconds the page fetches itself and swaps in the new `#live` part,
 * unless the tab is hidden or the operator has a stderr panel open (it would close). Without
 * JavaScript the page refreshes itself instead (the `noscript` refresh).
 */
const LIVE_SCRIPT = `(()=>{const every=5000;setInterval(async()=>{
if(document.hidden||document.querySelector("#live details[open]"))return;
try{const r=await fetch(location.pathname,{credentials:"same-origin",headers:{accept:"text/html"}});
if(!r.ok)return;const next=new DOMParser().parseFromString(await r.text(),"text/html")
.getElementById("live");const now=document.getElementById("live");if(next&&now)now.replaceWith(next);
}catch{}},every);})();`;

/**
 * The Connect link of a server that needs a login: it begins one and sends the browser to the
 * upstream's authorization server (the page, and the link, answer admins only).
 */
function connectLink(server: string): Html {
  return html`
    <a class="connect" href="/oauth/connect/${encodeURIComponent(server)}">Connect</a>
  `;
}

/** The page a console button gets when its action is refused or fails. */
export function renderActionProblem(message: string): Html {
  return renderProblemPage(message, STATUS_STYLE);
}

/** Renders the page for a snapshot. */
export function renderStatusPage(s: StatusSnapshot, options: PageOptions = {}): Html {
  const sessionText = Object.entries(s.sessions).map(([k, n]) => `${n} ${k}`).join(", ") ||
    "none";
  const up = s.upstreams.filter((u) => u.state === "up").length;
  return htmlPage(
    `${s.name} status`,
    STATUS_STYLE,
    html`
      <main id="live">
          <h1>${s.name} ${s.version}</h1>
          <div class="meta">${s.runtime} · ${s.phase} · up ${formatDuration(s.uptimeSeconds)} ·
      sessions: ${sessionText} · ${up}/${s.upstreams.length} upstreams up · <a href="/status.json"
      >status.json</a>${signOut(options.signedInAs)}</div>
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
                <th>Actions</th>
              </tr>
            </thead>
            <tbody>
      ${s.upstreams.length === 0
        ? emptyRow(8, "no upstream servers configured")
        : s.upstreams.map(upstreamRow)}
            </tbody>
          </table>
          ${renderPins(s.pins ?? [])}
          ${renderToolStats(s.toolStats ?? [])}
          ${renderSessions(s.openSessions ?? [])}
          ${renderAccounts(s.accounts ?? [])}
          <h2>Macros</h2>
          <table id="macros">
            <thead>
              <tr>
                <th>Tool</th>
                <th>Source</th>
                <th>Listed</th>
              </tr>
            </thead>
            <tbody>
      ${s.macros.length === 0 ? emptyRow(3, "no macros") : s.macros.map((m) =>
        html`
          <tr data-macro="${m.name}">
            <td data-label="Tool" class="name">${m.name}</td>
            <td data-label="Source" class="name">${m.source}</td>
            <td data-label="Listed">${m.discoverable ? "search only" : "yes"}</td>
          </tr>
        `
      )}
            </tbody>
          </table>
          ${s.profiles.length === 0 ? "" : renderProfiles(s.profiles)}
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
                <th>Filters</th>
                <th>Error</th>
              </tr>
            </thead>
            <tbody>
      ${s.calls.length === 0 ? emptyRow(8, "no calls yet") : s.calls.map(callRow)}
            </tbody>
          </table>
          <h2>Recent script runs</h2>
          <table id="scripts">
            <thead>
              <tr>
                <th>When</th>
                <th>Script</th>
                <th>Token</th>
                <th>Outcome</th>
                <th>Duration</th>
                <th>Limit</th>
              </tr>
            </thead>
            <tbody>
      ${s.scripts.length === 0 ? emptyRow(6, "no script runs yet") : s.scripts.map((r) =>
        html`
          <tr data-script="${r.name}">
            <td data-label="When">${when(r.at, true)}</td>
            <td data-label="Script" class="name">${r.feature === "macro"
              ? `macro ${r.name}`
              : r.name}</td>
            <td data-label="Token" class="name">${r.token ?? ""}</td>
            <td data-label="Outcome"><span class="state ${r.outcome}">${r.outcome}</span></td>
            <td data-label="Duration" class="num">${r.durationMs.toFixed(1)} ms</td>
            <td data-label="Limit">${r.limit ?? ""}</td>
          </tr>
        `
      )}
            </tbody>
          </table>
          </main>
      <script>${raw(LIVE_SCRIPT)}</script>
    `,
    html`
      <noscript><meta http-equiv="refresh" content="15"></noscript>
    `,
  );
}

/** One upstream's row: its state (with a retry due or given up), figures, and its actions. */
function upstreamRow(u: UpstreamStatus): Html {
  const name = encodeURIComponent(u.name);
  const disabled = u.state === "disabled";
  return html`
    <tr data-server="${u.name}">
      <td data-label="Server" class="name">${u.name}${u.override
        ? html`
          <span class="state override"
            title="set by ${u.override.by ?? "an admin"} at ${u
              .override.at}">${u.override.enabled ? "enabled" : "disabled"} by override</span>
        `
        : ""}</td>
      <td
        data-label="State">
        <div><span class="state ${u.state}">${u.state === "needs-login"
          ? "needs login"
          : u.state}</span>${u.state === "needs-login" && authModeNamed(u.oauth?.mode)?.adminLogin
          ? connectLink(u.name)
          : ""}${retryNote(u)}</div>
      </td>
      <td data-label="Transport">${u.transport}${u.protocol ? ` · ${u.protocol}` : ""}</td>
      <td data-label="Tools" class="num tools"
        title="exposed to clients (of ${u.toolsUpstream} upstream)">${u.toolsExposed}${u
            .toolsExposed === u.toolsUpstream
          ? ""
          : ` of ${u.toolsUpstream}`}</td>
      <td data-label="Restarts" class="num">${u.restarts}</td>
      <td data-label="In flight" class="num">${u.inFlight}</td>
      <td data-label="Last error" class="err">${u.lastError || u.stderr.length > 0
        ? html`<div>${u.lastError ?? ""}${
          u.stderr.length > 0
            ? html`
              <details>
                <summary>stderr (${u.stderr.length} ${u.stderr.length === 1
                  ? "line"
                  : "lines"})</summary>
                <pre>${u.stderr.join("\n")}</pre>
              </details>
            `
            : ""
        }</div>`
        : ""}</td>
      <td data-label="Actions" class="acts">${disabled
        ? actionButton(`/admin/servers/${name}/enable`, "Enable")
        : html`${actionButton(`/admin/servers/${name}/restart`, "Restart")}${
          actionButton(`/admin/servers/${name}/disable`, "Disable")
        }`}</td>
    </tr>
  `;
}

/** A down server's next retry, or that it gave up. */
function retryNote(u: UpstreamStatus): Html | string {
  if (u.gaveUp) {
    const times = u.failures === 1 ? "failure" : "failures";
    return html`<div class="note">gave up after ${u.failures} ${times}: restart it by hand</div>`;
  }
  if (u.nextRetryAt) return html`<div class="note">next retry ${when(u.nextRetryAt)}</div>`;
  return "";
}

/** One finished operation: a tool call, prompt get or resource read. */
function callRow(c: CallStatus): Html {
  return html`
    <tr data-kind="${c.kind}">
      <td data-label="When">${when(c.at, true)}</td>
      <td data-label="Tool" class="name">${c.kind === "tool" ? "" : `${c.kind} `}${c.tool}</td>
      <td data-label="Server" class="name">${c.server ?? "(local)"}</td>
      <td data-label="Token" class="name">${c.token ?? ""}</td>
      <td data-label="Outcome"><span class="state ${c.outcome}">${c.outcome}</span></td>
      <td data-label="Duration" class="num">${c.durationMs.toFixed(1)} ms</td>
      <td data-label="Filters" class="name">${c.filters.join(", ")}</td>
      <td data-label="Error" class="err">${c.error ?? ""}</td>
    </tr>
  `;
}

function emptyRow(columns: number, text: string): Html {
  return html`
    <tr>
      <td colspan="${columns}" class="empty">${text}</td>
    </tr>
  `;
}

function signOut(name: string | null | undefined): Html | string {
  if (!name) return "";
  return html`
    · signed in as ${name} <form class="inline" method="post" action="/logout"><button
    >Sign out</button></form>
  `;
}

function formatDuration(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m ${s % 60}s`;
  return `${Math.floor(s / 3600)}h ${Math.floor((s % 3600) / 60)}m`;
}
