/**
 * Credentials in the cluster's Redis (`gateway.cluster`): the same sealed boxes as the file
 * store (AES-256-GCM under `gateway.secrets.key`, which every instance must share), one key per
 * slot, so any instance serves any user after one login. Loaded only with a cluster.
 */
import type { Redis } from "ioredis";
import { GatewayError, messageOf } from "../../shared/errors.ts";
import type { CredentialStore, StoredCredential } from "./store.ts";
import type { SealedBox, Vault } from "./vault.ts";

const PREFIX = "mcpgw:cred:";
/** Where every write and removal is announced: `{ slot, from }` (`from`: the writing store). */
const CHANGED = "mcpgw:cred:changed";

/** The Redis store: `mcpgw:cred:<slot>` → a sealed box (JSON). */
export class RedisCredentialStore implements CredentialStore {
  #redis: Redis;
  #vault: Vault;
  /** This store's own id: its announcements are not news to itself. */
  #id = crypto.randomUUID();
  #subscriber: Redis | undefined;

  constructor(redis: Redis, vault: Vault) {
    this.#redis = redis;
    this.#vault = vault;
  }

  async read(slot: string): Promise<StoredCredential | undefined> {
    const text = await this.#do("read", () => this.#redis.get(PREFIX + slot));
    if (text === null) return undefined;
    return await this.#vault.open(slot, JSON.parse(text) as SealedBox) as StoredCredential;
  }

  async write(slot: string, credential: StoredCredential): Promise<void> {
    const box = JSON.stringify(await this.#vault.seal(slot, credential));
    await this.#do("write", () => this.#redis.set(PREFIX + slot, box));
    await this.#announce(slot);
  }

  async remove(slot: string): Promise<void> {
    await this.#do("remove", () => this.#redis.del(PREFIX + slot));
    await this.#announce(slot);
  }

  /**
   * Calls `changed` with the slot of every credential another instance writes or removes (a
   * login, a refresh, a disconnect), on a connection of its own (a subscribed Redis connection
   * takes no other commands). Closed by {@link close}.
   */
  async watch(changed: (slot: string) => void): Promise<void> {
    const sub = this.#subscriber = this.#redis.duplicate();
    sub.on("message", (_channel: string, message: string) => {
      const slot = slotOf(message, this.#id);
      if (slot !== null) changed(slot);
    });
    await this.#do("watch", () => sub.subscribe(CHANGED));
  }

  /** Ends the watching connection. */
  async close(): Promise<void> {
    const sub = this.#subscriber;
    if (sub) await sub.quit().catch(() => sub.disconnect());
  }

  async #announce(slot: string): Promise<void> {
    // The write stands without it: other instances then see it at their next read of the slot.
    await this.#redis.publish(CHANGED, JSON.stringify({ slot, from: this.#id })).catch(() => {});
  }

  async lock(slot: string, ttlMs: number): Promise<(() => Promise<void>) | null> {
    const key = `${PREFIX}lock:${slot}`;
    const owner = crypto.randomUUID();
    const got = await this.#do("lock", () => this.#redis.set(key, owner, "PX", ttlMs, "NX"));
    if (got !== "OK") return null;
    return async () => {
      // Released only by its owner (the lock may have expired and been taken since).
      await this.#redis.eval(
        'if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) end',
        1,
        key,
        owner,
      ).catch(() => {});
    };
  }

  async #do<T>(what: string, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (err) {
      throw new GatewayError(
        "UPSTREAM_UNAVAILABLE",
        `cannot ${what} an upstream credential in Redis: ${messageOf(err)}`,
      );
    }
  }
}

/** The slot an announcement names, or `null` (our own, or not one). */
function slotOf(message: string, own: string): string | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(message);
  } catch {
    return null;
  }
  const { slot, from } = (parsed ?? {}) as { slot?: unknown; from?: unknown };
  return typeof slot === "string" && from !== own ? slot : null;
}

/** A connection for the store (closed with the gateway). */
export async function connectRedis(url: string, timeoutMs: number): Promise<Redis> {
  const { Redis } = await import("ioredis");
  return new Redis(url, {
    connectTimeout: timeoutMs,
    maxRetriesPerRequest: 2,
    retryStrategy: (times: number) => Math.min(100 * times, 1000),
  });
}
