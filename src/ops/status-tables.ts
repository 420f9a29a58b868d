/**
 * The status page's reading-only tables of the config and the cluster: the profiles and what
 * each endpoint exposes, and the live instances of a cluster with their upstreams' states.
 */
import { html } from "hono/html";
import type { StatusSnapshot } from "./status-data.ts";

type Html = ReturnType<typeof html>;

/** The "Instances" section (a cluster's live members). */
export function renderInstances(list: NonNullable<StatusSnapshot["instances"]>): Html {
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

/** The "Profiles" section. */
export function renderProfiles(list: StatusSnapshot["profiles"]): Html {
  return html`
    <h2>Profiles</h2>
    <table id="profiles">
      <thead>
        <tr>
          <th>Endpoint</th>
          <th>Description</th>
          <th>Exposure</th>
          <th>Listed</th>
          <th>Exposed</th>
          <th>Servers</th>
        </tr>
      </thead>
      <tbody>
    ${list.map((p) =>
      html`
        <tr data-profile="${p.name}">
          <td data-label="Endpoint" class="name">${p.path}</td>
          <td data-label="Description">${p.description}</td>
          <td data-label="Exposure">${p.exposure}</td>
          <td data-label="Listed">${p.toolsListed}</td>
          <td data-label="Exposed">${p.toolsExposed}</td>
          <td data-label="Servers" class="name">${p.servers.join(", ")}</td>
        </tr>
      `
    )}
      </tbody>
    </table>
  `;
}
