/**
 * Structured logging on stderr: JSON lines, or short text lines when stderr is a terminal.
 * stdout is never written, so `--stdio` keeps a clean protocol channel. Under systemd
 * (`JOURNAL_STREAM` set) each line starts with its syslog priority (`<4>` for warn), which
 * journald strips and stores, so `journalctl -p warning` filters.
 */

import { stderrIsTerminal, writeStderr } from "../runtime/stderr.ts";
import { withoutLinkSecrets } from "./connect-link.ts";

/** Log levels, most verbose first. */
export const LOG_LEVELS = ["debug", "info", "warn", "error", "silent"] as const;
/** A log level. */
export type LogLevel = typeof LOG_LEVELS[number];

const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };
/** syslog priorities (sd-daemon(3) line prefixes): err, warning, info, debug. */
const PRIORITY: Record<Exclude<LogLevel, "silent">, number> = {
  debug: 7,
  info: 6,
  warn: 4,
  error: 3,
};

/**
 * Fields attached to a log line. Values named like secrets are redacted, and a connect link's
 * secret is taken out of any string.
 */
export type LogFields = Record<string, unknown>;

/** A logger bound to a component name. */
export interface Logger {
  debug(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
  child(component: string): Logger;
  enabled(level: LogLevel): boolean;
}

const SECRET_KEY = /token|secret|password|authorization|api[_-]?key/i;

let threshold = RANK.info;
let textMode = stderrIsTerminal();
let sink: (line: string) => void = (line) => writeStderr(line + "\n");
/** systemd connects stderr to the journal and says so in JOURNAL_STREAM. */
let journald = Boolean(process.env.JOURNAL_STREAM);

/** Sets the global level (from `--log-level`). */
export function setLogLevel(level: LogLevel): void {
  threshold = RANK[level];
}

/** Redirects log lines (tests capture them). Returns a function restoring the previous sink. */
export function setLogSink(fn: (line: string) => void, text = false): () => void {
  const [prev, prevText, prevJournald] = [sink, textMode, journald];
  sink = fn;
  textMode = text;
  journald = false;
  return () => {
    sink = prev;
    textMode = prevText;
    journald = prevJournald;
  };
}

function redact(fields: LogFields): LogFields {
  const out: LogFields = {};
  for (const [k, v] of Object.entries(fields)) {
    out[k] = SECRET_KEY.test(k) && k !== "tokenName"
      ? "[redacted]"
      : typeof v === "string"
      ? withoutLinkSecrets(v)
      : v;
  }
  return out;
}

/**
 * Writes one info line whatever the log level: records an operator asked for (the audit log's
 * journal copy) must not vanish with `--log-level warn`.
 */
export function writeRecord(component: string, msg: string, fields: LogFields): void {
  write("info", component, msg, fields, true);
}

function write(
  level: LogLevel,
  component: string,
  msg: string,
  fields?: LogFields,
  always = false,
): void {
  if ((!always && RANK[level] < threshold) || level === "silent") return;
  const extra = fields ? redact(fields) : undefined;
  msg = withoutLinkSecrets(msg);
  const priority = journald ? `<${PRIORITY[level]}>` : "";
  if (textMode) {
    const tail = extra
      ? " " + Object.entries(extra).map(([k, v]) => `${k}=${fmt(v)}`).join(" ")
      : "";
    sink(`${priority}${level.toUpperCase().padEnd(5)} [${component}] ${msg}${tail}`);
    return;
  }
  sink(
    priority + JSON.stringify({ time: new Date().toISOString(), level, component, msg, ...extra }),
  );
}

function fmt(v: unknown): string {
  return typeof v === "string" ? (/\s/.test(v) ? JSON.stringify(v) : v) : JSON.stringify(v);
}

/** Creates a logger for a component. */
export function createLogger(component: string): Logger {
  return {
    debug: (m, f) => write("debug", component, m, f),
    info: (m, f) => write("info", component, m, f),
    warn: (m, f) => write("warn", component, m, f),
    error: (m, f) => write("error", component, m, f),
    child: (sub) => createLogger(`${component}.${sub}`),
    enabled: (level) => RANK[level] >= threshold,
  };
}
