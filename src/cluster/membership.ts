/**
 * Who is in the cluster: every instance writes its card (URL, phase, upstream states) to a key
 * that expires after three heartbeats, so a killed instance drops out within that time without
 * anyone having to notice. Listing reads every card; while Redis is unreachable the list holds
 * this instance alone, marked degraded.
 */
import type { RedisLink } from "./redis.ts";

/** One instance as the status endpoints show it. */
export interface InstanceCard {
  readonly id: string;
  readonly url: string;
  readonly pid: number;
  readonly startedAt: number;
  /** When the card was written. */
  readonly at: number;
  readonly phase: string;
  readonly upstreams: readonly { readonly name: string; readonly state: string }[];
}

/** Options of {@link Membership}. */
export interface MembershipOptions {
  link: RedisLink;
  prefix: string;
  heartbeatMs: number;
  /** This instance's card as of now. */
  card: () => InstanceCard;
}

/** The heartbeat and the list of live instances. */
export class Membership {
  readonly #o: MembershipOptions;
  #timer: ReturnType<typeof setInterval> | undefined;

  constructor(options: MembershipOptions) {
    this.#o = options;
  }

  #key(id: string): string {
    return `${this.#o.prefix}member:${id}`;
  }

  /** Starts heartbeating (the first beat at once, and again whenever Redis comes back). */
  start(): void {
    void this.beat();
    this.#timer = setInterval(() => void this.beat(), this.#o.heartbeatMs);
    this.#o.link.command.on("ready", () => void this.beat());
  }

  /** Writes this instance's card once. */
  async beat(): Promise<void> {
    if (this.#o.link.degraded) return;
    const card = this.#o.card();
    try {
      await this.#o.link.command.set(
        this.#key(card.id),
        JSON.stringify(card),
        "PX",
        this.#o.heartbeatMs * 3,
      );
    } catch (err) {
      this.#o.link.failed(err);
    }
  }

  /** True while `id`'s card has not expired (false when Redis cannot tell). */
  async alive(id: string): Promise<boolean> {
    try {
      return (await this.#o.link.command.exists(this.#key(id))) === 1;
    } catch (err) {
      this.#o.link.failed(err);
      return false;
    }
  }

  /** Every live instance, this one first. */
  async list(): Promise<InstanceCard[]> {
    const self = this.#o.card();
    if (this.#o.link.degraded) return [self];
    try {
      const keys: string[] = [];
      let cursor = "0";
      for (let i = 0; i < 100; i++) {
        const [next, found] = await this.#o.link.command.scan(
          cursor,
          "MATCH",
          `${this.#o.prefix}member:*`,
          "COUNT",
          200,
        );
        keys.push(...found);
        cursor = next;
        if (cursor === "0") break;
      }
      const values = keys.length > 0 ? await this.#o.link.command.mget(...keys) : [];
      const others = values
        .filter((v): v is string => typeof v === "string")
        .map((v) => JSON.parse(v) as InstanceCard)
        .filter((c) => c.id !== self.id)
        .sort((a, b) => a.id.localeCompare(b.id));
      return [self, ...others];
    } catch (err) {
      this.#o.link.failed(err);
      return [self];
    }
  }

  /** Stops heartbeating and removes the card (a clean stop leaves at once). */
  async stop(): Promise<void> {
    clearInterval(this.#timer);
    if (this.#o.link.degraded) return;
    await this.#o.link.command.del(this.#key(this.#o.card().id)).catch(() => {});
  }
}
