/**
 * An operator's server actions reach every instance of a cluster. Behind a load balancer an
 * operator's `servers disable NAME` lands on one instance; without this the others would go on
 * serving the server. The action is published on the cluster's operator channel and every other
 * instance applies it as its own; disable and enable are also kept in a Redis hash, so an
 * instance that starts (or comes back) later lays them over its config as well.
 */
import type { Logger } from "../shared/log.ts";
import type { RedisLink } from "./redis.ts";

/** A server action one instance took and every other applies. */
export interface OperatorMessage {
  action: "server.disable" | "server.enable" | "server.restart";
  /** The server's configured name. */
  name: string;
  /** The admin token that took it on the first instance (`null`: auth off). */
  by: string | null;
  /** The instance that took it. */
  from: string;
}

/** A disable or enable kept for instances that join later. */
export interface ClusterOverride {
  enabled: boolean;
  by: string | null;
  at: string;
}

/** What the channel is built from. */
export interface OperatorChannelOptions {
  link: RedisLink;
  prefix: string;
  /** This instance's id: its own messages come back to it and are skipped. */
  self: string;
  log: Logger;
}

const ACTIONS = new Set<OperatorMessage["action"]>([
  "server.disable",
  "server.enable",
  "server.restart",
]);

/** One instance's end of the operator channel. */
export class OperatorChannel {
  readonly #o: OperatorChannelOptions;

  constructor(options: OperatorChannelOptions) {
    this.#o = options;
  }

  get #channel(): string {
    return `${this.#o.prefix}operator`;
  }

  get #hash(): string {
    return `${this.#o.prefix}overrides`;
  }

  /** Hears the other instances' actions; `apply` runs each one here. */
  async listen(apply: (m: OperatorMessage) => Promise<void>): Promise<void> {
    const sub = this.#o.link.subscriber;
    sub.on("message", (channel: string, raw: string) => {
      if (channel !== this.#channel) return;
      const m = parseMessage(raw);
      if (!m) {
        this.#o.log.warn("operator channel: a message of another shape was skipped");
        return;
      }
      if (m.from === this.#o.self) return;
      apply(m).catch((err) =>
        this.#o.log.warn("operator channel: applying an action failed", {
          action: m.action,
          server: m.name,
          from: m.from,
          error: String(err),
        })
      );
    });
    await sub.subscribe(this.#channel).catch((err) => this.#o.link.failed(err));
  }

  /** Tells every other instance; a disable or enable is kept for instances that join later. */
  async publish(m: Omit<OperatorMessage, "from">): Promise<void> {
    const message: OperatorMessage = { ...m, from: this.#o.self };
    const { command } = this.#o.link;
    try {
      if (m.action !== "server.restart") {
        const kept: ClusterOverride = {
          enabled: m.action === "server.enable",
          by: m.by,
          at: new Date().toISOString(),
        };
        await command.hset(this.#hash, m.name, JSON.stringify(kept));
      }
      await command.publish(this.#channel, JSON.stringify(message));
    } catch (err) {
      // Redis down: this instance has applied it; the others hear of it at their next reload
      // of the hash (start or rejoin). The operator's action itself stands.
      this.#o.link.failed(err);
      this.#o.log.warn("operator channel: the other instances were not told", {
        action: m.action,
        server: m.name,
        error: String(err),
      });
    }
  }

  /** The disables and enables kept in the cluster, by server name. */
  async overrides(): Promise<Map<string, ClusterOverride>> {
    const out = new Map<string, ClusterOverride>();
    const all = await this.#o.link.command.hgetall(this.#hash);
    for (const [name, raw] of Object.entries(all)) {
      try {
        const o = JSON.parse(raw) as Partial<ClusterOverride>;
        if (typeof o.enabled !== "boolean") continue;
        out.set(name, {
          enabled: o.enabled,
          by: typeof o.by === "string" ? o.by : null,
          at: typeof o.at === "string" ? o.at : "",
        });
      } catch {
        // Another shape: skipped, as a message of another shape is.
      }
    }
    return out;
  }
}

function parseMessage(raw: string): OperatorMessage | null {
  try {
    const m = JSON.parse(raw) as Partial<OperatorMessage>;
    if (
      typeof m.name !== "string" || typeof m.from !== "string" ||
      !ACTIONS.has(m.action as OperatorMessage["action"]) ||
      (m.by !== null && typeof m.by !== "string")
    ) return null;
    return { action: m.action!, name: m.name, by: m.by ?? null, from: m.from };
  } catch {
    return null;
  }
}
