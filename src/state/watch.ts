/**
 * Watches a folder of the state folder for files another process wrote (the `approve` command,
 * another instance). Events are debounced; the folder is made first so it can be watched before
 * anything was written into it.
 */
import { type FSWatcher, mkdirSync, watch } from "node:fs";
import { messageOf } from "../shared/errors.ts";
import type { Logger } from "../shared/log.ts";

/** A running folder watch. */
export interface FolderWatch {
  close(): void;
}

/** Calls `onChange` once per burst of changes in `dir` (created when missing). */
export function watchStateFolder(
  dir: string,
  onChange: () => void,
  log: Logger,
  debounceMs = 150,
): FolderWatch {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let watcher: FSWatcher | undefined;
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    watcher = watch(dir, { persistent: false }, () => {
      clearTimeout(timer);
      timer = setTimeout(onChange, debounceMs);
      (timer as { unref?: () => void }).unref?.();
    });
    watcher.on("error", (err) => log.warn("state folder watch failed", { error: messageOf(err) }));
  } catch (err) {
    log.warn("cannot watch the state folder; approvals apply on reload", {
      dir,
      error: messageOf(err),
    });
  }
  return {
    close() {
      clearTimeout(timer);
      watcher?.close();
    },
  };
}
