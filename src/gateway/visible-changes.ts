/**
 * `list_changed` as one session sees it: the gateway publishes when a list changed anywhere,
 * but a session lists only what its token's globs allow. A listener wrapped here hears about a
 * list only when what that caller is shown differs from what it was shown when it last heard
 * (a server its token does not reach changing its tools tells that session nothing).
 */
import type { Gateway } from "./gateway.ts";
import type { ChangeListener } from "./list-changes.ts";
import { listPrompts, listResources, listTemplates } from "./operations.ts";
import type { Caller } from "./types.ts";

type Kind = "tools" | "prompts" | "resources";

/** What `caller` is shown of each list, as comparable text. */
function shown(gateway: Gateway, caller: Caller, kind: Kind): string {
  switch (kind) {
    case "tools":
      // The view's prepared digest: every session of one view holds the same short string.
      return gateway.preparedList(caller).digest;
    case "prompts":
      return JSON.stringify(listPrompts(gateway, caller));
    case "resources":
      return JSON.stringify([listResources(gateway, caller), listTemplates(gateway, caller)]);
  }
}

/**
 * A listener passing on only the changes `caller` (read at each change: its globs can change
 * on reload) can see; what it is shown now is the baseline.
 */
export function visibleChanges(
  gateway: Gateway,
  caller: () => Caller,
  listener: ChangeListener,
): ChangeListener {
  const last: Record<Kind, string> = {
    tools: shown(gateway, caller(), "tools"),
    prompts: shown(gateway, caller(), "prompts"),
    resources: shown(gateway, caller(), "resources"),
  };
  const changed = (kind: Kind): boolean => {
    const now = shown(gateway, caller(), kind);
    if (now === last[kind]) return false;
    last[kind] = now;
    return true;
  };
  return {
    toolsChanged: () => changed("tools") && listener.toolsChanged(),
    promptsChanged: () => changed("prompts") && listener.promptsChanged(),
    resourcesChanged: () => changed("resources") && listener.resourcesChanged(),
  };
}
