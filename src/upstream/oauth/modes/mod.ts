/**
 * @module Upstream auth modes: one object per `servers.<name>.oauth.mode`, found by name here.
 * A mode is one file implementing {@link UpstreamAuthMode}, listed in {@link AUTH_MODES}.
 */
import type { ServerConfig } from "../../../config/mod.ts";
import { exchangeMode } from "./exchange.ts";
import type { UpstreamAuthMode } from "./mode.ts";
import { perUserMode } from "./per-user.ts";
import { sharedMode } from "./shared.ts";

export type { IdentityConnection, ModeCaller, ModeHost, UpstreamAuthMode } from "./mode.ts";
export { ownConnection, serverCredential } from "./mode.ts";

/** The modes by name (a `Map`: the name comes from a config file). */
export const AUTH_MODES: ReadonlyMap<string, UpstreamAuthMode> = new Map(
  [sharedMode, perUserMode, exchangeMode].map((m) => [m.name, m]),
);

const extra = new Map<string, UpstreamAuthMode>();

/**
 * Adds a mode beside the built-in ones (an embedding program's, or a test's); a name already
 * taken is refused.
 */
export function registerAuthMode(mode: UpstreamAuthMode): void {
  if (AUTH_MODES.has(mode.name) || extra.has(mode.name)) {
    throw new Error(`an upstream auth mode named "${mode.name}" exists already`);
  }
  extra.set(mode.name, mode);
}

/** The auth mode named `name` (as a status row states it), if there is one. */
export function authModeNamed(name: string | undefined): UpstreamAuthMode | undefined {
  return name === undefined ? undefined : AUTH_MODES.get(name) ?? extra.get(name);
}

/** The auth mode of `server`: `undefined` for a server without `oauth:`. */
export function authModeOf(server: ServerConfig): UpstreamAuthMode | undefined {
  if (server.kind !== "http" || server.oauth === null) return undefined;
  const name: string = server.oauth.mode;
  const mode = authModeNamed(name);
  if (!mode) throw new Error(`server "${server.name}": no upstream auth mode "${name}"`);
  return mode;
}
