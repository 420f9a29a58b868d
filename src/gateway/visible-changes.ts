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
 * What `caller` (read at each check: its globs can change on reload) was last shown of each
 * list; {@link VisibleLists.changed} says whether that differs now. One small object per
 * session: a session's list watcher holds it instead of closures of its own.
 */
export class VisibleLists {
  readonly #gateway: Gateway;
  readonly #caller: () => Caller;
  #tools: string;
  #prompts: string;
  #resources: string;

  constructor(gateway: Gateway, caller: () => Caller) {
    this.#gateway = gateway;
    this.#caller = caller;
    const now = caller();
    this.#tools = shown(gateway, now, "tools");
    this.#prompts = shown(gateway, now, "prompts");
    this.#resources = shown(gateway, now, "resources");
  }

  /** True when what the caller is shown of `kind` changed since it was last checked. */
  changed(kind: Kind): boolean {
    const now = shown(this.#gateway, this.#caller(), kind);
    switch (kind) {
      case "tools":
        if (now === this.#tools) return false;
        this.#tools = now;
        return true;
      case "prompts":
        if (now === this.#prompts) return false;
        this.#prompts = now;
        return true;
      case "resources":
        if (now === this.#resources) return false;
        this.#resources = now;
        return true;
    }
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
  const seen = new VisibleLists(gateway, caller);
  return {
    toolsChanged: () => seen.changed("tools") && listener.toolsChanged(),
    promptsChanged: () => seen.changed("prompts") && listener.promptsChanged(),
    resourcesChanged: () => seen.changed("resources") && listener.resourcesChanged(),
  };
}
