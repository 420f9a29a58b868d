/**
 * The console's sections that act: open sessions (each with an End button) and the logins held
 * to OAuth upstreams (who, until when, with Disconnect), plus the small pieces every section
 * shares — a form button that posts to the admin API, and a time with its date and zone.
 * Every button is a plain form post: it works without JavaScript, and the admin API checks that
 * it came from this page (same origin).
 */
import { html } from "hono/html";
import { htmlPage } from "./html-page.ts";
import type { AccountStatus, SessionStatus } from "./status-data.ts";

type Html = ReturnType<typeof html>;

/** A button posting an empty form to `action` (an admin route); `confirm` names the effect. */
export function actionButton(action: string, label: string, hidden: Record<string, string> = {}) {
  return html`
    <form class="inline act" method="post"
      action="${action}">${Object.entries(hidden).map(([k, v]) =>
        html`<input type="hidden" name="${k}" value="${v}">`
      )}<button>${label}</button></form>
  `;
}

/** An ISO time as `2026-12-05 03:10:22 UTC` (milliseconds too with `precise`). */
export function when(iso: string, precise = false): Html {
  const shown = `${iso.slice(0, 10)} ${iso.slice(11, precise ? 23 : 19)} UTC`;
  return html`<time datetime="${iso}">${shown}</time>`;
}

/** The "Sessions" section: every open session by handle, oldest first. */
export function renderSessions(list: readonly SessionStatus[], limit = 100): Html {
  const shown = list.slice(0, limit);
  return html`
    <h2>Sessions</h2>
    <table id="sessions">
      <thead>
        <tr>
          <th>Session</th>
          <th>Kind</th>
          <th>Token</th>
          <th>Profile</th>
          <th>Opened</th>
          <th>Last seen</th>
          <th>Busy</th>
          <th></th>
        </tr>
      </thead>
      <tbody>
    ${shown.length === 0
      ? html`
        <tr>
          <td colspan="8" class="empty">no open sessions</td>
        </tr>
      `
      : shown.map((s) =>
        html`
          <tr data-session="${s.handle}">
            <td data-label="Session" class="name mono">${s.handle}</td>
            <td data-label="Kind">${s.kind}</td>
            <td data-label="Token" class="name">${s.tokenName ?? ""}</td>
            <td data-label="Profile" class="name">${s.profile ?? ""}</td>
            <td data-label="Opened">${when(s.openedAt)}</td>
            <td data-label="Last seen">${when(s.lastSeen)}</td>
            <td data-label="Busy" class="num">${s.inFlight} requests, ${s.streams} streams</td>
            <td>${actionButton(`/admin/sessions/${encodeURIComponent(s.handle)}/end`, "End")}</td>
          </tr>
        `
      )}
      </tbody>
    </table>
    ${list.length > limit
      ? html`<p class="meta">${
        list.length - limit
      } more: <code>mcp-gateway sessions</code> lists all.</p>`
      : ""}
  `;
}

/** The "Upstream logins" section, or nothing when no server uses OAuth. */
export function renderAccounts(list: readonly AccountStatus[]): Html | string {
  if (list.length === 0) return "";
  return html`
    <h2>Upstream logins</h2>
    <table id="accounts">
      <thead>
        <tr>
          <th>Server</th>
          <th>Identity</th>
          <th>State</th>
          <th>Token expires</th>
          <th></th>
        </tr>
      </thead>
      <tbody>
    ${list.map((a) =>
      html`
        <tr data-account="${a.server}">
          <td data-label="Server" class="name">${a.server}</td>
          <td data-label="Identity" class="name">${a.identity ?? "(shared login)"}</td>
          <td data-label="State">${a.needsLogin === null
            ? html`<span class="state up">logged in</span>`
            : html`<span class="state needs-login">needs login</span> <span class="err">${a.needsLogin}</span>`}</td>
          <td data-label="Token expires">${a.expiresAt ? when(a.expiresAt) : "–"}${a.refreshes
            ? " (renews itself)"
            : ""}</td>
          <td>${a.needsLogin === null
            ? actionButton(
              `/admin/oauth/${encodeURIComponent(a.server)}/logout`,
              "Disconnect",
              a.identity === null ? {} : { identity: a.identity },
            )
            : a.identity === null
            ? html`<a class="connect" href="/oauth/connect/${
              encodeURIComponent(a.server)
            }">Connect</a>`
            : ""}</td>
        </tr>
      `
    )}
      </tbody>
    </table>
  `;
}

/**
 * The page a console button gets when its action is refused or fails: what went wrong, and the
 * way back (a form post cannot show a JSON error to the operator).
 */
export function renderProblemPage(message: string, style: string): Html {
  return htmlPage(
    "Not done",
    style,
    html`
      <h1>Not done</h1>
      <p class="err" role="alert">${message}</p>
      <p><a href="/">Back to the console</a></p>
    `,
  );
}
