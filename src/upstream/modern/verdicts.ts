/**
 * Era verdicts kept per server config, the SDK's `prior` idea: once a server has been found to
 * speak 2026-07-28 (its `DiscoverResult` kept) or only 2025, later starts of the same config —
 * restarts, and every process of a session-isolated server — skip the `server/discover` round
 * trip. A config object lives until a reload replaces it, so an upgraded server is probed again
 * after a reload; and a start that fails on a kept verdict forgets it, so the next one probes.
 */
import type { PriorDiscovery } from "@modelcontextprotocol/client";
import type { ServerConfig } from "../../config/mod.ts";
import { sourceOf } from "../config-copies.ts";

/** By the source config: a copy running the same server (`../config-copies.ts`) shares it. */
const verdicts = new WeakMap<ServerConfig, PriorDiscovery>();

/** What is known of `server`'s era: `legacy` is given, `auto` and `modern` may have a verdict. */
export function knownEra(server: ServerConfig): PriorDiscovery | undefined {
  if (server.protocol === "legacy") return { kind: "legacy" };
  const verdict = verdicts.get(sourceOf(server));
  // `modern` never runs the 2025 handshake, whatever was found before.
  return server.protocol === "modern" && verdict?.kind === "legacy" ? undefined : verdict;
}

/** Keeps a verdict found by a probe (or the process ending on it). */
export function remember(server: ServerConfig, verdict: PriorDiscovery): void {
  if (server.protocol !== "legacy") verdicts.set(sourceOf(server), verdict);
}

/** Drops a kept verdict: a start that used it failed. */
export function forget(server: ServerConfig): void {
  verdicts.delete(sourceOf(server));
}
