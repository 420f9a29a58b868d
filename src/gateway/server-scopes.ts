/**
 * Which upstream servers a caller reaches, cached per glob list and profile for one catalog
 * (a rebuild makes new ones; an identity with per-user connections has its own): every
 * resource list, completion and log message asks, and walking the whole catalog each time
 * would put the catalog's size on those paths. See `./access.ts` and
 * `./profiles.ts` for what "reaches" means.
 */
import { type Catalog, matchesAny } from "./catalog.ts";
import type { ProfileView } from "./profiles.ts";
import type { Caller } from "./types.ts";

/** Glob lists remembered per catalog before the cache starts over. */
const MAX_GLOB_LISTS = 256;

/** The servers-per-scope cache of one gateway. */
export class ServerScopes {
  #byCatalog = new WeakMap<Catalog, Map<string, ReadonlySet<string>>>();

  /**
   * The upstream servers this caller reaches in `catalog`: those owning at least one tool its
   * token's globs allow (hidden tools do not count), and on a profile's endpoint only the
   * profile's servers too; `null` = every server (no globs, no profile).
   */
  serversOf(
    caller: Caller,
    view: ProfileView | null,
    catalog: Catalog,
  ): ReadonlySet<string> | null {
    const globs = caller.toolGlobs;
    if (globs === null && view === null) return null;
    let byKey = this.#byCatalog.get(catalog);
    if (!byKey) this.#byCatalog.set(catalog, byKey = new Map());
    const key = `${view?.name ?? ""}\0${globs === null ? "" : JSON.stringify(globs)}`;
    let servers = byKey.get(key);
    if (!servers) {
      const token = globs === null ? null : owners(catalog, globs, new Set());
      const profile = view === null ? null : owners(catalog, view.tools, new Set(view.servers));
      servers = token === null
        ? profile!
        : profile === null
        ? token
        : new Set([...token].filter((s) => profile.has(s)));
      if (byKey.size > MAX_GLOB_LISTS) byKey.clear();
      byKey.set(key, servers);
    }
    return servers;
  }
}

/** `found` plus the servers owning a listed-or-discoverable tool that `globs` match. */
function owners(catalog: Catalog, globs: readonly string[], found: Set<string>): Set<string> {
  if (globs.length === 0) return found;
  for (const e of catalog.tools) {
    if (!e.hidden && !found.has(e.server) && matchesAny(e.name, globs)) found.add(e.server);
  }
  return found;
}
