/**
 * Which upstream servers a token reaches, cached per glob list for one catalog version: every
 * resource list, completion and log message asks, and walking the whole catalog each time would
 * put the catalog's size on those paths. See `./access.ts` for what "reaches" means.
 */
import { type Catalog, matchesAny } from "./catalog.ts";
import type { Caller } from "./types.ts";

/** Glob lists remembered per catalog version before the cache starts over. */
const MAX_GLOB_LISTS = 256;

/** The servers-per-token cache of one gateway. */
export class ServerScopes {
  #version = -1;
  #byGlobs = new Map<string, ReadonlySet<string>>();

  /**
   * The upstream servers this caller's token reaches in `catalog` (at `version`): those owning at
   * least one tool its globs allow (hidden tools do not count); `null` = every server (no globs).
   */
  serversOf(caller: Caller, catalog: Catalog, version: number): ReadonlySet<string> | null {
    const globs = caller.toolGlobs;
    if (globs === null) return null;
    if (this.#version !== version) {
      this.#version = version;
      this.#byGlobs = new Map();
    }
    const key = JSON.stringify(globs);
    let servers = this.#byGlobs.get(key);
    if (!servers) {
      const found = new Set<string>();
      for (const e of catalog.tools) {
        if (!e.hidden && !found.has(e.server) && matchesAny(e.name, globs)) found.add(e.server);
      }
      servers = found;
      if (this.#byGlobs.size > MAX_GLOB_LISTS) this.#byGlobs.clear();
      this.#byGlobs.set(key, servers);
    }
    return servers;
  }
}
