/**
 * `list_changed` for every session: after each catalog rebuild the gateway hands over what the
 * tool, prompt and resource lists now hold; a listener hears only about the lists whose content
 * really changed (a restarted upstream with the same tools tells nobody).
 */
import { sha256, sha256Hex } from "../runtime/hash.ts";
import { messageOf } from "../shared/errors.ts";
import type { Logger } from "../shared/log.ts";

/** Something that wants to hear about list changes (one per downstream session). */
export interface ChangeListener {
  toolsChanged(): void;
  promptsChanged(): void;
  resourcesChanged(): void;
}

/** What each list holds after a rebuild (compared by digest with the previous rebuild's). */
export interface ListContents {
  tools: unknown[];
  prompts: unknown[];
  resources: unknown[];
}

/**
 * Digests of the JSON of items already seen (definitions are never mutated once read), each the
 * first 48 bits of its SHA-256 as a number: one is kept per tool definition, and a number is
 * held in the table itself where a hex text would be one more string per tool. The bits only
 * tell one list from the next (whether to send `list_changed`); no approval rests on them.
 */
const itemDigests = new WeakMap<object, number>();

/** The first 48 bits of `text`'s SHA-256, as a number. */
function shortDigest(text: string): number {
  const d = sha256(text);
  return ((d[0]! * 256 + d[1]!) * 65536 + (d[2]! * 256 + d[3]!)) * 65536 + d[4]! * 256 + d[5]!;
}

/**
 * SHA-256 over the JSON of each item of `lists` (nested arrays walked), in order: equal lists,
 * equal digests. Each object's own digest is remembered, so a rebuild that keeps its entries
 * hashes a few short strings per item instead of serialising the whole catalog again.
 */
export function listDigest(lists: readonly unknown[]): string {
  const parts: string[] = [];
  const walk = (items: readonly unknown[]) => {
    parts.push("[");
    for (const item of items) {
      if (Array.isArray(item)) walk(item);
      else if (item !== null && typeof item === "object") {
        let d = itemDigests.get(item);
        if (d === undefined) itemDigests.set(item, d = shortDigest(JSON.stringify(item)));
        parts.push(String(d));
      } else parts.push(JSON.stringify(item) ?? "undefined");
    }
    parts.push("]");
  };
  walk(lists);
  return sha256Hex(parts.join(","));
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
    const sig = {
      tools: listDigest(lists.tools),
      prompts: listDigest(lists.prompts),
      resources: listDigest(lists.resources),
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
