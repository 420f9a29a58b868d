/**
 * An operator's `servers disable NAME` / `servers enable NAME`, kept as overrides of the config
 * file in the state folder (`overrides.json`) so they survive a reload and a restart: every
 * config the gateway reads (at start, on SIGHUP or a file change) is laid under them before it
 * is applied. An override is kept only while it differs from the file (enabling a server the
 * file enables just drops the override), so what is listed is exactly what the operator changed.
 */
import { join } from "node:path";
import type { GatewayConfig, ServerConfig } from "../config/mod.ts";
import { GatewayError } from "../shared/errors.ts";
import { readStateFile, statePath, writeStateFile } from "../state/mod.ts";

/** One server's override, with who set it and when. */
export interface ServerOverride {
  enabled: boolean;
  /** The admin token that set it (`null`: auth off). */
  by: string | null;
  /** ISO time it was set. */
  at: string;
}

const FILE = "overrides.json";

/** The overrides of one state folder. */
export class ServerOverrides {
  readonly #dir: string;
  /** By server name; a `Map`, since names come from a file another process may write. */
  #servers = new Map<string, ServerOverride>();
  /** The config as last read from the file, before the overrides. */
  #base: GatewayConfig | null = null;

  constructor(stateDir: string) {
    this.#dir = stateDir;
    // Read without creating the folder: a gateway no one overrides writes nothing.
    this.#servers = readOverrides(join(stateDir, FILE));
  }

  /** `config` (as read from the file) with the overrides laid over it; remembers it as the base. */
  overlay(config: GatewayConfig): GatewayConfig {
    this.#base = config;
    if (this.#servers.size === 0) return config;
    const servers = config.servers.map((s): ServerConfig => {
      const o = this.#servers.get(s.name);
      return o === undefined || o.enabled === s.enabled
        ? s
        : Object.freeze({ ...s, enabled: o.enabled });
    });
    return Object.freeze({ ...config, servers: Object.freeze(servers) });
  }

  /** The base config with the current overrides: what to apply after a change. */
  current(): GatewayConfig {
    if (this.#base === null) throw new GatewayError("INTERNAL", "no config read yet");
    return this.overlay(this.#base);
  }

  /**
   * Sets server `name` enabled or disabled, and persists it; answers false when `name` is not
   * a configured server.
   */
  set(name: string, enabled: boolean, by: string | null): boolean {
    const server = this.#base?.servers.find((s) => s.name === name);
    if (!server) return false;
    if (server.enabled === enabled) this.#servers.delete(name);
    else this.#servers.set(name, { enabled, by, at: new Date().toISOString() });
    writeStateFile(statePath(this.#dir, FILE), { servers: Object.fromEntries(this.#servers) }, {
      mode: 0o644,
    });
    return true;
  }

  /** The override of server `name`, while the file still configures it. */
  get(name: string): ServerOverride | undefined {
    return this.#base?.servers.some((s) => s.name === name) ? this.#servers.get(name) : undefined;
  }
}

/** The overrides a state file holds; entries of another shape are skipped. */
function readOverrides(path: string): Map<string, ServerOverride> {
  const out = new Map<string, ServerOverride>();
  const data = readStateFile(path) as { servers?: unknown } | undefined;
  const servers = data?.servers;
  if (servers === null || typeof servers !== "object") return out;
  for (const [name, v] of Object.entries(servers)) {
    const o = v as Partial<ServerOverride> | null;
    if (typeof o?.enabled !== "boolean") continue;
    out.set(name, {
      enabled: o.enabled,
      by: typeof o.by === "string" ? o.by : null,
      at: typeof o.at === "string" ? o.at : "",
    });
  }
  return out;
}
