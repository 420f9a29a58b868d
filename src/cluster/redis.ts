/**
 * The connection to the Redis every instance shares, and the degraded state that follows it.
 * Two ioredis connections: one for commands (no offline queue, a short command timeout, so a
 * dead Redis fails a command within `timeoutMs` instead of holding a request) and one for
 * pub/sub (it re-subscribes by itself after a reconnect). Both retry forever in the background;
 * while the command connection is not ready the link is *degraded*: callers go local, the state
 * is logged once per change and exported as a gauge.
 */
import { Redis } from "ioredis";
import type { Logger } from "../shared/log.ts";

/** Options of {@link RedisLink}. */
export interface RedisLinkOptions {
  url: string;
  timeoutMs: number;
  log: Logger;
}

/** Both connections and the degraded state. */
export class RedisLink {
  readonly command: Redis;
  readonly subscriber: Redis;
  readonly #log: Logger;
  #degraded = true;
  #degradedSince = Date.now();
  #transitions = 0;
  #errors = 0;
  #lastError = "";
  #closed = false;

  constructor(options: RedisLinkOptions) {
    this.#log = options.log;
    const common = {
      connectTimeout: options.timeoutMs,
      // Reconnect forever, never faster than every 100 ms nor slower than every 1 s.
      retryStrategy: (times: number) => Math.min(100 * times, 1000),
      lazyConnect: false,
    };
    this.command = new Redis(options.url, {
      ...common,
      commandTimeout: options.timeoutMs,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      connectionName: "mcp-gateway",
    });
    this.subscriber = new Redis(options.url, {
      ...common,
      maxRetriesPerRequest: null,
      connectionName: "mcp-gateway-sub",
    });
    this.command.on("ready", () => this.#set(false));
    this.command.on("close", () => this.#set(true));
    for (const conn of [this.command, this.subscriber]) {
      conn.on("error", (err: Error) => {
        this.#errors++;
        this.#lastError = err.message;
      });
    }
  }

  /** True while Redis cannot be used: callers fall back to local state. */
  get degraded(): boolean {
    return this.#degraded;
  }

  /** Records a failed command (a timeout on a live-looking connection counts too). */
  failed(err: unknown): void {
    this.#errors++;
    this.#lastError = err instanceof Error ? err.message : String(err);
  }

  #set(degraded: boolean): void {
    if (this.#closed || degraded === this.#degraded) return;
    this.#degraded = degraded;
    this.#transitions++;
    if (degraded) {
      this.#degradedSince = Date.now();
      this.#log.warn("redis unreachable: serving with local limits until it returns", {
        error: this.#lastError || undefined,
      });
    } else {
      this.#log.info("redis reachable: shared state in use", {
        afterMs: Date.now() - this.#degradedSince,
      });
    }
  }

  /** Prometheus lines for the link (appended to this instance's `/metrics`). */
  metrics(): string {
    return [
      "# HELP mcp_gateway_cluster_degraded 1 while Redis is unreachable and limits are local.",
      "# TYPE mcp_gateway_cluster_degraded gauge",
      `mcp_gateway_cluster_degraded ${this.#degraded ? 1 : 0}`,
      "# HELP mcp_gateway_cluster_transitions_total Changes between degraded and joined.",
      "# TYPE mcp_gateway_cluster_transitions_total counter",
      `mcp_gateway_cluster_transitions_total ${this.#transitions}`,
      "# HELP mcp_gateway_cluster_redis_errors_total Redis errors and timeouts seen.",
      "# TYPE mcp_gateway_cluster_redis_errors_total counter",
      `mcp_gateway_cluster_redis_errors_total ${this.#errors}`,
      "",
    ].join("\n");
  }

  /** Closes both connections (no reconnect afterwards). */
  async close(): Promise<void> {
    this.#closed = true;
    this.command.disconnect();
    this.subscriber.disconnect();
    await Promise.resolve();
  }
}
