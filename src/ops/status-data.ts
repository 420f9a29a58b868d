/**
 * What the status page shows, as plain data: served as `/status.json` and rendered by the HTML
 * page, so the two never disagree. Tool counts are what clients see (after allow/deny globs and
 * `hidden` overrides), beside what the upstream offers.
 */
import { type CallRecord, type Gateway, LOCAL_CALLER } from "../gateway/mod.ts";
import { type PinStatus, pinStatusOf } from "./pins-status.ts";
import { MACRO_SERVER, type ScriptRunRecord } from "../tools/mod.ts";
import { runtimeVersion } from "../runtime/mod.ts";
import type { Upstream } from "../upstream/mod.ts";
import { authModeOf, type UpstreamAccount } from "../upstream/oauth/mod.ts";
import type { SessionInfo } from "../session/legacy/mod.ts";
import type { ServerOverride, ServerOverrides } from "./server-overrides.ts";
import { NAME, VERSION } from "../version.ts";

/** Where the snapshot reads from. */
export interface StatusSources {
  gateway: Gateway;
  recentCalls: () => readonly CallRecord[];
  /** The most recent macro and execute runs, newest first (absent: no scripting). */
  recentScripts?: () => readonly ScriptRunRecord[];
  sessions?: () => Record<string, number>;
  /** `starting`, `ready` or `draining`. */
  phase: () => string;
  startedAt: number;
  /** Cluster hook: every live instance with its upstream states (absent without a cluster). */
  instances?: readonly InstanceStatus[];
  /** The operator's overrides (`servers disable|enable`). */
  overrides?: ServerOverrides;
  /** Every open session (absent: none listed). */
  sessionList?: () => readonly SessionInfo[];
  /** The logins held to OAuth upstreams (read before: it may wait on the store). */
  accounts?: readonly UpstreamAccount[];
  /** Per-tool rates and latency over the last minutes (absent: not kept). */
  toolStats?: () => readonly ToolStatsStatus[];
}

/** One tool's calls over the last minutes, one bucket a minute, oldest first. */
export interface ToolStatsStatus {
  tool: string;
  /** Calls per minute, errors per minute, and p50/p99 latency (ms, `null`: no call). */
  calls: number[];
  errors: number[];
  p50: (number | null)[];
  p99: (number | null)[];
}

/** One live instance of a cluster. */
export interface InstanceStatus {
  id: string;
  url: string;
  phase: string;
  upstreams: readonly { name: string; state: string }[];
}

/** One upstream server as the status page shows it. */
export interface UpstreamStatus {
  name: string;
  state: string;
  transport: string;
  /**
   * Protocol era its last connection negotiated: `modern` (2026-07-28, stateless) or `legacy`
   * (2025, a session); `null` before it ever connected.
   */
  protocol: "legacy" | "modern" | null;
  /**
   * The state of its second, 2025-11-25 connection (a 2026-07-28 server that also speaks 2025
   * serves 2025 sessions over it); `null` while it has none.
   */
  legacyConnection: string | null;
  /** Tools clients can see and call (listed or discoverable; not `hidden`, not denied). */
  toolsExposed: number;
  /** Tools the upstream itself lists (its last-known list while down). */
  toolsUpstream: number;
  restarts: number;
  /** Consecutive failures, and whether the restart policy gave up after them. */
  failures: number;
  gaveUp: boolean;
  /** ISO time of the next restart while it is down and one is scheduled. */
  nextRetryAt: string | null;
  inFlight: number;
  /** Why it is down (or why it last failed); `null` when nothing failed. */
  lastError: string | null;
  /** The operator's override of the config (`servers disable|enable`), or `null`. */
  override: ServerOverride | null;
  /** The last lines a stdio server wrote to stderr (a bounded tail; empty for HTTP). */
  stderr: readonly string[];
  /**
   * `servers.<name>.oauth`: its mode and, for `per-user`, how many identities are connected
   * (a count only: never who, never a token); absent without OAuth.
   */
  oauth?: { mode: string; connected?: number };
}

/** One macro and the file (or config entry) that defines it. */
export interface MacroStatus {
  name: string;
  source: string;
  discoverable: boolean;
}

/** One profile and what its endpoint exposes (before any token's globs). */
export interface ProfileStatus {
  name: string;
  description: string;
  /** The endpoint's path (`/mcp/<name>`; `/sse/<name>` too). */
  path: string;
  exposure: "all" | "search";
  /** Tools its `tools/list` lists. */
  toolsListed: number;
  /** Tools it can find and call (listed or discoverable). */
  toolsExposed: number;
  /** Servers whose resources and prompts it serves. */
  servers: string[];
}

/** One finished operation: a tool call, a prompt get or a resource read. */
export interface CallStatus {
  at: string;
  kind: CallRecord["kind"];
  /** The tool or prompt name, or the resource URI. */
  tool: string;
  server: string | null;
  token: string | null;
  outcome: CallRecord["outcome"];
  durationMs: number;
  error: string | null;
  /** Result filters that changed or blocked the result, in order. */
  filters: readonly string[];
}

/** The whole snapshot (`/status.json`). */
export interface StatusSnapshot {
  name: string;
  version: string;
  runtime: string;
  phase: string;
  startedAt: string;
  uptimeSeconds: number;
  sessions: Record<string, number>;
  upstreams: UpstreamStatus[];
  macros: MacroStatus[];
  profiles: ProfileStatus[];
  /** Newest first. */
  calls: CallStatus[];
  /** Macro and execute runs, newest first. */
  scripts: ScriptStatus[];
  /** Servers whose declared definitions differ from their pins (`pin:`). */
  pins: PinStatus[];
  /** Cluster hook: every live instance with its upstream states (absent without a cluster). */
  instances?: readonly InstanceStatus[];
  /** Every open session, oldest first, by handle (never by id). */
  openSessions: SessionStatus[];
  /** The logins held to OAuth upstreams, with when each access token expires. */
  accounts: AccountStatus[];
  /** Per-tool calls, errors and latency, a bucket a minute. */
  toolStats: readonly ToolStatsStatus[];
}

/** One open session. */
export interface SessionStatus extends Omit<SessionInfo, "openedAt" | "lastSeen"> {
  openedAt: string;
  lastSeen: string;
}

/** One login to an OAuth upstream. */
export interface AccountStatus extends Omit<UpstreamAccount, "expiresAt"> {
  expiresAt: string | null;
}

/** One finished script run. */
export interface ScriptStatus {
  at: string;
  feature: "macro" | "execute";
  name: string;
  token: string | null;
  outcome: string;
  durationMs: number;
  /** The limit that stopped it, if one did. */
  limit: string | null;
}

/**
 * Why an upstream is down, or what last failed. The one place the page reads an upstream's
 * failure reason from, so a richer reason (a stderr tail) can be plugged in here alone.
 */
export function downReasonOf(u: Upstream): string | null {
  return u.lastError;
}

/** Every upstream as the status page shows it (and `mcp-gateway servers` lists it). */
export function upstreamStatuses(gateway: Gateway, overrides?: ServerOverrides): UpstreamStatus[] {
  const exposed = new Map<string, number>();
  for (const e of gateway.catalog.tools) {
    if (!e.hidden) exposed.set(e.server, (exposed.get(e.server) ?? 0) + 1);
  }
  const connected = gateway.upstreamAuth.userCounts();
  return gateway.pool.all().map((u): UpstreamStatus => {
    const retry = u.nextRetryAt;
    return {
      name: u.name,
      state: u.state,
      transport: u.kind ?? u.config.kind,
      protocol: u.era,
      legacyConnection: u.legacySide?.state ?? null,
      toolsExposed: exposed.get(u.name) ?? 0,
      toolsUpstream: u.catalog.tools.length,
      restarts: u.restarts,
      failures: u.failures,
      gaveUp: u.gaveUp,
      nextRetryAt: retry === null ? null : new Date(retry).toISOString(),
      inFlight: u.inFlight,
      lastError: downReasonOf(u),
      override: overrides?.get(u.name) ?? null,
      stderr: u.stderrTail,
      ...oauthOf(u, connected),
    };
  });
}

/** Open sessions with ISO times. */
export function sessionStatuses(list: readonly SessionInfo[]): SessionStatus[] {
  return list.map((v) => ({
    ...v,
    openedAt: new Date(v.openedAt).toISOString(),
    lastSeen: new Date(v.lastSeen).toISOString(),
  }));
}

/** Logins to OAuth upstreams with ISO expiry times. */
export function accountStatuses(list: readonly UpstreamAccount[]): AccountStatus[] {
  return list.map((a) => ({
    ...a,
    expiresAt: a.expiresAt === null ? null : new Date(a.expiresAt).toISOString(),
  }));
}

/** The status as of now. */
export function statusSnapshot(s: StatusSources): StatusSnapshot {
  const upstreams = upstreamStatuses(s.gateway, s.overrides);
  const macros = s.gateway.localTools()
    .filter((t) => t.server === MACRO_SERVER)
    .map((t): MacroStatus => ({
      name: t.tool.name,
      source: t.origin ?? "",
      discoverable: t.discoverable,
    }));
  const profiles = s.gateway.config.profiles.map((p): ProfileStatus => {
    const caller = { ...LOCAL_CALLER, profile: p.name };
    return {
      name: p.name,
      description: p.description,
      path: `/mcp/${p.name}`,
      exposure: p.exposure,
      toolsListed: s.gateway.listTools(caller).length,
      toolsExposed: s.gateway.visibleTools(caller).length,
      servers: [...s.gateway.serversOf(caller) ?? []].sort(),
    };
  });
  const calls = s.recentCalls().map((c): CallStatus => ({
    at: new Date(c.at).toISOString(),
    kind: c.kind,
    tool: c.name,
    server: c.server,
    token: c.tokenName,
    outcome: c.outcome,
    durationMs: Math.round(c.durationMs * 1000) / 1000,
    error: c.error ?? null,
    filters: c.filters ?? [],
  }));
  const scripts = (s.recentScripts?.() ?? []).map((r): ScriptStatus => ({
    at: new Date(r.at).toISOString(),
    feature: r.feature,
    name: r.name,
    token: r.tokenName,
    outcome: r.outcome,
    durationMs: Math.round(r.durationMs * 1000) / 1000,
    limit: r.limit ?? null,
  }));
  const now = Date.now();
  return {
    name: NAME,
    version: VERSION,
    runtime: runtimeVersion(),
    phase: s.phase(),
    startedAt: new Date(s.startedAt).toISOString(),
    uptimeSeconds: Math.floor((now - s.startedAt) / 1000),
    sessions: s.sessions?.() ?? {},
    upstreams,
    macros,
    profiles,
    calls,
    scripts,
    pins: pinStatusOf(s.gateway),
    ...(s.instances ? { instances: s.instances } : {}),
    openSessions: sessionStatuses(s.sessionList?.() ?? []),
    accounts: accountStatuses(s.accounts ?? []),
    toolStats: s.toolStats?.() ?? [],
  };
}

/** The `oauth` field of an upstream's status. */
function oauthOf(u: Upstream, connected: Record<string, number>): Pick<UpstreamStatus, "oauth"> {
  const mode = authModeOf(u.config);
  return mode ? { oauth: mode.statusRow(connected[u.name] ?? 0) } : {};
}
