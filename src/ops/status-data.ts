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
  /** Tools clients can see and call (listed or discoverable; not `hidden`, not denied). */
  toolsExposed: number;
  /** Tools the upstream itself lists (its last-known list while down). */
  toolsUpstream: number;
  restarts: number;
  inFlight: number;
  /** Why it is down (or why it last failed); `null` when nothing failed. */
  lastError: string | null;
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

/** One finished call. */
export interface CallStatus {
  at: string;
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

/** The status as of now. */
export function statusSnapshot(s: StatusSources): StatusSnapshot {
  const exposed = new Map<string, number>();
  for (const e of s.gateway.catalog.tools) {
    if (!e.hidden) exposed.set(e.server, (exposed.get(e.server) ?? 0) + 1);
  }
  const connected = s.gateway.upstreamAuth.userCounts();
  const upstreams = s.gateway.pool.all().map((u): UpstreamStatus => ({
    name: u.name,
    state: u.state,
    transport: u.kind ?? u.config.kind,
    protocol: u.era,
    toolsExposed: exposed.get(u.name) ?? 0,
    toolsUpstream: u.catalog.tools.length,
    restarts: u.restarts,
    inFlight: u.inFlight,
    lastError: downReasonOf(u),
    ...oauthOf(u, connected),
  }));
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
  };
}

/** The `oauth` field of an upstream's status. */
function oauthOf(u: Upstream, connected: Record<string, number>): Pick<UpstreamStatus, "oauth"> {
  const c = u.config;
  if (c.kind !== "http" || c.oauth === null) return {};
  const mode = c.oauth.mode;
  return { oauth: mode === "per-user" ? { mode, connected: connected[u.name] ?? 0 } : { mode } };
}
