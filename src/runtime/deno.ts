/** Deno's native HTTP server behind the runtime-neutral {@link HttpServer} shape. */
import { AddressInUseError, isAddressInUse } from "./address-in-use.ts";
import { internalErrorResponse } from "./error-answer.ts";
import type { HttpServer, ServeOptions } from "./mod.ts";

interface DenoServer {
  addr: { hostname: string; port: number };
  shutdown(): Promise<void>;
  finished: Promise<void>;
}
declare const Deno: {
  serve(
    opts: {
      hostname: string;
      port: number;
      onListen?: (addr: unknown) => void;
      onError?: (err: unknown) => Response;
    },
    handler: (req: Request) => Response | Promise<Response>,
  ): DenoServer;
};

/** Serves with `Deno.serve`, resolving once the socket listens. */
export function serveDeno(options: ServeOptions): Promise<HttpServer> {
  return new Promise((resolve, reject) => {
    const controller = new AbortController();
    try {
      listen(options, controller, resolve);
    } catch (err) {
      reject(
        isAddressInUse(err)
          ? new AddressInUseError(options.hostname, options.port, { cause: err })
          : err,
      );
    }
  });
}

/** Binds and serves; throws at once when the address cannot be bound. */
function listen(
  options: ServeOptions,
  controller: AbortController,
  resolve: (server: HttpServer) => void,
): DenoServer {
  const server: DenoServer = Deno.serve(
    {
      hostname: options.hostname,
      port: options.port,
      // Never Deno's default error answer, whatever a handler throws.
      onError: () => internalErrorResponse(),
      onListen: () => {
        queueMicrotask(() =>
          resolve({
            hostname: server.addr.hostname,
            port: server.addr.port,
            close: async () => {
              controller.abort();
              await Promise.race([
                server.shutdown(),
                new Promise((r) => setTimeout(r, 2000)),
              ]);
            },
          })
        );
      },
    },
    (req) => options.fetch(req),
  );
  return server;
}
