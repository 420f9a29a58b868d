/**
 * One audit record from one finished operation: who (token name, a short hash of the session),
 * what (kind, name, server, era), how it ended, how long and how large, and the arguments as
 * `gateway.audit.args` says. Token values never reach a record: every configured token is cut
 * out of the finished line, whatever the arguments or an error message carried.
 */
import { hmacSha256, toHex } from "../../runtime/hash.ts";
import type { AuditConfig } from "../../config/mod.ts";
import { type CallRecord, canonicalJson } from "../../gateway/mod.ts";
import { rawJsonOf } from "../../shared/raw-json.ts";
import { sessionHandle } from "../../shared/session-handle.ts";

/** What building a record needs besides the operation. */
export interface RecordContext {
  readonly args: AuditConfig["args"];
  /** Key of the argument hashes (`args: hash`). */
  readonly key: () => Buffer;
  /** Every configured token value now. */
  readonly secrets: () => readonly string[];
}

/** Keys whose values `args: redacted` replaces. */
const SECRET_KEY = /token|secret|passw|authorization|api[_-]?key|cookie|credential|private/i;
/** Longest string `args: redacted` keeps. */
const STRING_MAX = 256;
/** What stands for a token value cut out of a line. */
const REDACTED_TOKEN = "[redacted:token]";

/** The JSON line (without newline) for one operation. */
export function auditLine(call: CallRecord, ctx: RecordContext): string {
  const record: Record<string, unknown> = {
    time: new Date(call.at).toISOString(),
    kind: call.kind,
    name: call.name,
    server: call.server,
    tokenName: call.tokenName,
    session: call.sessionId === null ? null : sessionHandle(call.sessionId),
    era: call.era,
    ...(call.scriptDepth > 0 ? { scriptDepth: call.scriptDepth } : {}),
    ...argsOf(call.args, ctx),
    outcome: call.outcome,
    ...(call.code === undefined ? {} : { code: call.code }),
    ...(call.error === undefined ? {} : { error: call.error }),
    durationMs: Math.round(call.durationMs * 1000) / 1000,
    bytes: bytesOf(call.result),
    filters: call.filters,
  };
  return scrub(JSON.stringify(record), ctx.secrets());
}

/** An operator's action on the running gateway (restart, disable, end a session, …). */
export interface AdminAction {
  /** `server.restart`, `server.disable`, `server.enable`, `session.end`, `oauth.logout`, … */
  readonly action: string;
  /** What it acted on: a server name, a session handle. */
  readonly target: string;
  /** The admin token that asked (`null`: auth off). */
  readonly tokenName: string | null;
  /** `api` (a bearer token: the command line) or `console` (the status page's cookie). */
  /** `cluster`: taken on another instance of the cluster and applied here. */
  readonly via: "api" | "console" | "cluster";
  readonly outcome: "ok" | "error";
  readonly error?: string;
  readonly at: number;
  /** What else the action names (the identity logged out, the tools approved). */
  readonly detail?: Record<string, unknown>;
}

/** The JSON line (without newline) for one admin action: kind `admin`, and who did it. */
export function actionLine(a: AdminAction, secrets: readonly string[]): string {
  const record: Record<string, unknown> = {
    ...(a.detail ?? {}),
    // After the detail: no detail may stand in for what was done or who did it.
    time: new Date(a.at).toISOString(),
    kind: "admin",
    action: a.action,
    target: a.target,
    tokenName: a.tokenName,
    via: a.via,
    outcome: a.outcome,
    ...(a.error === undefined ? {} : { error: a.error }),
  };
  return scrub(JSON.stringify(record), secrets);
}

function argsOf(args: unknown, ctx: RecordContext): Record<string, unknown> {
  if (args === undefined || ctx.args === "none") return {};
  switch (ctx.args) {
    case "hash":
      // Keyed: a plain hash of a short argument could be found by trying candidates.
      return {
        argsHash: `hmac-sha256:${toHex(hmacSha256(ctx.key(), canonicalJson(args)))}`,
      };
    case "redacted":
      return { args: redact(args, 0) };
    case "full":
      return { args };
  }
}

function redact(value: unknown, depth: number): unknown {
  if (typeof value === "string") {
    return value.length > STRING_MAX
      ? `${value.slice(0, STRING_MAX)}…[${value.length} chars]`
      : value;
  }
  if (value === null || typeof value !== "object") return value;
  if (depth >= 8) return "[nested]";
  if (Array.isArray(value)) return value.map((v) => redact(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    out[k] = SECRET_KEY.test(k) ? "[redacted]" : redact(v, depth + 1);
  }
  return out;
}

/** UTF-8 size of the answer as JSON (the text it arrived as, when kept). */
function bytesOf(result: unknown): number | null {
  if (result === undefined) return null;
  const raw = rawJsonOf(result);
  return Buffer.byteLength(raw ?? JSON.stringify(result) ?? "", "utf8");
}

/** `line` with every secret (as written, and as escaped inside JSON strings) cut out. */
export function scrub(line: string, secrets: readonly string[]): string {
  let out = line;
  for (const s of secrets) {
    if (s.length === 0) continue;
    for (const form of new Set([s, JSON.stringify(s).slice(1, -1)])) {
      if (out.includes(form)) out = out.split(form).join(REDACTED_TOKEN);
    }
  }
  return out;
}
