/**
 * `mcp-gateway [--listen] [--stdio]`: serve the aggregated endpoint until SIGTERM/SIGINT; SIGHUP
 * reloads the config.
 */
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { type GatewayConfig, splitListen } from "../config/mod.ts";
import { createSessionServer, type Gateway, LOCAL_CALLER } from "../gateway/mod.ts";
import { createApp, SessionRegistry } from "../http/mod.ts";
import { type HttpServer, serveHttp } from "../runtime/mod.ts";
import { messageOf } from "../shared/errors.ts";
import { createLogger } from "../shared/log.ts";
import { bootGateway, readConfig } from "./boot.ts";

const log = createLogger("serve");

/** A running gateway, as tests and `main` hold it. */
export interface RunningGateway {
  gateway: Gateway;
  http: HttpServer | null;
  /** Re-reads the config file and applies it; keeps the old one when invalid. */
  reload(): Promise<boolean>;
  /** Graceful stop: close listeners and sessions, then upstreams. */
  stop(): Promise<void>;
}

/** Options for {@link startGateway}. */
export interface StartOptions {
  listen?: string | null;
  stdio?: boolean;
}

/** Starts serving a config; resolves once listening (HTTP) or connected (stdio). */
export async function startGateway(
  config: GatewayConfig,
  options: StartOptions = {},
): Promise<RunningGateway> {
  const gateway = await bootGateway(config, false);
  const reload = async () => {
    try {
      const next = readConfig(config.file);
      const diff = await gateway.applyConfig(next);
      log.info("config reloaded", diff);
      return true;
    } catch (err) {
      log.error("config reload rejected; keeping the running config", { error: messageOf(err) });
      return false;
    }
  };
  if (options.stdio) {
    const server = createSessionServer(gateway, () => LOCAL_CALLER);
    await server.connect(new StdioServerTransport());
    return {
      gateway,
      http: null,
      reload,
      stop: async () => {
        await server.close().catch(() => {});
        await gateway.stop();
      },
    };
  }
  const sessions = new SessionRegistry(gateway, {
    maxSessions: config.gateway.maxSessions,
    maxBodyBytes: config.gateway.requestBodyBytes,
  });
  const app = createApp({ gateway, sessions });
  const [hostname, port] = splitListen(
    options.listen ?? `${config.gateway.host}:${config.gateway.port}`,
  );
  const http = await serveHttp({ hostname, port, fetch: (req) => app.fetch(req) });
  const shown = http.hostname.includes(":") ? `[${http.hostname}]` : http.hostname;
  log.info("listening", {
    url: `http://${shown}:${http.port}/mcp`,
    upstreams: config.servers.length,
  });
  return {
    gateway,
    http,
    reload,
    stop: async () => {
      await sessions.closeAll();
      await http.close();
      await gateway.stop();
    },
  };
}

/** The `serve` command: runs until a signal; returns the exit code. */
export async function serveCommand(configFile: string, options: StartOptions): Promise<number> {
  const config = readConfig(configFile);
  const running = await startGateway(config, options);
  return await new Promise<number>((resolve) => {
    let stopping = false;
    const stop = (signal: string) => {
      if (stopping) return;
      stopping = true;
      log.info("shutting down", { signal });
      running.stop().then(() => resolve(0), (err) => {
        log.error("shutdown failed", { error: messageOf(err) });
        resolve(1);
      });
    };
    process.on("SIGTERM", () => stop("SIGTERM"));
    process.on("SIGINT", () => stop("SIGINT"));
    process.on("SIGHUP", () => void running.reload());
    if (options.stdio) process.stdin.on("end", () => stop("stdin closed"));
  });
}
