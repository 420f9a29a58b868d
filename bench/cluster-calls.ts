/**
 * What sharing the call rate through Redis costs a call (`bun bench/cluster-calls.ts`): the
 * call gate's take from a bucket in this process against the same take from the cluster's
 * shared bucket (one Lua script run in a real `redis-server` on loopback, one round trip), one
 * call at a time (latency) and eight at once (what a busy gateway sees), and the CPU this
 * process spends per shared take. Needs `redis-server` on PATH; stops it by PID at the end.
 * Bounded: a fixed count of takes per row.
 */
import { cpuUsage } from "node:process";
import { LocalBuckets, SharedRateLimiter } from "../src/cluster/limits.ts";
import { RedisLink } from "../src/cluster/redis.ts";
import { createLogger } from "../src/shared/log.ts";
import { freePort, startRedis, until } from "../test/cluster/_cluster.ts";

const TAKES = 4_000;
/** A rate nobody reaches here: every take is admitted, as on a gateway under its limit. */
const RATE = { perMinute: 1e9, burst: 1e9 };

interface Row {
  name: string;
  usPerTake: number;
  cpuUsPerTake: number;
}

async function row(
  name: string,
  take: (key: string) => Promise<unknown>,
  parallel: number,
): Promise<Row> {
  for (let i = 0; i < 200; i++) await take("warm"); // JIT and connection warm-up
  const cpu0 = cpuUsage();
  const t0 = performance.now();
  let next = 0;
  await Promise.all(Array.from({ length: parallel }, async () => {
    while (next < TAKES) {
      next++;
      await take("bench");
    }
  }));
  const ms = performance.now() - t0;
  const cpu = cpuUsage(cpu0);
  return {
    name,
    usPerTake: Math.round((ms * 1000) / TAKES * 10) / 10,
    cpuUsPerTake: Math.round(((cpu.user + cpu.system) / TAKES) * 10) / 10,
  };
}

async function main(): Promise<void> {
  const port = await freePort();
  const redis = await startRedis(port);
  const link = new RedisLink({
    url: `redis://127.0.0.1:${port}`,
    timeoutMs: 2_000,
    log: createLogger("bench"),
  });
  try {
    await until(() => !link.degraded, 10_000, "the Redis link");
    const shared = new SharedRateLimiter(link, "mcpgw:bench:");
    const local = new LocalBuckets();
    const rows = [
      await row("in process, 1 at a time", (k) => local.take(k, RATE), 1),
      await row("Redis, 1 at a time", (k) => shared.take(k, RATE), 1),
      await row("Redis, 8 at once", (k) => shared.take(k, RATE), 8),
    ];
    if (link.degraded) throw new Error("the Redis link degraded during the run");
    console.log("| take of one call | wall µs per take | this process's CPU µs per take |");
    console.log("| --- | ---: | ---: |");
    for (const r of rows) console.log(`| ${r.name} | ${r.usPerTake} | ${r.cpuUsPerTake} |`);
  } finally {
    await link.close();
    await redis.kill();
  }
}

await main();
