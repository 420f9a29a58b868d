/**
 * What the core needs of the SDK at run time, behind the gateway's own types (`./protocol.ts`):
 * matching a URI against a resource template, reading an elicitation's answer, and which
 * elicitation modes a client declared. The SDK's implementations are the reference ones: the
 * gateway matches and reads exactly as the SDK servers and clients it relays do.
 */
import { getSupportedElicitationModes } from "@modelcontextprotocol/sdk/client/index.js";
import { UriTemplate } from "@modelcontextprotocol/sdk/shared/uriTemplate.js";
import { ElicitResultSchema } from "@modelcontextprotocol/sdk/types.js";
import type { ClientCapabilities } from "./protocol.ts";

/** Whether a URI was expanded from one RFC 6570 template. */
export type UriMatcher = (uri: string) => boolean;

/** The matcher of `template`; throws when the template cannot be parsed. */
export function uriMatcher(template: string): UriMatcher {
  const parsed = new UriTemplate(template);
  return (uri) => parsed.match(uri) != null;
}

/** Whether `answer` is a well-formed elicitation result that accepts. */
export function acceptsElicitation(answer: unknown): boolean {
  const parsed = ElicitResultSchema.safeParse(answer);
  return parsed.success && parsed.data.action === "accept";
}

/** The elicitation modes a client's declared capability allows. */
export function elicitationModes(
  capability: ClientCapabilities["elicitation"],
): { form: boolean; url: boolean } {
  const modes = getSupportedElicitationModes(capability);
  return { form: modes.supportsFormMode, url: modes.supportsUrlMode };
}
