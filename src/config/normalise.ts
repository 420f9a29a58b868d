/**
 * Turns a validated {@link RawConfig} into the frozen {@link GatewayConfig}: defaults applied,
 * durations in ms, sizes in bytes, paths absolute. Cross-field rules live here.
 */
import { isAbsolute, join, resolve } from "node:path";
import { defaultStateDir } from "../state/mod.ts";
import type { RawConfig, RawServer } from "./schema.ts";
import { duplicateTokenProblems } from "./tokens.ts";
import type { GatewayConfig, InlineMacroConfig, PinMode, ServerConfig } from "./types.ts";
import { isolationOf } from "./isolation.ts";
import { parseDuration, parseSize } from "./units.ts";
import { normaliseOAuth } from "./oauth.ts";
import { normaliseUpstreamOAuth, perUserProblems } from "./upstream-oauth.ts";
import { filtersOf, sandboxOf } from "./sandbox.ts";
import { normaliseProfiles } from "./profiles.ts";

/** A cross-field problem, located by its YAML path. */
export interface NormaliseProblem {
  path: (string | number)[];
  message: string;
}

/** What normalising needs from outside the parsed tree. */
export interface NormaliseContext {
  /** Variables no stdio server may inherit (they hold or name a secret of the gateway's). */
  withheldEnv?: readonly string[];
  /** `$STATE_DIRECTORY` (systemd's `StateDirectory=`): the default state folder. */
  stateDirectory?: string | undefined;
}

const DEFAULT_LISTEN = "127.0.0.1:8787";
/** Browser origins allowed by default: pages served from this machine. */
const DEFAULT_ORIGINS = ["http://localhost:*", "http://127.0.0.1:*", "http://[::1]:*"];

/** Applies defaults and units; collects cross-field problems instead of throwing. */
export function normaliseConfig(
  raw: RawConfig,
  dir: string,
  file: string,
  context: NormaliseContext = {},
): { config: GatewayConfig; problems: NormaliseProblem[] } {
  const problems: NormaliseProblem[] = [];
  const g = raw.gateway ?? {};
  const [host, port] = splitListen(g.listen ?? DEFAULT_LISTEN);
  const separator = g.separator ?? "__";
  const pin = g.pin ?? "warn";
  const state = g.state === undefined
    ? defaultStateDir(dir, { STATE_DIRECTORY: context.stateDirectory })
    : abs(dir, g.state);
  const servers: ServerConfig[] = [];
  for (const [name, s] of Object.entries(raw.servers ?? {})) {
    const server = normaliseServer(
      name,
      s,
      dir,
      problems,
      context.withheldEnv ?? [],
      g,
      pin,
      state,
    );
    if (server) servers.push(server);
    if (name.includes(separator)) {
      problems.push({
        path: ["servers", name],
        message: `server name must not contain the separator "${separator}"`,
      });
    }
  }
  if (g.auth?.tokens) problems.push(...duplicateTokenProblems(g.auth.tokens));
  const sc = raw.scripting ?? {};
  const limits = sc.limits ?? {};
  const tools: InlineMacroConfig[] = [];
  for (const [name, t] of Object.entries(sc.tools ?? {})) {
    if ((t.lua === undefined) === (t.file === undefined)) {
      problems.push({
        path: ["scripting", "tools", name],
        message: "expected exactly one of lua or file",
      });
    }
    tools.push({
      name,
      description: t.description,
      params: t.params ?? {},
      keywords: t.keywords ?? [],
      discoverable: t.discoverable ?? false,
      lua: t.lua ?? null,
      file: t.file === undefined ? null : abs(dir, t.file),
    });
  }
  if (g.cors && g.allowedOrigins) {
    // One list: CORS must answer exactly the origins the origin check lets through.
    problems.push({
      path: ["gateway", "allowedOrigins"],
      message: "with gateway.cors set, list browser origins once, in gateway.cors.origins " +
        "(the allowlist of both the origin check and CORS)",
    });
  }
  if (g.auth && g.auth.tokens === undefined && g.auth.oauth === undefined) {
    problems.push({ path: ["gateway", "auth"], message: "expected tokens, oauth, or both" });
  }
  const vfs: Record<string, string> = { "/source": dir };
  for (const [mount, path] of Object.entries(sc.vfs ?? {})) vfs[mount] = abs(dir, path);
  const config: GatewayConfig = {
    file,
    dir,
    gateway: {
      host,
      port,
      separator,
      exposure: g.exposure ?? "all",
      unprefixedCalls: g.unprefixedCalls ?? true,
      streamAnswers: g.streamAnswers ?? false,
      tokens: g.auth
        ? (g.auth.tokens ?? []).map((t) => ({
          name: t.name,
          token: t.token,
          tools: t.tools ?? null,
          admin: t.admin ?? false,
          profiles: t.profiles ?? null,
        }))
        : null,
      rateLimit: g.auth?.rateLimit
        ? {
          perMinute: g.auth.rateLimit.perMinute,
          burst: g.auth.rateLimit.burst ?? g.auth.rateLimit.perMinute,
          concurrency: g.auth.rateLimit.concurrency ?? null,
        }
        : null,
      oauth: normaliseOAuth(g.auth?.oauth, problems),
      allowedOrigins: g.cors?.origins ?? g.allowedOrigins ?? DEFAULT_ORIGINS,
      cors: g.cors
        ? {
          credentials: g.cors.credentials ?? false,
          maxAgeS: Math.round(ms(g.cors.maxAge, 10 * 60_000) / 1000),
        }
        : null,
      // null: the HTTP layer picks loopback names plus the listen host (it knows --listen).
      allowedHosts: g.allowedHosts ?? null,
      requestBodyBytes: size(g.limits?.requestBody, 32 * 1024 ** 2),
      maxSessions: g.limits?.sessions ?? 1000,
      maxSessionsPerToken: sessionsPerToken(g.limits?.sessions ?? 1000, g.limits?.sessionsPerToken),
      maxBatch: g.limits?.batch ?? 50,
      streamBufferBytes: size(g.limits?.streamBuffer, 4 * 1024 ** 2),
      maxTasksPerToken: g.limits?.tasksPerToken ?? 1000,
      sessionIdleMs: ms(g.limits?.sessionIdle, 30 * 60_000),
      sessionIdleShortMs: ms(g.limits?.sessionIdleShort, 2 * 60_000),
      drainTimeoutMs: ms(g.drainTimeout, 10_000),
      publicUrl: g.publicUrl?.replace(/\/+$/, "") ?? null,
      secretsKey: g.secrets?.key ?? null,
      startWaitMs: ms(g.startWait, 2_000),
      telemetry: g.telemetry
        ? {
          otlp: g.telemetry.otlp,
          serviceName: g.telemetry.serviceName ?? "mcp-gateway",
          headers: { ...g.telemetry.headers },
          flushMs: ms(g.telemetry.flush, 1000),
        }
        : null,
      cluster: g.cluster
        ? {
          redisUrl: g.cluster.redis,
          timeoutMs: ms(g.cluster.timeout, 500),
          stateKey: g.cluster.stateKey ?? null,
          instance: g.cluster.instance ?? null,
          advertise: g.cluster.advertise ?? null,
          heartbeatMs: ms(g.cluster.heartbeat, 2000),
        }
        : null,
      state,
      pin,
      audit: g.audit
        ? {
          file: g.audit.file !== undefined
            ? abs(dir, g.audit.file)
            : g.audit.journal
            ? null
            : join(state, "audit.jsonl"),
          args: g.audit.args ?? "hash",
          maxBytes: size(g.audit.maxSize, 64 * 1024 ** 2),
          keep: g.audit.keep ?? 5,
          journal: g.audit.journal ?? false,
        }
        : null,
    },
    servers,
    profiles: normaliseProfiles(raw, problems),
    discovery: {
      embeddings: raw.discovery?.embeddings
        ? {
          url: raw.discovery.embeddings.url,
          model: raw.discovery.embeddings.model,
          apiKey: raw.discovery.embeddings.apiKey ?? null,
          timeoutMs: ms(raw.discovery.embeddings.timeout, 5_000),
        }
        : null,
    },
    scripting: {
      macrosDir: sc.macros === null ? null : abs(dir, sc.macros ?? "./macros"),
      execute: sc.execute ?? true,
      vfs,
      limits: {
        timeoutMs: ms(limits.timeout, 30_000),
        memoryBytes: size(limits.memory, 64 * 1024 ** 2),
        transferBytes: size(limits.transfer, 16 * 1024 ** 2),
        pictures: limits.pictures ?? 16,
        workers: limits.workers ?? 2,
        workersPerToken: limits.workersPerToken ?? null,
      },
      tools,
    },
  };
  perUserProblems(config, problems);
  return { config: deepFreeze(config), problems };
}

function normaliseServer(
  name: string,
  s: RawServer,
  dir: string,
  problems: NormaliseProblem[],
  withheldEnv: readonly string[],
  g: NonNullable<RawConfig["gateway"]>,
  pin: PinMode,
  state: string,
): ServerConfig | undefined {
  const common = {
    name,
    timeoutMs: ms(s.timeout, 60_000),
    connectTimeoutMs: ms(s.connectTimeout, 15_000),
    allow: s.tools?.allow ?? [],
    deny: s.tools?.deny ?? [],
    overrides: s.tools?.overrides ?? {},
    prefix: s.prefix ?? true,
    discoverable: s.discoverable ?? false,
    required: s.required ?? false,
    enabled: s.enabled ?? true,
    restart: {
      initialDelayMs: ms(s.restart?.initialDelay, 500),
      maxDelayMs: ms(s.restart?.maxDelay, 30_000),
      resetAfterMs: ms(s.restart?.resetAfter, 60_000),
      maxRestarts: s.restart?.maxRestarts ?? null,
    },
    ...isolationOf(name, s, dir, problems),
    protocol: s.protocol ?? "auto",
    apps: s.apps ?? "auto",
    filters: filtersOf(s, g.filters, dir),
    pin: s.pin ?? pin,
  };

  const path = ["servers", name];
  if (s.command !== undefined && s.url !== undefined) {
    problems.push({ path, message: "expected either command (stdio) or url (HTTP), not both" });
    return undefined;
  }
  if (s.command !== undefined) {
    for (const key of ["headers", "transport", "oauth"] as const) {
      if (s[key] !== undefined) {
        problems.push({ path: [...path, key], message: `${key} applies to url servers only` });
      }
    }
    return {
      ...common,
      kind: "stdio",
      // A relative command with a slash (./bin/server) is relative to the config file.
      command: s.command.includes("/") ? abs(dir, s.command) : s.command,
      args: s.args ?? [],
      env: s.env ?? {},
      cwd: abs(dir, s.cwd ?? "."),
      inheritEnv: s.inheritEnv ?? false,
      withheldEnv,
      sandbox: sandboxOf(name, s, g.sandbox, dir, state, process.env.HOME, problems),
    };
  }
  if (s.url !== undefined) {
    const oauth = normaliseUpstreamOAuth(s.oauth, [...path, "oauth"], problems);
    for (const key of ["args", "env", "cwd", "inheritEnv", "sandbox"] as const) {
      if (s[key] !== undefined) {
        problems.push({ path: [...path, key], message: `${key} applies to command servers only` });
      }
    }
    if (s.protocol === "modern" && s.transport === "sse") {
      problems.push({
        path: [...path, "protocol"],
        message: "protocol: modern needs streamable HTTP; transport: sse speaks the 2025 wire only",
      });
    }
    if (!/^https?:\/\//.test(s.url)) {
      problems.push({ path: [...path, "url"], message: "expected an http(s) URL" });
    }
    return {
      ...common,
      kind: "http",
      url: s.url,
      headers: s.headers ?? {},
      transport: s.transport ?? "auto",
      oauth,
    };
  }
  problems.push({ path, message: "expected command (stdio server) or url (HTTP server)" });
  return undefined;
}

/** Splits `host:port` / `[::1]:port`. */
export function splitListen(listen: string): [string, number] {
  const i = listen.lastIndexOf(":");
  const host = listen.slice(0, i).replace(/^\[(.*)\]$/, "$1");
  return [host, Number(listen.slice(i + 1))];
}

/** One token's share of the session table: explicit, or a quarter of it (at least 1). */
function sessionsPerToken(sessions: number, explicit: number | undefined): number {
  return Math.min(sessions, explicit ?? Math.max(1, Math.floor(sessions / 4)));
}

function abs(dir: string, p: string): string {
  return isAbsolute(p) ? p : resolve(dir, p);
}

function ms(v: string | undefined, fallback: number): number {
  return v === undefined ? fallback : parseDuration(v) ?? fallback;
}

function size(v: string | number | undefined, fallback: number): number {
  return v === undefined ? fallback : parseSize(v) ?? fallback;
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === "object") {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}
