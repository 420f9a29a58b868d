/**
 * One token's share of the task table. The gateway remembers at most {@link TASK_TABLE} tasks;
 * without shares, one token creating that many would push every other token's tasks — running
 * ones included — out of the table, and their owners could no longer read or cancel them. With
 * them a token holds at most `gateway.limits.tasksPerToken` tasks, and a creation that would
 * pass its share (or the table) is refused to its creator, never paid for by someone else. To
 * make room, only the creator's own tasks known to have ended (completed, failed or cancelled)
 * are forgotten, oldest first. Room is reserved before the upstream is asked, so concurrent
 * creations cannot overshoot and a refused creation starts nothing upstream. Anonymous callers
 * (no auth) meet the table's limit only, as they do for sessions.
 */
import { GatewayError } from "../../shared/errors.ts";

/** How many tasks the gateway remembers at once, over every token. */
export const TASK_TABLE = 10_000;

/** What the share needs to know of a remembered task. */
export interface SharedTask {
  readonly tokenName: string | null;
  /** True once the task is known to have ended (it no longer runs upstream). */
  ended: boolean;
}

/** Creations reserved but not remembered yet, per token; see the module comment. */
export class TaskShares {
  #pending = new Map<string | null, number>();
  #pendingTotal = 0;

  /**
   * Reserves room for one task of `tokenName` in `table` (insertion order: oldest first), or
   * throws `RATE_LIMITED` naming the limit. `forget` drops one of the creator's ended tasks to
   * make room. Returns the function to call once the task is remembered or its creation failed.
   */
  reserve(
    table: ReadonlyMap<string, SharedTask>,
    tokenName: string | null,
    perToken: number,
    forget: (id: string) => void,
  ): () => void {
    const pending = this.#pending.get(tokenName) ?? 0;
    if (tokenName !== null) {
      let held = pending;
      for (const t of table.values()) if (t.tokenName === tokenName) held++;
      if (held >= perToken && !this.#makeRoom(table, tokenName, forget)) {
        throw new GatewayError(
          "RATE_LIMITED",
          `token "${tokenName}" holds ${held} tasks, its share of the task table ` +
            `(gateway.limits.tasksPerToken = ${perToken}); wait for one to end and read it ` +
            `(tasks/get), or for one to expire, before creating another`,
          { data: { limit: "tasks", tasksPerToken: perToken } },
        );
      }
    }
    if (
      table.size + this.#pendingTotal >= TASK_TABLE && !this.#makeRoom(table, tokenName, forget)
    ) {
      throw new GatewayError(
        "RATE_LIMITED",
        `the gateway holds ${TASK_TABLE} tasks, all it keeps; retry once some have expired`,
        { data: { limit: "tasks" } },
      );
    }
    this.#pending.set(tokenName, pending + 1);
    this.#pendingTotal++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#pendingTotal--;
      const left = (this.#pending.get(tokenName) ?? 1) - 1;
      if (left > 0) this.#pending.set(tokenName, left);
      else this.#pending.delete(tokenName);
    };
  }

  /** Forgets the oldest ended task of `tokenName`; false when it has none. */
  #makeRoom(
    table: ReadonlyMap<string, SharedTask>,
    tokenName: string | null,
    forget: (id: string) => void,
  ): boolean {
    for (const [id, t] of table) {
      if (t.tokenName === tokenName && t.ended) {
        forget(id);
        return true;
      }
    }
    return false;
  }
}
