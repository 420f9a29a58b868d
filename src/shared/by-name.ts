/**
 * Objects keyed by names that come from outside — an upstream's tool, prompt or parameter
 * names, a client's keys, a config's map keys. A plain `{}` answers `constructor` or `toString`
 * from its prototype and takes `__proto__` as a new prototype instead of a key, so a name of
 * that kind would be looked up wrongly or silently dropped. Prefer a `Map`; where the object is
 * written as JSON (pin files, results), use this.
 */

/** An empty object without a prototype: every name, `__proto__` included, is an own key. */
export function byName<T>(): Record<string, T> {
  return Object.create(null) as Record<string, T>;
}

/** `record[name]` when it is the record's own key (never a prototype's member). */
export function own<T>(record: Readonly<Record<string, T>>, name: string): T | undefined {
  return Object.hasOwn(record, name) ? record[name] : undefined;
}

/**
 * Sets `record[name]` as an own key of a plain object, `__proto__` included (an assignment of
 * that name would replace the prototype and drop the value). For objects that leave as plain
 * JSON-shaped values (compared, validated, serialised) where {@link byName} would not suit.
 */
export function putOwn<T>(record: Record<string, T>, name: string, value: T): void {
  Object.defineProperty(record, name, {
    value,
    writable: true,
    enumerable: true,
    configurable: true,
  });
}
