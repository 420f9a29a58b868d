/**
 * Logging pass-through. Each session keeps the level it set; the gateway sends upstream the most
 * verbose level any session asked for, and fans each upstream `notifications/message` out to
 * every session whose own level lets it through (sessions that never set one get everything) and
 * whose token reaches that server.
 * The message is tagged with its server: `logger` becomes `<server>` or `<server>/<logger>`.
 */
import { LOGGING_LEVELS, type LoggingLevel, type LogMessageParams } from "../../shared/protocol.ts";
import type { SessionLink } from "./link.ts";

const SEVERITY = new Map<string, number>(LOGGING_LEVELS.map((l, i) => [l, i]));

/** Severity rank of a level (debug = 0 … emergency = 7); unknown levels rank highest. */
export function severity(level: string): number {
  return SEVERITY.get(level) ?? SEVERITY.size;
}

/** The most verbose level any of the sessions set, if any set one. */
export function mostVerbose(sessions: Iterable<SessionLink>): LoggingLevel | undefined {
  let best: LoggingLevel | undefined;
  for (const s of sessions) {
    if (s.level !== undefined && (best === undefined || severity(s.level) < severity(best))) {
      best = s.level;
    }
  }
  return best;
}

/**
 * Delivers one upstream log message to every session that reaches `server` and whose level lets
 * it through.
 */
export function relayLog(
  sessions: Iterable<SessionLink>,
  server: string,
  params: LogMessageParams,
): void {
  const tagged = { ...params, logger: params.logger ? `${server}/${params.logger}` : server };
  const rank = severity(params.level);
  for (const s of sessions) {
    if (s.closed || (s.level !== undefined && rank < severity(s.level))) continue;
    if (!s.sees(server)) continue;
    s.notify("notifications/message", tagged);
  }
}
