/**
 * The running gateway's controls on the command line, through its admin API (like `login`):
 * `servers` (each server's state, reason, restarts, next retry, tools, calls in flight and the
 * operator's override), `servers restart|disable|enable|logs NAME`, `sessions`, `sessions end
 * HANDLE`, and `logout SERVER` for a shared OAuth login. `--json` prints what the gateway
 * answered. Every action is written to the gateway's audit log under the token's name.
 */
import type { SessionStatus, UpstreamStatus } from "../ops/status-data.ts";
import { GatewayError } from "../shared/errors.ts";
import { gatewayClient } from "./gateway-client.ts";

/** Options every verb takes. */
export interface AdminOptions {
  url: string | null;
  json: boolean;
}

/** Each server action, and how its result is said. */
const SERVER_ACTIONS: ReadonlyMap<string, string> = new Map([
  ["restart", "restarted"],
  ["disable", "disabled"],
  ["enable", "enabled"],
]);

/** `servers [restart|disable|enable|logs NAME]`. */
export async function serversCommand(
  configFile: string,
  args: readonly string[],
  options: AdminOptions,
): Promise<number> {
  const gw = await gatewayClient(configFile, options.url);
  const [verb, name] = args;
  if (verb === undefined) {
    const { servers } = await gw.ask("/admin/servers") as { servers: UpstreamStatus[] };
    print(options, servers, () => serverTable(servers));
    return 0;
  }
  if (name === undefined) {
    throw new GatewayError("USAGE", `usage: mcp-gateway servers ${verb} NAME`);
  }
  const path = `/admin/servers/${encodeURIComponent(name)}`;
  if (verb === "logs") {
    const { lines } = await gw.ask(`${path}/logs`) as { lines: string[] };
    print(options, lines, () => lines.length === 0 ? `${name}: no stderr lines kept\n` : lines);
    return 0;
  }
  const done = SERVER_ACTIONS.get(verb);
  if (done === undefined) {
    throw new GatewayError(
      "USAGE",
      `servers: unknown action "${verb}" (expected restart, disable, enable or logs)`,
    );
  }
  const answer = await gw.ask(`${path}/${verb}`, { method: "POST" }) as {
    server: UpstreamStatus;
  };
  print(options, answer, () => `${name}: ${done}; now ${stateText(answer.server)}\n`);
  return 0;
}

/** `sessions [end HANDLE]`. */
export async function sessionsCommand(
  configFile: string,
  args: readonly string[],
  options: AdminOptions,
): Promise<number> {
  const gw = await gatewayClient(configFile, options.url);
  const [verb, handle] = args;
  if (verb === undefined) {
    const { sessions } = await gw.ask("/admin/sessions") as { sessions: SessionStatus[] };
    print(options, sessions, () =>
      table(
        ["SESSION", "KIND", "TOKEN", "PROFILE", "OPENED", "LAST SEEN", "IN FLIGHT", "STREAMS"],
        sessions.map((s) => [
          s.handle,
          s.kind,
          s.tokenName ?? "-",
          s.profile ?? "-",
          s.openedAt,
          s.lastSeen,
          String(s.inFlight),
          String(s.streams),
        ]),
        "no open sessions",
      ));
    return 0;
  }
  if (verb !== "end" || handle === undefined) {
    throw new GatewayError("USAGE", "usage: mcp-gateway sessions [end SESSION]");
  }
  const answer = await gw.ask(`/admin/sessions/${encodeURIComponent(handle)}/end`, {
    method: "POST",
  });
  print(options, answer, () => `session ${handle} ended\n`);
  return 0;
}

/** `logout SERVER [--identity ID]`: the shared login, or one identity's per-user account. */
export async function logoutCommand(
  configFile: string,
  server: string,
  identity: string | null,
  options: AdminOptions,
): Promise<number> {
  const gw = await gatewayClient(configFile, options.url);
  const answer = await gw.ask(`/admin/oauth/${encodeURIComponent(server)}/logout`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(identity === null ? {} : { identity }),
  });
  print(
    options,
    answer,
    () => `${server}: logged out${identity === null ? "" : ` (${identity})`}\n`,
  );
  return 0;
}

function serverTable(servers: readonly UpstreamStatus[]): string {
  return table(
    ["SERVER", "STATE", "TOOLS", "RESTARTS", "IN FLIGHT", "NEXT RETRY", "OVERRIDE", "REASON"],
    servers.map((s) => [
      s.name,
      s.gaveUp ? `${s.state} (gave up)` : s.state,
      s.toolsExposed === s.toolsUpstream
        ? String(s.toolsExposed)
        : `${s.toolsExposed}/${s.toolsUpstream}`,
      String(s.restarts),
      String(s.inFlight),
      s.nextRetryAt ?? "-",
      s.override
        ? `${s.override.enabled ? "enabled" : "disabled"} by ${s.override.by ?? "-"}`
        : "-",
      s.lastError ?? "",
    ]),
    "no servers configured",
  );
}

function stateText(s: UpstreamStatus): string {
  return s.lastError && s.state !== "up" ? `${s.state}: ${s.lastError}` : s.state;
}

/** Columns padded to their widest cell; the last column is not padded. */
function table(head: string[], rows: string[][], empty: string): string {
  if (rows.length === 0) return `${empty}\n`;
  const all = [head, ...rows];
  const widths = head.map((_, i) => Math.max(...all.map((r) => (r[i] ?? "").length)));
  return all.map((r) =>
    r.map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i]!))).join("  ")
      .trimEnd()
  ).join("\n") + "\n";
}

function print(options: AdminOptions, data: unknown, text: () => string | string[]): void {
  if (options.json) {
    process.stdout.write(JSON.stringify(data, null, 2) + "\n");
    return;
  }
  const out = text();
  process.stdout.write(Array.isArray(out) ? out.join("\n") + "\n" : out);
}
