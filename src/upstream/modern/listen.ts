/**
 * Change notifications from a 2026-07-28 upstream. That revision sends no unsolicited
 * notifications: a client opens a `subscriptions/listen` stream for what it wants to hear. For
 * each list the server says can change, the gateway keeps one stream open while the connection
 * lives; the v2 client hands what arrives on it to the handlers pass-through registered
 * (`list_changed` → the catalog is read again), as on a 2025 connection.
 */
import type { Client as V2Client } from "@modelcontextprotocol/client";
import { messageOf } from "../../shared/errors.ts";
import type { Logger } from "../../shared/log.ts";

/** Delay before a stream the server dropped is opened again (doubling, capped). */
export const RELISTEN_MS = [1_000, 30_000] as const;

/** Listens for the list changes `v2`'s server announces; returns at once. */
export function listenForChanges(v2: V2Client, log: Logger): void {
  const caps = v2.getServerCapabilities() ?? {};
  const filter = {
    ...(caps.tools?.listChanged ? { toolsListChanged: true } : {}),
    ...(caps.prompts?.listChanged ? { promptsListChanged: true } : {}),
    ...(caps.resources?.listChanged ? { resourcesListChanged: true } : {}),
  };
  if (Object.keys(filter).length === 0) return;
  let delay: number = RELISTEN_MS[0];
  const open = async (): Promise<void> => {
    if (!v2.transport) return; // closed meanwhile
    try {
      const sub = await v2.listen(filter);
      delay = RELISTEN_MS[0];
      const how = await sub.closed;
      if (how !== "remote" || !v2.transport) return;
      log.info("subscriptions/listen stream dropped; listening again", { inMs: delay });
    } catch (err) {
      if (!v2.transport) return;
      log.warn("subscriptions/listen failed", { error: messageOf(err), retryInMs: delay });
    }
    const timer = setTimeout(() => void open(), delay);
    (timer as { unref?: () => void }).unref?.();
    delay = Math.min(delay * 2, RELISTEN_MS[1]);
  };
  void open();
}
