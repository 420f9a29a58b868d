/**
 * Upstream starts in bounded waves. Fifty stdio servers spawned at once — each a process to
 * fork and a runtime to boot — took the machine's cores from the gateway itself, whose port then
 * answered `/healthz` only after the storm. Here at most {@link START_SLOTS} starts are begun at
 * a time, and the first waits one turn of the event loop so requests already at the port are
 * answered before any child is spawned. A slot is held until its start finishes or
 * {@link SLOT_HOLD_MS} passes, whichever is first: a server that hangs in its handshake slows
 * the rest by that much, never by its whole start timeout.
 */

/** Starts begun at once. */
export const START_SLOTS = 8;
/** Longest a start holds its slot. */
export const SLOT_HOLD_MS = 250;

/**
 * Runs `start` for every item, at most `slots` begun and unfinished (or younger than `holdMs`)
 * at a time; resolves when every start has settled. `start` must not throw.
 */
export async function startInWaves<T>(
  items: readonly T[],
  start: (item: T) => Promise<void>,
  slots = START_SLOTS,
  holdMs = SLOT_HOLD_MS,
): Promise<void> {
  const all: Promise<void>[] = [];
  let free = slots;
  const waiting: (() => void)[] = [];
  const release = () => {
    const next = waiting.shift();
    if (next) next();
    else free++;
  };
  // One macrotask first: whatever reached the port meanwhile is served before the first spawn.
  await new Promise((r) => setTimeout(r, 0));
  for (const item of items) {
    if (free > 0) free--;
    else await new Promise<void>((r) => waiting.push(r));
    const done = start(item);
    all.push(done);
    let released = false;
    const once = () => {
      if (released) return;
      released = true;
      clearTimeout(timer);
      release();
    };
    const timer = setTimeout(once, holdMs);
    void done.then(once, once);
  }
  await Promise.all(all);
}
