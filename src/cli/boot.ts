/**
 * Shared start-up for every command that talks to upstreams: load the config, build the
 * gateway and the local tool providers, connect upstreams with progress on a terminal.
 */
import { type GatewayConfig, loadConfig } from "../config/mod.ts";
import { Gateway, MetaTools } from "../gateway/mod.ts";
import { startTracing } from "../ops/traces/mod.ts";
import { attachScripting, type Scripting } from "../tools/mod.ts";
import { createLogger } from "../shared/log.ts";
import type { Upstream } from "../upstream/mod.ts";

/** Loads the config file named on the command line. */
export async function readConfig(file: string): Promise<GatewayConfig> {
  return await loadConfig(file);
}

/** Options of {@link bootGateway}. */
export interface BootOptions {
  /** Reload macros when a file of the macro folder changes (serve). */
  watchMacros?: boolean;
  /** Set up the script host even when the config needs none (`mcp-gateway run`). */
  scripting?: boolean;
  /**
   * Return once this long has passed even if some upstreams are still starting (serve:
   * `gateway.startWait`); they join later. Without it every first start is waited for.
   */
  startWaitMs?: number;
  /** Record pins and watch the state folder for approvals (serve). */
  recordPins?: boolean;
}

/** A booted gateway and its script host and macros (`null` when the config needs none). */
export interface Booted {
  gateway: Gateway;
  scripting: Scripting | null;
  /** The discovery meta-tools (search and describe for `run`'s `tools` namespace). */
  meta: MetaTools;
}

/**
 * A gateway with its macros registered (a registration error throws `CONFIG_INVALID` before any
 * upstream starts) and its upstreams connected (each one up or marked down), or — with
 * `startWaitMs` — those that made it within that time, the others still starting.
 */
export async function bootGateway(
  config: GatewayConfig,
  progress: boolean,
  options: BootOptions = {},
): Promise<Booted> {
  const gateway = new Gateway(config, createLogger("gateway"));
  // Telemetry loads the OpenTelemetry SDK only when the config turns it on.
  if (config.gateway.telemetry) {
    gateway.calls.setTracer(await startTracing(config.gateway.telemetry));
  }
  let scripting: Scripting | null = null;
  const meta = new MetaTools(
    gateway,
    () =>
      needsMetaTools(gateway.config) ||
      (scripting?.macros.localTools().some((t) => t.discoverable) ?? false),
  );
  gateway.addProvider(meta);
  // A credential key file anyone may read stops the start here, before any upstream starts.
  try {
    await gateway.upstreamAuth.open();
  } catch (err) {
    await gateway.stop();
    throw err;
  }
  if (options.recordPins) gateway.recordPins();
  const total = config.servers.filter((s) => s.enabled).length;
  let done = 0;
  const tty = progress && Boolean(process.stderr.isTTY) && total > 0;
  const show = (u?: Upstream) => {
    if (!tty) return;
    const last = u ? ` — ${u.name} ${u.state}` : "";
    process.stderr.write(`\r\x1b[2Kconnecting upstreams ${done}/${total}${last}`);
  };
  show();
  // Macros register while upstreams connect: both mostly wait on child processes.
  const [attached] = await Promise.allSettled([
    attachScripting(gateway, meta, options.scripting ?? false),
    gateway.start((u) => {
      done++;
      show(u);
    }, options.startWaitMs),
  ]);
  if (attached.status === "rejected") {
    if (tty) process.stderr.write("\r\x1b[2K");
    await gateway.stop();
    throw attached.reason;
  }
  scripting = attached.value;
  // Whether meta-tools exist can depend on the macros just registered.
  if (scripting) gateway.refreshLocalTools();
  if (options.watchMacros) scripting?.macros.watch();
  if (tty) process.stderr.write("\r\x1b[2K");
  return { gateway, scripting, meta };
}

/** Meta-tools exist when exposure is `search` or anything is discoverable. */
export function needsMetaTools(config: GatewayConfig): boolean {
  return config.gateway.exposure === "search" ||
    config.scripting.tools.some((t) => t.discoverable) ||
    config.servers.some((s) =>
      s.discoverable || Object.values(s.overrides).some((o) => o.discoverable)
    );
}
