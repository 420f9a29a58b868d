/**
 * @module `tools/list` answers prepared once per view and catalog: the tools a view lists, the
 * encoded JSON of each page the gateway hands cursors for, and a digest of the whole list
 * (what `./visible-changes.ts` compares). Every session and request of one view shares them, so
 * a full listing serialises nothing and a session keeps a digest, not a copy of its list.
 *
 * A view is everything `listedTools` reads: the caller's catalog (the shared one, or an
 * identity's own — prepared lists hang off the catalog object, so one identity's never serve
 * another's and a rebuild drops them all), the local tools, the running config (profiles,
 * exposure), the caller's profile and token globs, and whether its client renders MCP Apps.
 */
import type { Tool } from "../shared/protocol.ts";
import type { GatewayConfig } from "../config/mod.ts";
import type { Catalog } from "./catalog.ts";
import { listDigest } from "./list-changes.ts";
import { page } from "./paging.ts";
import type { Caller, LocalTool } from "./types.ts";

const ENCODER = new TextEncoder();

/** One view's list, prepared. */
export class PreparedList {
  readonly tools: readonly Tool[];
  #digest: string | undefined;
  /** The pages whose cursors the gateway hands out, encoded, by `size:offset`. */
  readonly #pages = new Map<string, Uint8Array>();

  constructor(tools: readonly Tool[]) {
    this.tools = tools;
  }

  /** A digest of the whole list (`listDigest`): equal digests, equal lists. */
  get digest(): string {
    return this.#digest ??= listDigest(this.tools);
  }

  /**
   * The `tools/list` result for `cursor` as UTF-8 JSON (`{"tools":[…],"nextCursor":…}`), laid
   * out as `JSON.stringify` writes it. Pages at the offsets the gateway's own cursors name are
   * kept; any other offset a client makes up is answered but not kept, so no client can grow
   * what a view holds.
   */
  pageBytes(cursor: string | undefined, size: number): Uint8Array {
    const { items, nextCursor, offset } = page(this.tools, cursor, size);
    const key = `${size}:${offset}`;
    const kept = this.#pages.get(key);
    if (kept !== undefined) return kept;
    const bytes = ENCODER.encode(
      JSON.stringify(nextCursor ? { tools: items, nextCursor } : { tools: items }),
    );
    if (offset % size === 0) this.#pages.set(key, bytes);
    return bytes;
  }
}

/** Views prepared per catalog; only lists of the running config are kept. */
export class PreparedLists {
  #byCatalog = new WeakMap<Catalog, Map<string, Kept>>();

  /**
   * The prepared list of `caller`'s view in `catalog`; `build` lists it when it is not kept.
   * `local` and `config` are checked by identity: a list of other local tools or another
   * config is never served (a reload rebuilds the catalog too; this is the second lock).
   */
  get(
    catalog: Catalog,
    caller: Caller,
    apps: boolean,
    local: ReadonlyMap<string, LocalTool>,
    config: GatewayConfig,
    build: () => Tool[],
  ): PreparedList {
    let views = this.#byCatalog.get(catalog);
    if (!views) {
      views = new Map();
      this.#byCatalog.set(catalog, views);
    }
    const globs = caller.toolGlobs === null ? "*" : JSON.stringify(caller.toolGlobs);
    const key = `${caller.profile ?? ""}\0${globs}\0${apps ? 1 : 0}`;
    const known = views.get(key);
    if (known && known.local === local && known.config === config) return known.list;
    // Views are per profile × token globs × Apps: bounded by the config; the cap is a backstop.
    if (views.size >= MAX_VIEWS) views.clear();
    const list = new PreparedList(build());
    views.set(key, { list, local, config });
    return list;
  }
}

const MAX_VIEWS = 256;

/** One kept view: its list and the local tools and config it was listed under. */
interface Kept {
  readonly list: PreparedList;
  readonly local: ReadonlyMap<string, LocalTool>;
  readonly config: GatewayConfig;
}
