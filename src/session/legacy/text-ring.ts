/**
 * Texts held oldest first and let go oldest first, as UTF-8 in one buffer that is reused as they
 * come and go. The replay store keeps the newest of each session's log and progress
 * notifications this way: kept as their own objects, every message of a flood outlived the
 * collector's young generation before it was let go, and was freed only by a full collection —
 * a flood grew the process by far more than the share it kept. Here a flood writes over the
 * same bytes, and only the buffer lives long. The buffer shrinks again as texts leave: a ring that
 * once took a burst does not keep its size for the few texts it still holds.
 */

/** Where one text lies in its ring; moved when the ring grows or shrinks. */
export interface RingSlot {
  start: number;
  readonly length: number;
}

/** Bytes a ring starts with; it doubles as needed, up to what its owner allows, and halves back. */
const FIRST_CAPACITY = 64 * 1024;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** See the module comment. Slots are let go only in the order they were put. */
export class TextRing {
  #buf = new Uint8Array(0);
  /** The slots held, oldest first, from `#first` on (compacted now and then). */
  #slots: (RingSlot | undefined)[] = [];
  #first = 0;
  /** Where the next text goes. */
  #tail = 0;
  /** True while the newest texts lie before the oldest (the ring wrapped to its start). */
  #wrapped = false;
  /** Bytes of the texts held. */
  #held = 0;

  /** Bytes the ring holds (its buffer's length): what it costs, held or not. */
  get capacity(): number {
    return this.#buf.byteLength;
  }

  /**
   * Puts `text`, `bytes` long in UTF-8, after the newest, growing the buffer up to `limit`
   * bytes if it must; `undefined` when it does not fit beside what is held (the owner lets the
   * oldest go and asks again).
   */
  put(text: string, bytes: number, limit: number): RingSlot | undefined {
    let start = this.#place(bytes);
    if (start === undefined) {
      if (this.#buf.byteLength >= limit || bytes > limit) return undefined;
      this.#resize(Math.min(limit, Math.max(FIRST_CAPACITY, 2 * this.#buf.byteLength, bytes)));
      start = this.#place(bytes);
      if (start === undefined) return undefined;
    }
    encoder.encodeInto(text, this.#buf.subarray(start, start + bytes));
    const slot: RingSlot = { start, length: bytes };
    this.#slots.push(slot);
    this.#tail = start + bytes;
    this.#held += bytes;
    return slot;
  }

  /** The text of `slot`, still held. */
  text(slot: RingSlot): string {
    return decoder.decode(this.#buf.subarray(slot.start, slot.start + slot.length));
  }

  /** Lets go the oldest slot held. */
  shift(): void {
    const gone = this.#slots[this.#first];
    if (!gone) return;
    this.#slots[this.#first++] = undefined;
    this.#held -= gone.length;
    if (this.#first === this.#slots.length) {
      this.#slots.length = this.#first = this.#tail = 0;
      this.#wrapped = false;
      if (this.#buf.byteLength > FIRST_CAPACITY) this.#buf = new Uint8Array(0);
      return;
    }
    if (this.#first > 64 && this.#first * 2 > this.#slots.length) {
      this.#slots.splice(0, this.#first);
      this.#first = 0;
    }
    // The texts before the wrap are all gone once the oldest lies before the one let go.
    if (this.#wrapped && this.#head() < gone.start) this.#wrapped = false;
    if (this.#buf.byteLength > FIRST_CAPACITY && this.#held * 4 < this.#buf.byteLength) {
      this.#resize(Math.max(FIRST_CAPACITY, this.#held * 2));
    }
  }

  /** Where the oldest held text starts (0 when none is). */
  #head(): number {
    return this.#slots[this.#first]?.start ?? 0;
  }

  /** Where `bytes` fit after the newest without overwriting a held text, if they do. */
  #place(bytes: number): number | undefined {
    const cap = this.#buf.byteLength;
    if (this.#first >= this.#slots.length) return bytes <= cap ? 0 : undefined;
    const head = this.#head();
    if (this.#wrapped) return this.#tail + bytes <= head ? this.#tail : undefined;
    if (this.#tail + bytes <= cap) return this.#tail;
    if (bytes <= head) {
      this.#wrapped = true;
      return 0;
    }
    return undefined;
  }

  /** Moves what is held, oldest first, to the start of a new buffer of `capacity` bytes. */
  #resize(capacity: number): void {
    const next = new Uint8Array(capacity);
    let at = 0;
    for (let i = this.#first; i < this.#slots.length; i++) {
      const slot = this.#slots[i]!;
      next.set(this.#buf.subarray(slot.start, slot.start + slot.length), at);
      slot.start = at;
      at += slot.length;
    }
    this.#buf = next;
    this.#tail = at;
    this.#wrapped = false;
  }
}
