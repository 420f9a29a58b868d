/**
 * `completion/complete` of one session, served by the era-neutral operation in
 * `../operations.ts` (routing by prompt or resource-template reference; a prompt follows the token's
 * globs, a template the servers the token reaches).
 */
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CompleteRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { onWire } from "../../shared/errors.ts";
import type { Gateway } from "../gateway.ts";
import { complete } from "../operations.ts";
import type { SessionLink } from "./link.ts";

/** Installs the completion handler on a session server. */
export function registerCompletions(server: Server, gateway: Gateway, link: SessionLink): void {
  server.setRequestHandler(CompleteRequestSchema, (req, extra) =>
    onWire(() => {
      gateway.passthrough.touch(link);
      return complete(gateway, link.caller(), req.params, extra.signal);
    }));
}
