/**
 * Watches the config file for edits. The folder is watched, not the file, because editors save
 * by writing a new file and renaming it over the old one (the file's own watch would die with
 * the old inode). Bursts of events are debounced, and a save that leaves the text unchanged
 * does not trigger a reload.
 */
import { type FSWatcher, readFileSync, watch } from "node:fs";
import { basename, dirname } from "node:path";
import { messageOf } from "../shared/errors.ts";
import type { Logger } from "../shared/log.ts";

/** A running watch. */
export interface ConfigWatch {
  close(): void;
}

/** Calls `onChange` once per settled change of `file`'s content. */
export function watchConfigFile(
  file: string,
  onChange: () => void,
  log: Logger,
  debounceMs = 300,
): ConfigWatch {
  const name = basename(file);
  let last = read(file);
  let timer: ReturnType<typeof setTimeout> | undefined;
  let watcher: FSWatcher | undefined;
  const settle = () => {
    const now = read(file);
    if (now === null || now === last) return; // mid-rename, or touched without edits
    last = now;
    onChange();
  };
  try {
    watcher = watch(dirname(file), { persistent: false }, (_event, changed) => {
      if (changed !== null && String(changed) !== name) return;
      clearTimeout(timer);
      timer = setTimeout(settle, debounceMs);
      (timer as { unref?: () => void }).unref?.();
    });
    watcher.on("error", (err) => log.warn("config watch failed", { error: messageOf(err) }));
  } catch (err) {
    log.warn("cannot watch the config file; reload with SIGHUP", { error: messageOf(err) });
  }
  return {
    close() {
      clearTimeout(timer);
      watcher?.close();
    },
  };
}

function read(file: string): string | null {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return null;
  }
}
