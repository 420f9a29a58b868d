/**
 * @module Several instances behind a balancer: shared per-token rate limits, the MRTR relay and
 * membership, all through one Redis (`gateway.cluster.redis`). Without that key nothing here is
 * started and every instance keeps its state in-process.
 */
export { Cluster } from "./cluster.ts";
export type { ClusterSelf } from "./cluster.ts";
export { LocalBuckets, SharedRateLimiter } from "./limits.ts";
export type { BucketRate, BucketStore, TakeResult } from "./limits.ts";
export type { InstanceCard } from "./membership.ts";
export type { RelayIdentity, RelayServe } from "./relay.ts";
