/**
 * One instance's membership of a cluster: the Redis link, the shared rate limiters, the MRTR
 * relay and the heartbeat, started and stopped together. Nothing here blocks start-up on
 * Redis: an instance whose Redis is down starts degraded and joins when Redis answers.
 */
import { hostname } from "node:os";
import type { ClusterConfig } from "../config/mod.ts";
import { hmacSha256, randomBytes, toHex } from "../runtime/hash.ts";
import type { Logger } from "../shared/log.ts";
import { SharedRateLimiter } from "./limits.ts";
import { type InstanceCard, Membership } from "./membership.ts";
import { OperatorChannel } from "./operator-channel.ts";
import { RedisLink } from "./redis.ts";
import { Relay } from "./relay.ts";

/** Keys and channels of one deployment start with this. */
const PREFIX = "mcpgw:";

/** What the instance tells the cluster about itself. */
export interface ClusterSelf {
  /** URL other instances and the status endpoints show. */
  url: string;
  phase: () => string;
  upstreams: () => { name: string; state: string }[];
  startedAt: number;
}

/** A running cluster membership. */
export class Cluster {
  readonly id: string;
  readonly link: RedisLink;
  /** Per-token request rates (the security chain's). */
  readonly limiter: SharedRateLimiter;
  /** Per-token call rates (the call gate's): batch items and script calls count here. */
  readonly callLimiter: SharedRateLimiter;
  readonly membership: Membership;
  readonly relay: Relay;
  /** Operator server actions, taken on one instance and applied on all. */
  readonly operator: OperatorChannel;
  /** HMAC key for MRTR `requestState`, the same on every instance. */
  readonly stateKey: string;

  constructor(config: ClusterConfig, self: ClusterSelf, log: Logger) {
    this.id = config.instance ?? defaultInstanceId();
    this.link = new RedisLink({ url: config.redisUrl, timeoutMs: config.timeoutMs, log });
    this.limiter = new SharedRateLimiter(this.link, PREFIX);
    // Another key space than the requests' (`mcpgw:rate:`), so no token name reaches the other.
    this.callLimiter = new SharedRateLimiter(this.link, `${PREFIX}calls:`);
    const card = (): InstanceCard => ({
      id: this.id,
      url: self.url,
      pid: process.pid,
      startedAt: self.startedAt,
      at: Date.now(),
      phase: self.phase(),
      upstreams: self.upstreams(),
    });
    this.membership = new Membership({
      link: this.link,
      prefix: PREFIX,
      heartbeatMs: config.heartbeatMs,
      card,
    });
    this.relay = new Relay({
      link: this.link,
      prefix: PREFIX,
      self: this.id,
      membership: this.membership,
      log,
      maxWaitMs: 10 * 60_000,
    });
    this.operator = new OperatorChannel({ link: this.link, prefix: PREFIX, self: this.id, log });
    this.stateKey = config.stateKey ?? deriveStateKey(config.redisUrl);
    if (!config.stateKey && !new URL(config.redisUrl).password) {
      log.warn(
        "gateway.cluster.stateKey is not set and the Redis URL has no password: requestState " +
          "is sealed with a key derived from a public URL; set stateKey",
      );
    }
  }

  /** Subscribes and starts the heartbeat; never waits for an unreachable Redis. */
  start(): void {
    void this.relay.start();
    this.membership.start();
  }

  /** JSON for `GET /cluster`. */
  async status(): Promise<Record<string, unknown>> {
    return {
      self: this.id,
      degraded: this.link.degraded,
      instances: await this.membership.list(),
    };
  }

  /** Prometheus lines for this instance's `/metrics`. */
  metrics(): string {
    const c = this.relay.counts;
    return this.link.metrics() + [
      "# HELP mcp_gateway_cluster_relayed_total MRTR continuations relayed, by side and outcome.",
      "# TYPE mcp_gateway_cluster_relayed_total counter",
      `mcp_gateway_cluster_relayed_total{side="forwarded"} ${c.forwarded}`,
      `mcp_gateway_cluster_relayed_total{side="served"} ${c.served}`,
      `mcp_gateway_cluster_relayed_total{side="owner_gone"} ${c.ownerGone}`,
      "",
    ].join("\n");
  }

  async stop(): Promise<void> {
    this.relay.close();
    this.operator.close();
    await this.membership.stop();
    await this.link.close();
  }
}

/** Host name and process id, plus a few random characters so a restart is a new member. */
function defaultInstanceId(): string {
  const host = hostname().replace(/[^A-Za-z0-9_-]/g, "-").slice(0, 40) || "host";
  return `${host}-${process.pid}-${toHex(randomBytes(2))}`;
}

/** A key every instance derives alike from the Redis URL (which carries its password). */
function deriveStateKey(url: string): string {
  return toHex(hmacSha256("mcp-gateway requestState", url));
}
