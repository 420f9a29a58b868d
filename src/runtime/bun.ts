/** Bun's native HTTP server behind the runtime-neutral {@link HttpServer} shape. */
import { AddressInUseError, isAddressInUse } from "./address-in-use.ts";
import { internalErrorResponse } from "./error-answer.ts";
import type { HttpServer, ServeOptions } from "./mod.ts";

interface BunServer {
  hostname: string;
  port: number;
  stop(closeActive?: boolean): Promise<void>;
}
declare const Bun: {
  serve(opts: {
    hostname: string;
    port: number;
    idleTimeout: number;
    reusePort: boolean;
    development: boolean;
    error(err: unknown): Response;
    fetch(req: Request): Response | Promise<Response>;
  }): BunServer;
};

/** Serves with `Bun.serve`; idle timeout off so long-lived SSE streams are not cut at 10 s. */
export function serveBun(options: ServeOptions): Promise<HttpServer> {
  let server: BunServer;
  try {
    server = listen(options);
  } catch (err) {
    if (!isAddressInUse(err)) return Promise.reject(err);
    return Promise.reject(new AddressInUseError(options.hostname, options.port, { cause: err }));
  }
  return Promise.resolve({
    hostname: server.hostname,
    port: server.port,
    close: () => server.stop(true),
  });
}

function listen(options: ServeOptions): BunServer {
  return Bun.serve({
    hostname: options.hostname,
    port: options.port,
    idleTimeout: 0,
    // Exclusive: with `development: false` Bun binds with SO_REUSEPORT unless told not to, and a
    // second gateway on a taken port then "listens" and silently takes part of the traffic.
    reusePort: false,
    // Never Bun's development error page (it shows source lines and file paths).
    development: false,
    error: () => internalErrorResponse(),
    // The request alone: asking `server.requestIP(req)` here cost a `getpeername` system call and
    // an object per request, for an address nothing read (docs/PERFORMANCE.md).
    fetch: (req) => options.fetch(req),
  });
}
