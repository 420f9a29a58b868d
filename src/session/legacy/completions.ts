/**
 * `completion/complete` of one session, served by the era-neutral operation in
 * `../operations.ts` (routing by prompt or resource-template reference; a prompt follows the token's
 * globs, a template the servers the token reaches).
 */
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CompleteRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { enterCall, type Gateway } from "../../gateway/mod.ts";
import { complete } from "../../gateway/operations.ts";
import type { SessionLink } from "../../gateway/passthrough/mod.ts";
import { callerOfRequest } from "./request-caller.ts";
import { onWire } from "../../shared/errors.ts";

/** Installs the completion handler on a session server. */
export function registerCompletions(server: Server, gateway: Gateway, link: SessionLink): void {
  server.setRequestHandler(CompleteRequestSchema, (req, extra) =>
    onWire(() => {
      gateway.passthrough.touch(link);
      // No client: a completion is answered on the server's shared process, never tracked.
      const context = enterCall(callerOfRequest(extra, link.caller), { signal: extra.signal });
      return complete(gateway, req.params, context);
    }));
}
