/**
 * The operator's side of a served gateway: the status page and `/status.json`, `/metrics`, the
 * admin API, and the actions behind the console's buttons and the command line's verbs — built
 * from the parts `serve` owns (the session registry, the journals, the reload queue).
 */
import type { GatewayConfig } from "../config/mod.ts";
import type { Gateway } from "../gateway/mod.ts";
import { adminRoutes, type AppEnv, statusRoutes, type StatusSessions } from "../http/mod.ts";
import {
  accountStatuses,
  type AuditLog,
  type CallJournal,
  OperatorControl,
  PROMETHEUS_CONTENT_TYPE,
  renderActionProblem,
  renderLoginPage,
  renderStatusPage,
  type ScriptJournal,
  type ServerOverrides,
  sessionStatuses,
  statusSnapshot,
  type ToolStats,
  upstreamStatuses,
} from "../ops/mod.ts";
import type { SessionRegistry } from "../session/legacy/mod.ts";
import type { Cluster } from "../cluster/mod.ts";
import type { Logger } from "../shared/log.ts";
import type { Hono } from "hono";

/** What the operator routes are built from. */
export interface OperatorParts {
  gateway: Gateway;
  sessions: SessionRegistry;
  statusSessions: StatusSessions;
  journal: CallJournal;
  scriptJournal: ScriptJournal;
  toolStats: ToolStats;
  metrics: { render(): string };
  cluster: Cluster | null;
  phase: () => string;
  startedAt: number;
  overrides: ServerOverrides;
  reload: (trigger: string, read?: () => GatewayConfig) => Promise<boolean>;
  audit: AuditLog | null;
  log: Logger;
}

/** The status and admin routes of a served gateway. */
export function operatorRoutes(p: OperatorParts): (app: Hono<AppEnv>) => void {
  const { gateway, cluster } = p;
  const control = new OperatorControl({
    gateway,
    overrides: p.overrides,
    apply: (trigger, next) => p.reload(trigger, next),
    ...(cluster ? { cluster: cluster.operator } : {}),
    sessions: p.sessions,
    audit: p.audit,
    log: p.log,
  });
  if (cluster) void followCluster(cluster, control, p);
  const sources = {
    gateway,
    recentCalls: () => p.journal.recent(),
    recentScripts: () => p.scriptJournal.recent(),
    sessions: () => p.sessions.counts(),
    sessionList: () => p.sessions.list(),
    toolStats: () => p.toolStats.snapshot(),
    overrides: p.overrides,
    phase: p.phase,
    startedAt: p.startedAt,
  };
  const status = statusRoutes({
    gateway,
    sessions: p.statusSessions,
    metrics: {
      render: () => p.metrics.render() + (cluster?.metrics() ?? ""),
      contentType: PROMETHEUS_CONTENT_TYPE,
    },
    ...(cluster ? { cluster: () => cluster.status() } : {}),
    snapshot: async () =>
      statusSnapshot({
        ...sources,
        accounts: await gateway.upstreamAuth.accounts(),
        ...(cluster ? { instances: await cluster.membership.list() } : {}),
      }),
    page: async (snapshot, signedInAs) => String(await renderStatusPage(snapshot, { signedInAs })),
    loginPage: async (problem) => String(await renderLoginPage(problem)),
  });
  const admin = adminRoutes({
    gateway,
    actions: control,
    servers: () => upstreamStatuses(gateway, p.overrides),
    sessions: () => sessionStatuses(p.sessions.list()),
    accounts: async () => accountStatuses(await gateway.upstreamAuth.accounts()),
    problemPage: async (message) => String(await renderActionProblem(message)),
  });
  return (app) => {
    status(app);
    admin(app);
  };
}

/**
 * Applies the server actions other instances take, as they are taken, and the disables and
 * enables the cluster kept while this instance was not there or could not hear (at start and
 * after every outage of Redis).
 */
async function followCluster(
  cluster: Cluster,
  control: OperatorControl,
  p: OperatorParts,
): Promise<void> {
  const actor = (by: string | null) => ({ tokenName: by, via: "cluster" as const });
  await cluster.operator.listen(
    (m) =>
      m.action === "server.restart"
        ? control.restart(m.name, actor(m.by))
        : control.setEnabled(m.name, m.action === "server.enable", actor(m.by)),
    async (kept) => {
      for (const [name, o] of kept) {
        const server = p.gateway.config.servers.find((s) => s.name === name);
        if (!server || server.enabled === o.enabled) continue;
        await control.setEnabled(name, o.enabled, actor(o.by)).catch((err) =>
          p.log.warn("cluster: a kept server override could not be applied", {
            server: name,
            error: String(err),
          })
        );
      }
    },
  );
}
