/**
 * `logging/setLevel` of one 2025 session: the session's level is remembered on its link and the
 * shared hub sends upstream the most verbose level any session asked for.
 */
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { SetLevelRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import type { PassthroughHub, SessionLink } from "../../gateway/passthrough/mod.ts";
import { onWire } from "../../shared/errors.ts";

/** Replaces the SDK's own `logging/setLevel` handler: remember, then forward upstream. */
export function registerLogging(server: Server, hub: PassthroughHub, link: SessionLink): void {
  server.setRequestHandler(SetLevelRequestSchema, (req) =>
    onWire(async () => {
      hub.touch(link);
      link.level = req.params.level;
      await hub.applyLevel();
      return {};
    }));
}
