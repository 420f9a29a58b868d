/**
 * What a client declared it can be asked, checked against one server-to-client request: both
 * eras' channels refuse a request their client cannot answer before it is sent.
 */
import type { ClientCapabilities, ProtocolRequest } from "../../shared/protocol.ts";
import { elicitationModes } from "../../shared/protocol-checks.ts";

/**
 * The capability a client lacks for this server-to-client request (`"sampling"`,
 * `"elicitation.url"`, …), or `undefined` when it has it. Both front doors check with it.
 */
export function missingCapability(
  caps: ClientCapabilities,
  req: ProtocolRequest,
): string | undefined {
  const params = (req.params ?? {}) as Record<string, unknown>;
  switch (req.method) {
    case "sampling/createMessage":
      if (!caps.sampling) return "sampling";
      if ((params.tools || params.toolChoice) && !caps.sampling.tools) return "sampling.tools";
      return undefined;
    case "elicitation/create": {
      if (!caps.elicitation) return "elicitation";
      const modes = elicitationModes(caps.elicitation);
      if (params.mode === "url") return modes.url ? undefined : "elicitation.url";
      return modes.form ? undefined : "elicitation.form";
    }
    case "roots/list":
      return caps.roots ? undefined : "roots";
    default:
      return undefined;
  }
}
