/**
 * The pinning part of the status snapshot and page: every server whose declared tools, prompts,
 * resources or resource templates differ from what was approved, with a field-by-field diff and, for an admin, the
 * button that approves them (`POST /pins/approve`, the same approval as `mcp-gateway approve`).
 */
import { html } from "hono/html";
import type { Gateway } from "../gateway/mod.ts";

/** One changed definition as shown. */
export interface PinChangeStatus {
  kind: "tool" | "prompt" | "resource" | "template";
  name: string;
  /** `repeated`: the server declares the name more than once. */
  status: "changed" | "new" | "repeated";
  approvedAt: string;
  /** Each differing path with its approved and declared values as (cut) JSON text. */
  diff: { path: string; before: string | null; after: string | null }[];
}

/** One server with definitions that differ from its pins. */
export interface PinStatus {
  server: string;
  /** The opaque key of the user whose connection declares them (a per-user server). */
  user?: string;
  mode: "warn" | "quarantine";
  changes: PinChangeStatus[];
  /** Approved names it no longer declares (`tool lookup`). */
  removed: string[];
}

/** How much of a value a diff shows. */
const VALUE_MAX = 400;

/** The pins part of a snapshot. */
export function pinStatusOf(gateway: Gateway): PinStatus[] {
  return gateway.pins.status().map((s) => ({
    server: s.server,
    ...(s.user === undefined ? {} : { user: s.user }),
    mode: s.mode,
    changes: s.changes.map((c) => ({
      kind: c.kind,
      name: c.name,
      status: c.status,
      approvedAt: c.approvedAt,
      diff: c.diff.map((d) => ({
        path: d.path,
        before: shown(d.before),
        after: shown(d.after),
      })),
    })),
    removed: s.removed.map((r) => `${r.kind} ${r.name}`),
  }));
}

function shown(v: unknown): string | null {
  if (v === undefined) return null;
  const text = JSON.stringify(v);
  return text.length > VALUE_MAX ? `${text.slice(0, VALUE_MAX)}…` : text;
}

type Html = ReturnType<typeof html>;

/** The "Changed definitions" section; nothing when every server matches its pins. */
export function renderPins(pins: readonly PinStatus[]): Html | string {
  if (pins.length === 0) return "";
  return html`
    <h2>Changed definitions</h2>
    <table id="pins">
      <thead>
        <tr>
          <th>Server</th>
          <th>Definition</th>
          <th>Differences</th>
          <th></th>
        </tr>
      </thead>
      <tbody>
    ${pins.map((p) =>
      html`
        <tr data-pins="${p.server}">
          <td data-label="Server"
            class="name">${p.server}${p.user === undefined ? "" : html`
              (user ${p.user.slice(0, 8)})
            `} <span class="state ${p.mode ===
                "quarantine"
              ? "error"
              : "tool_error"}">${p.mode}</span></td>
          <td data-label="Definition" class="name">${p.changes.map((c) =>
            html`
              <div>${c.kind} ${c.name} (${c.status}, approved ${c.approvedAt.slice(0, 10)})</div>
            `
          )}${p.removed.map((r) =>
            html`
              <div>${r} (no longer declared)</div>
            `
          )}</td>
          <td data-label="Differences" class="err">${p.changes.map((c) =>
            c.diff.map((d) =>
              html`
                <div>${c.name}.${d.path}: ${d.before ?? "(none)"} → ${d.after ?? "(none)"}</div>
              `
            )
          )}</td>
          <td>
            <form class="inline" method="post" action="/pins/approve"><input type="hidden"
          name="server" value="${p.server}">${p.user === undefined
            ? ""
            : html`<input type="hidden" name="user" value="${p.user}">`}<button>Approve</button></form>
          </td>
        </tr>
      `
    )}
      </tbody>
    </table>
  `;
}
