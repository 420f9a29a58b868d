/**
 * `list_changed` for every session: after each catalog rebuild the gateway hands over what the
 * tool, prompt and resource lists now hold; a listener hears only about the lists whose content
 * really changed (a restarted upstream with the same tools tells nobody).
 */
import { sha256Hex } from "../runtime/hash.ts";
import { messageOf } from "../shared/errors.ts";
import type { Logger } from "../shared/log.ts";

/** Something that wants to hear about list changes (one per downstream session). */
export interface ChangeListener {
  toolsChanged(): void;
  promptsChanged(): void;
  resourcesChanged(): void;
}

/** What each list holds after a rebuild (compared as JSON with the previous rebuild's). */
export interface ListContents {
  tools: unknown[];
  prompts: unknown[];
  resources: unknown[];
}

/** The listeners of one gateway and the lists they last heard about. */
export class ListChanges {
  #listeners = new Set<ChangeListener>();
  #signature = { tools: "", prompts: "", resources: "" };
  readonly #log: Logger;

  constructor(log: Logger) {
    this.#log = log;
  }

  /** Registers a listener; returns the unsubscribe function. */
  subscribe(listener: ChangeListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Tells every listener which lists changed since the last call. */
  publish(lists: ListContents): void {
    // Digests, not the texts: the tools' text is the size of the whole catalog.
    const sig = {
      tools: sha256Hex(JSON.stringify(lists.tools)),
      prompts: sha256Hex(JSON.stringify(lists.prompts)),
      resources: sha256Hex(JSON.stringify(lists.resources)),
    };
    const changed = {
      tools: sig.tools !== this.#signature.tools,
      prompts: sig.prompts !== this.#signature.prompts,
      resources: sig.resources !== this.#signature.resources,
    };
    this.#signature = sig;
    for (const l of this.#listeners) {
      try {
        if (changed.tools) l.toolsChanged();
        if (changed.prompts) l.promptsChanged();
        if (changed.resources) l.resourcesChanged();
      } catch (err) {
        this.#log.debug("list_changed notification failed", { error: messageOf(err) });
      }
    }
  }
}
