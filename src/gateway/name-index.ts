/**
 * @module A catalog's tools by exposed name, held as one table of positions into its list. A
 * `Map` of every tool costs several times its entries in hash storage (the largest single
 * object of a catalog of thousands of tools); this table costs four bytes per slot, half its
 * slots free. The names are the upstreams' (hostile input): they are compared as strings only,
 * never used as property keys, and the hash is seeded per process, so a list cannot be crafted
 * in advance to make every name land in one chain.
 */

/** What the index holds: anything with the name it is found by. */
interface Named {
  readonly name: string;
}

const SEED = (Math.random() * 0x100000000) >>> 0;

/** FNV-1a over the name's UTF-16 code units, from the process's seed. */
function hashOf(name: string): number {
  let h = SEED ^ 0x811c9dc5;
  for (let i = 0; i < name.length; i++) h = Math.imul(h ^ name.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** Items by name, in the order they were added; a name is held once. */
export class NameIndex<E extends Named> implements ReadonlyMap<string, E> {
  readonly #items: E[] = [];
  /** Position + 1 of the item whose name hashes near each slot; 0 is a free slot. */
  #slots: Int32Array;

  constructor(expected = 0) {
    this.#slots = new Int32Array(slotsFor(expected));
  }

  /** An index of `items` (a later item of a name already held is left out). */
  static of<E extends Named>(items: readonly E[]): NameIndex<E> {
    const index = new NameIndex<E>(items.length);
    for (const item of items) index.#insert(item);
    return index;
  }

  get size(): number {
    return this.#items.length;
  }

  /** The slot holding `name`, or the free slot where it would go. */
  #slotOf(name: string): number {
    const slots = this.#slots;
    const mask = slots.length - 1;
    for (let i = hashOf(name) & mask;; i = (i + 1) & mask) {
      const at = slots[i]!;
      if (at === 0 || this.#items[at - 1]!.name === name) return i;
    }
  }

  get(name: string): E | undefined {
    if (typeof name !== "string") return undefined;
    const at = this.#slots[this.#slotOf(name)]!;
    return at === 0 ? undefined : this.#items[at - 1];
  }

  has(name: string): boolean {
    return this.get(name) !== undefined;
  }

  /** Adds `item` under its name, which must not be held yet. */
  add(item: E): void {
    if (!this.#insert(item)) throw new Error(`the name is held already: ${item.name}`);
  }

  /** Adds `item` unless its name is held already (then false); the name is hashed once. */
  #insert(item: E): boolean {
    if ((this.#items.length + 1) * 2 > this.#slots.length) this.#grow();
    const slot = this.#slotOf(item.name);
    if (this.#slots[slot] !== 0) return false;
    this.#items.push(item);
    this.#slots[slot] = this.#items.length;
    return true;
  }

  #grow(): void {
    this.#slots = new Int32Array(this.#slots.length * 2);
    const mask = this.#slots.length - 1;
    for (let p = 0; p < this.#items.length; p++) {
      let i = hashOf(this.#items[p]!.name) & mask;
      while (this.#slots[i] !== 0) i = (i + 1) & mask;
      this.#slots[i] = p + 1;
    }
  }

  forEach(fn: (value: E, key: string, map: ReadonlyMap<string, E>) => void, self?: unknown): void {
    for (const item of this.#items) fn.call(self, item, item.name, this);
  }

  *entries(): MapIterator<[string, E]> {
    for (const item of this.#items) yield [item.name, item];
  }

  *keys(): MapIterator<string> {
    for (const item of this.#items) yield item.name;
  }

  values(): MapIterator<E> {
    return this.#items.values();
  }

  [Symbol.iterator](): MapIterator<[string, E]> {
    return this.entries();
  }
}

/** A power of two at least twice `n` (at least 16). */
function slotsFor(n: number): number {
  let size = 16;
  while (size < n * 2) size *= 2;
  return size;
}
