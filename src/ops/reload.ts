/**
 * Config reload: read and validate the file, apply it as a diff (only added, removed or changed
 * upstreams start or stop; sessions stay and hear `list_changed`), or keep the running config
 * and log why. Reloads are serialised: a SIGHUP during a file-change reload waits its turn.
 */
import type { GatewayConfig } from "../config/mod.ts";
import type { Gateway } from "../gateway/mod.ts";
import { messageOf } from "../shared/errors.ts";
import type { Logger } from "../shared/log.ts";

/** What {@link createReloader} needs. */
export interface ReloaderOptions {
  gateway: Gateway;
  /** Reads and validates the config file; throws on an invalid one. */
  read: () => GatewayConfig | Promise<GatewayConfig>;
  log: Logger;
  /** True when `--listen` overrides the config (then a changed `gateway.listen` is moot). */
  listenOverridden: boolean;
  /** Told the result of every reload (metrics). */
  onResult?: (applied: boolean) => void;
}

/**
 * Returns `reload(trigger, read?)`, resolving true when a new config was applied. `read`
 * replaces reading the file for this turn (an operator's override applied to the running
 * config), queued like any reload so the two never interleave.
 */
export function createReloader(
  opts: ReloaderOptions,
): (trigger: string, read?: () => GatewayConfig | Promise<GatewayConfig>) => Promise<boolean> {
  let queue: Promise<unknown> = Promise.resolve();
  return (trigger, read = opts.read) => {
    const run = queue.then(() => reloadOnce(opts, trigger, read));
    queue = run.catch(() => {});
    return run;
  };
}

async function reloadOnce(
  opts: ReloaderOptions,
  trigger: string,
  read: () => GatewayConfig | Promise<GatewayConfig>,
): Promise<boolean> {
  const { gateway, log } = opts;
  let next: GatewayConfig;
  try {
    next = await read();
  } catch (err) {
    log.error("config reload rejected; keeping the running config", {
      trigger,
      error: messageOf(err),
    });
    opts.onResult?.(false);
    return false;
  }
  const before = gateway.config.gateway;
  try {
    const diff = await gateway.applyConfig(next);
    log.info("config reloaded", { trigger, ...diff });
  } catch (err) {
    log.error("config reload failed while applying", { trigger, error: messageOf(err) });
    opts.onResult?.(false);
    return false;
  }
  const after = next.gateway;
  if (!opts.listenOverridden && (after.host !== before.host || after.port !== before.port)) {
    log.warn("gateway.listen changed; it takes effect after a restart", {
      running: `${before.host}:${before.port}`,
      configured: `${after.host}:${after.port}`,
    });
  }
  if (JSON.stringify(after.telemetry) !== JSON.stringify(before.telemetry)) {
    log.warn("gateway.telemetry changed; it takes effect after a restart");
  }
  opts.onResult?.(true);
  return true;
}
