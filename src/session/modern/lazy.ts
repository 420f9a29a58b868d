/**
 * @module The 2026-07-28 door, built at its first request. The door (./front.ts) and the SDK v2
 * server package under it are ~6 MiB of RSS and ~50 ms of CPU to load; a gateway that only ever
 * serves 2025 clients never needs them, and `classify` (./classify.ts) sends it nothing before
 * a request could be modern.
 */
import type { Gateway } from "../../gateway/mod.ts";
import type { ModernFront, ModernFrontOptions, ModernRelay } from "./front.ts";
import type { RequestIdentity } from "../door.ts";

type Serve = (request: Request, identity: RequestIdentity) => Promise<Response>;

/**
 * The modern door for `gateway`, whose module is imported and whose SDK handler is built at the
 * first request it serves (or the first continuation the cluster relays here). Behaves as
 * `createModernFront` of ./front.ts in every other way.
 */
export function createModernFront(gateway: Gateway, options: ModernFrontOptions): ModernFront {
  let front: Promise<ModernFront> | undefined;
  let built: ModernFront | undefined;
  let closed = false;
  // The relay learns at once that this instance serves continuations; the handler it is given
  // builds the door first. Continuations are parked only by a built door, so one relayed before
  // that is answered by the built door as unknown, as after a restart.
  const relay = options.relay;
  let attached: Serve | undefined;
  const own: ModernRelay | undefined = relay && {
    owner: relay.owner,
    forward: (request, identity) => relay.forward(request, identity),
    attach: (serve) => {
      attached = serve;
    },
  };
  const load = () =>
    front ??= import("./front.ts").then(async (mod) => {
      const door = mod.createModernFront(gateway, { ...options, ...(own ? { relay: own } : {}) });
      // Closed before it was ever built: built closed, so it refuses as a closed door does.
      if (closed) await door.close();
      return built = door;
    });
  relay?.attach(async (request, identity) => {
    await load();
    return attached!(request, identity);
  });
  return {
    // Once built, a request goes straight to the door: no wait on the resolved import.
    fetch: (request, identity, ticket) =>
      built
        ? built.fetch(request, identity, ticket)
        : load().then((door) => door.fetch(request, identity, ticket)),
    parked: () => built?.parked() ?? 0,
    async close() {
      closed = true;
      if (front) await (await front).close();
    },
  };
}
