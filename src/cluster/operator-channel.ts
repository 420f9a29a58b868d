/**
 * An operator's server actions reach every instance of a cluster. Behind a load balancer an
 * operator's `servers disable NAME` lands on one instance; without this the others would go on
 * serving the server. The action is published on the cluster's operator channel and every other
 * instance applies it as its own; disable and enable are also kept in a Redis hash, so an
 * instance that starts later lays them over its config as well. Pub/sub keeps nothing for a
 * listener that is away, so the hash is read again each time the command connection becomes
 * ready — at start, whichever of the two connections is ready first, and after every outage —
 * and a disable or enable this instance could not write while Redis was down is written then,
 * before the read, so the read does not undo it.
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

/** How long a failed read of the kept overrides waits before it is tried again. */
const RETRY_MS = 1_000;

/** One instance's end of the operator channel. */
export class OperatorChannel {
  readonly #o: OperatorChannelOptions;
  /** Disables and enables taken here that Redis has not kept yet, by server name. */
  readonly #unsent = new Map<string, ClusterOverride>();
  #catchUp: ((kept: Map<string, ClusterOverride>) => Promise<void>) | null = null;
  #reading = false;
  #again = false;
  #retry: ReturnType<typeof setTimeout> | undefined;
  #closed = false;

  constructor(options: OperatorChannelOptions) {
    this.#o = options;
  }

  get #channel(): string {
    return `${this.#o.prefix}operator`;
  }

  get #hash(): string {
    return `${this.#o.prefix}overrides`;
  }

  /**
   * Hears the other instances' actions (`apply` runs each one here) and hands `catchUp` the
   * disables and enables the cluster keeps, now and whenever the connection comes back.
   */
  async listen(
    apply: (m: OperatorMessage) => Promise<void>,
    catchUp: (kept: Map<string, ClusterOverride>) => Promise<void>,
  ): Promise<void> {
    this.#catchUp = catchUp;
    this.#o.link.command.on("ready", () => void this.#sync());
    void this.#sync();
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
    const kept: ClusterOverride | undefined = m.action === "server.restart" ? undefined : {
      enabled: m.action === "server.enable",
      by: m.by,
      at: new Date().toISOString(),
    };
    if (kept) this.#unsent.set(m.name, kept);
    try {
      await this.#send({ ...m, from: this.#o.self }, kept);
    } catch (err) {
      // Redis down: this instance has applied it; a disable or enable is written when the
      // connection is back, and the others read it then. The operator's action itself stands.
      this.#o.link.failed(err);
      this.#o.log.warn("operator channel: the other instances were not told", {
        action: m.action,
        server: m.name,
        error: String(err),
      });
    }
  }

  /**
   * Keeps `kept` (the disable or enable `message` carries) in the hash, then publishes
   * `message`; a kept override leaves the unsent ones once both are done, unless a newer one of
   * the same server took its place meanwhile.
   */
  async #send(message: OperatorMessage, kept?: ClusterOverride): Promise<void> {
    const { command } = this.#o.link;
    if (kept) await command.hset(this.#hash, message.name, JSON.stringify(kept));
    await command.publish(this.#channel, JSON.stringify(message));
    if (kept && this.#unsent.get(message.name) === kept) this.#unsent.delete(message.name);
  }

  /** Stops the catching up (the link itself is closed by its owner). */
  close(): void {
    this.#closed = true;
    clearTimeout(this.#retry);
  }

  /**
   * Writes what is unsent, then reads the kept overrides and hands them on; one run at a time
   * (a call during a run makes one more run after it), tried again after `RETRY_MS` while it
   * fails on a connection that looks ready (a command timing out under load).
   */
  async #sync(): Promise<void> {
    if (this.#closed || this.#catchUp === null || this.#o.link.degraded) return;
    if (this.#reading) {
      this.#again = true;
      return;
    }
    this.#reading = true;
    clearTimeout(this.#retry);
    let failed = false;
    try {
      for (const [name, kept] of [...this.#unsent]) {
        // Published too: instances that never lost Redis would not read the hash again.
        const action = kept.enabled ? "server.enable" : "server.disable";
        await this.#send({ action, name, by: kept.by, from: this.#o.self }, kept);
      }
      await this.#catchUp(await this.overrides());
    } catch (err) {
      failed = true;
      this.#o.link.failed(err);
      this.#o.log.warn("cluster: the kept server overrides could not be read; trying again", {
        error: String(err),
      });
    } finally {
      this.#reading = false;
    }
    if (this.#again) {
      this.#again = false;
      return this.#sync();
    }
    if (failed && !this.#closed) this.#retry = setTimeout(() => void this.#sync(), RETRY_MS);
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
