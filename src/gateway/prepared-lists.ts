/**
 * @module `tools/list` answers prepared once per view and catalog: the tools a view lists, the
 * JSON text of each page the gateway hands cursors for, and the whole list's text (what
 * `./visible-changes.ts` compares). Every session and request of one view shares them, so a
 * full listing serialises nothing and a session keeps a reference, not a copy.
 *
 * A view is everything `listedTools` reads: the caller's catalog (the shared one, or an
 * identity's own — prepared lists hang off the catalog object, so one identity's never serve
 * another's and a rebuild drops them all), the local tools, the running config (profiles,
 * exposure), the caller's profile and token globs, and whether its client renders MCP Apps.
 */
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import type { GatewayConfig } from "../config/mod.ts";
import type { Catalog } from "./catalog.ts";
import { page } from "./paging.ts";
import type { Caller, LocalTool } from "./types.ts";
import { withRawJson } from "../shared/raw-json.ts";

/** One page of a `tools/list` result (never mutated: it carries its JSON text). */
export interface ListPage {
  readonly tools: readonly Tool[];
  readonly nextCursor?: string;
}

/** One view's list, prepared. */
export class PreparedList {
  readonly tools: readonly Tool[];
  #text: string | undefined;
  /** The pages whose cursors the gateway hands out, by `size:offset`. */
  readonly #pages = new Map<string, ListPage>();

  constructor(tools: readonly Tool[]) {
    this.tools = tools;
  }

  /** The whole list as JSON text (one string per view: sessions compare it by reference). */
  get text(): string {
    return this.#text ??= JSON.stringify(this.tools);
  }

  /**
   * The `tools/list` result for `cursor`, carrying its JSON text (`rawJsonOf`), so an answer
   * writer sends the text instead of serialising the tools again. Pages at the offsets the
   * gateway's own cursors name are kept; any other offset a client makes up is answered but
   * not kept, so no client can grow what a view holds.
   */
  pageResult(cursor: string | undefined, size: number): ListPage {
    const { items, nextCursor, offset } = page(this.tools, cursor, size);
    const key = `${size}:${offset}`;
    const kept = this.#pages.get(key);
    if (kept !== undefined) return kept;
    const result: ListPage = nextCursor ? { tools: items, nextCursor } : { tools: items };
    withRawJson(result, JSON.stringify(result));
    if (offset % size === 0) this.#pages.set(key, result);
    return result;
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
