/**
 * What an operator may do to the running gateway — restart, disable or enable a server, end a
 * session, log out of an OAuth upstream, approve pinned definitions — in one place, so every
 * road to it (the admin API the command line uses, the console's forms) is checked the same way
 * and every action, done or refused, is written to the audit log and the log with who took it.
 */
import type { GatewayConfig } from "../config/mod.ts";
import type { Gateway } from "../gateway/mod.ts";
import { GatewayError, messageOf } from "../shared/errors.ts";
import type { SessionInfo } from "../session/legacy/mod.ts";
import type { Logger } from "../shared/log.ts";
import type { AdminAction, AuditLog } from "./audit/mod.ts";
import type { ServerOverrides } from "./server-overrides.ts";

/** Who asked for an action, and through which road. */
export interface Actor {
  tokenName: string | null;
  via: AdminAction["via"];
}

/** A server action as the other instances of a cluster hear it. */
export interface ClusterServerAction {
  action: "server.disable" | "server.enable" | "server.restart";
  name: string;
  by: string | null;
}

/** What the actions reach. */
export interface ControlSources {
  gateway: Gateway;
  overrides: ServerOverrides;
  /** Applies `next()` through the reload queue (never beside a reload that is running). */
  apply: (trigger: string, next: () => GatewayConfig) => Promise<boolean>;
  sessions: { list(): SessionInfo[]; end(handle: string): SessionInfo | null };
  /** Tells the other instances of a cluster about a server action taken here. */
  cluster?: { publish(m: ClusterServerAction): Promise<void> };
  /** The audit log (`gateway.audit`); absent: actions go to the log alone. */
  audit: AuditLog | null;
  log: Logger;
}

/** The operator's actions on one running gateway. */
export class OperatorControl {
  readonly #s: ControlSources;

  constructor(sources: ControlSources) {
    this.#s = sources;
  }

  /** Drops server `name`'s connection and starts it afresh now (even after it gave up). */
  restart(name: string, actor: Actor): Promise<void> {
    return this.#act("server.restart", name, actor, async () => {
      this.#server(name);
      if (!this.#s.gateway.pool.get(name)?.config.enabled) {
        throw new GatewayError("USAGE", `server "${name}" is disabled: enable it instead`);
      }
      await this.#s.gateway.pool.restart(name);
    }).then(() => this.#tellCluster("server.restart", name, actor));
  }

  /**
   * Disables server `name` (its process stops, its tools leave every list with `list_changed`)
   * or enables it again; kept as an override across reloads and restarts.
   */
  setEnabled(name: string, enabled: boolean, actor: Actor): Promise<void> {
    const action = enabled ? "server.enable" : "server.disable";
    return this.#act(action, name, actor, async () => {
      this.#server(name);
      const { overrides } = this.#s;
      overrides.set(name, enabled, actor.tokenName);
      if (!await this.#s.apply(action, () => overrides.current())) {
        throw new GatewayError("INTERNAL", `applying the override of server "${name}" failed`);
      }
    }).then(() => this.#tellCluster(action, name, actor));
  }

  /** An action taken here reaches the other instances; one heard from them goes no further. */
  async #tellCluster(
    action: ClusterServerAction["action"],
    name: string,
    actor: Actor,
  ): Promise<void> {
    if (actor.via !== "cluster") {
      await this.#s.cluster?.publish({ action, name, by: actor.tokenName });
    }
  }

  /** Ends the session `handle` names. */
  endSession(handle: string, actor: Actor): Promise<void> {
    return this.#act("session.end", handle, actor, () => {
      const ended = this.#s.sessions.end(handle);
      if (!ended) throw new GatewayError("RESOURCE_NOT_FOUND", `no open session "${handle}"`);
      return Promise.resolve({ sessionToken: ended.tokenName, sessionKind: ended.kind });
    });
  }

  /**
   * Logs the gateway out of OAuth upstream `server`: its shared login, or `identity`'s account
   * on a per-user server.
   */
  logout(server: string, identity: string | null, actor: Actor): Promise<void> {
    const detail = identity === null ? undefined : { identity };
    return this.#act("oauth.logout", server, actor, async () => {
      this.#server(server);
      if (!await this.#s.gateway.upstreamAuth.logout(server, identity)) {
        throw new GatewayError(
          "RESOURCE_NOT_FOUND",
          identity === null
            ? `server "${server}" has no shared login (servers.${server}.oauth mode shared)`
            : `server "${server}" holds no account of "${identity}"`,
        );
      }
      return detail;
    });
  }

  /**
   * Approves what `server` declares now (all, or `tools`), as `mcp-gateway approve` does; for a
   * per-user server, what the connection of the user with key `user` declares.
   */
  approve(
    server: string,
    tools: readonly string[],
    actor: Actor,
    user?: string,
  ): Promise<unknown> {
    let approval: unknown;
    return this.#act("pins.approve", server, actor, () => {
      this.#server(server);
      approval = this.#s.gateway.pins.approve(server, tools, user);
      const detail = {
        ...(tools.length > 0 ? { tools: [...tools] } : {}),
        ...(user ? { user } : {}),
      };
      return Promise.resolve(Object.keys(detail).length > 0 ? detail : undefined);
    }).then(() => approval);
  }

  /** Throws `RESOURCE_NOT_FOUND` unless `name` is a configured server. */
  #server(name: string): void {
    if (!this.#s.gateway.config.servers.some((s) => s.name === name)) {
      throw new GatewayError("RESOURCE_NOT_FOUND", `no server "${name}" is configured`);
    }
  }

  async #act(
    action: string,
    target: string,
    actor: Actor,
    run: () => Promise<Record<string, unknown> | void | undefined>,
  ): Promise<void> {
    let detail: Record<string, unknown> | undefined;
    let error: unknown;
    try {
      detail = (await run()) ?? undefined;
    } catch (err) {
      error = err;
    }
    const record: AdminAction = {
      action,
      target,
      tokenName: actor.tokenName,
      via: actor.via,
      outcome: error === undefined ? "ok" : "error",
      ...(error === undefined ? {} : { error: messageOf(error) }),
      at: Date.now(),
      ...(detail ? { detail } : {}),
    };
    this.#s.audit?.recordAction(record);
    const fields = { ...detail, action, target, tokenName: actor.tokenName, via: actor.via };
    if (error === undefined) this.#s.log.info("admin action", fields);
    else {
      this.#s.log.warn("admin action failed", { ...fields, error: messageOf(error) });
      throw error;
    }
  }
}
