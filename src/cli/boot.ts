/**
 * Shared start-up for every command that talks to upstreams: load the config, build the
 * gateway and the local tool providers, connect upstreams with progress on a terminal.
 */
import { type GatewayConfig, loadConfig } from "../config/mod.ts";
import { Gateway, MetaTools } from "../gateway/mod.ts";
import { createLogger } from "../shared/log.ts";
import type { Upstream } from "../upstream/mod.ts";

/** Loads the config file named on the command line. */
export function readConfig(file: string): GatewayConfig {
  return loadConfig(file);
}

/** A gateway with its upstreams connected (each one up or marked down). */
export async function bootGateway(config: GatewayConfig, progress: boolean): Promise<Gateway> {
  const gateway = new Gateway(config, createLogger("gateway"));
  gateway.addProvider(new MetaTools(gateway, () => needsMetaTools(gateway.config)));
  const total = config.servers.filter((s) => s.enabled).length;
  let done = 0;
  const tty = progress && Boolean(process.stderr.isTTY) && total > 0;
  const show = (u?: Upstream) => {
    if (!tty) return;
    const last = u ? ` — ${u.name} ${u.state}` : "";
    process.stderr.write(`\r\x1b[2Kconnecting upstreams ${done}/${total}${last}`);
  };
  show();
  await gateway.start((u) => {
    done++;
    show(u);
  });
  if (tty) process.stderr.write("\r\x1b[2K");
  return gateway;
}

/** Meta-tools exist when exposure is `search` or anything is discoverable. */
export function needsMetaTools(config: GatewayConfig): boolean {
  return config.gateway.exposure === "search" ||
    config.scripting.tools.some((t) => t.discoverable) ||
    config.servers.some((s) =>
      s.discoverable || Object.values(s.overrides).some((o) => o.discoverable)
    );
}
