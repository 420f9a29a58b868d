/**
 * @module One object for each property schema a server's list repeats. Servers describe the
 * same parameter the same way across their tools (an owner, a repository, a page size, an enum
 * of states), and every tool of a long list would otherwise keep its own copy of each: a few
 * objects and arrays per parameter, the larger part of what a listed tool costs in memory. A
 * list's tools are read together, so the copies are found within one list, by their JSON text.
 *
 * Only the values of `properties` and the `required` list of a tool's input and output schemas
 * are shared, each serialised once, so the work is bounded by the list's size whatever its
 * nesting. Definitions are never changed once read (nothing writes to a listed tool), which is
 * what makes sharing one object between tools safe; the JSON of every tool stays the same.
 */
import type { Tool } from "../shared/protocol.ts";

/** Shares repeated property schemas between the tools of one list, in place; returns `tools`. */
export function shareRepeatedShapes<T extends Tool>(tools: T[]): T[] {
  const seen = new Map<string, unknown>();
  const share = <V>(value: V): V => {
    if (value === null || typeof value !== "object") return value;
    const key = JSON.stringify(value);
    if (key === undefined) return value;
    const known = seen.get(key);
    if (known !== undefined) return known as V;
    seen.set(key, value);
    return value;
  };
  for (const tool of tools) {
    shareIn(tool.inputSchema, share);
    shareIn(tool.outputSchema, share);
  }
  return tools;
}

/** Replaces `schema`'s property schemas and `required` list with the shared copies. */
function shareIn(schema: unknown, share: <V>(value: V) => V): void {
  if (schema === null || typeof schema !== "object" || Array.isArray(schema)) return;
  const s = schema as Record<string, unknown>;
  if (Object.hasOwn(s, "required") && Array.isArray(s.required)) {
    put(s, "required", share(s.required));
  }
  const props = Object.hasOwn(s, "properties") ? s.properties : undefined;
  if (props === null || typeof props !== "object" || Array.isArray(props)) return;
  const p = props as Record<string, unknown>;
  for (const name of Object.keys(p)) put(p, name, share(p[name]));
}

/**
 * Sets a property `target` already has as its own: a key named `__proto__` then names that own
 * property, never the prototype's setter.
 */
function put(target: Record<string, unknown>, key: string, value: unknown): void {
  if (target[key] !== value) target[key] = value;
}
