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
 *
 * A rebuild drops every prepared page, and encoding a page of 1,000 tools is milliseconds of
 * serialising and fresh memory: the first client to list after a change would pay for all of
 * them. So the views listed lately are prepared again after each rebuild, off the request path —
 * one page per turn of the event loop, given up as soon as another rebuild comes.
 */
import type { Tool } from "../shared/protocol.ts";
import type { GatewayConfig } from "../config/mod.ts";
import type { Catalog } from "./catalog.ts";
import { listDigest } from "./list-changes.ts";
import { cursorAt, DEFAULT_PAGE_SIZE, page } from "./paging.ts";
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

  /** How many pages are kept encoded. */
  get keptPages(): number {
    return this.#pages.size;
  }

  /** The cursor of every page the gateway hands out at `size` items a page, the first's none. */
  *cursors(size: number): Generator<string | undefined> {
    for (let offset = 0; offset === 0 || offset < this.tools.length; offset += size) {
      yield cursorAt(offset);
    }
  }
}

/** Views prepared per catalog; only lists of the running config are kept. */
export class PreparedLists {
  #byCatalog = new WeakMap<Catalog, Map<string, Kept>>();
  /**
   * The views clients listed lately, by view key, with a caller who listed each and when (most
   * recent last); a preparation's own listing is not counted.
   */
  readonly #recent = new Map<string, { caller: Caller; apps: boolean; at: number }>();
  #preparing = false;
  /** Bumped by each {@link prepareAgain} and by {@link stop}: a run of an older one gives up. */
  #generation = 0;

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
    if (!this.#preparing) this.#remember(key, caller, apps);
    const known = views.get(key);
    if (known && known.local === local && known.config === config) return known.list;
    // Views are per profile × token globs × Apps: bounded by the config; the cap is a backstop.
    if (views.size >= MAX_VIEWS) views.clear();
    const list = new PreparedList(build());
    views.set(key, { list, local, config });
    return list;
  }

  /** Notes that a client listed view `key` now, as `caller`. */
  #remember(key: string, caller: Caller, apps: boolean): void {
    const seen = this.#recent.get(key);
    this.#recent.delete(key);
    if (seen !== undefined && seen.caller.tokenName === caller.tokenName) {
      seen.at = Date.now();
      this.#recent.set(key, seen);
      return;
    }
    this.#recent.set(key, { caller: viewCaller(caller), apps, at: Date.now() });
    if (this.#recent.size > RECENT_VIEWS) this.#recent.delete(this.#recent.keys().next().value!);
  }

  /**
   * After a rebuild: the views clients listed in the last {@link RECENT_MS} are listed again by
   * `list` (as a request would list them) and their pages encoded, one per turn, until done or
   * the next rebuild or stop. A view that can no longer be listed (its profile gone with a
   * reload) is skipped.
   */
  prepareAgain(list: (caller: Caller, apps: boolean) => PreparedList): void {
    const generation = ++this.#generation;
    const since = Date.now() - RECENT_MS;
    const views = [...this.#recent.values()].filter((v) => v.at >= since).reverse();
    if (views.length === 0) return;
    const current = () => generation === this.#generation;
    void (async () => {
      for (const { caller, apps } of views) {
        await nextTurn();
        if (!current()) return;
        let prepared: PreparedList;
        this.#preparing = true;
        try {
          prepared = list(caller, apps);
        } catch {
          continue;
        } finally {
          this.#preparing = false;
        }
        for (const cursor of prepared.cursors(DEFAULT_PAGE_SIZE)) {
          await nextTurn();
          if (!current()) return;
          prepared.pageBytes(cursor, DEFAULT_PAGE_SIZE);
        }
      }
    })();
  }

  /** Gives up a preparation under way (the gateway stops). */
  stop(): void {
    this.#generation++;
    this.#recent.clear();
  }
}

const MAX_VIEWS = 256;
/** How many of the views listed lately are prepared again after a rebuild… */
const RECENT_VIEWS = 8;
/** …and how lately: a view nobody listed for this long waits for its next client. */
const RECENT_MS = 10 * 60_000;

/**
 * What of `caller` a view is listed by, as it reads now: no session, no subject token — a view
 * kept to be prepared again holds neither a closed session nor a token past its use.
 */
function viewCaller(caller: Caller): Caller {
  return Object.freeze({
    sessionId: null,
    tokenName: caller.tokenName,
    toolGlobs: caller.toolGlobs,
    profile: caller.profile,
  });
}

/** Resolves in a later turn of the event loop, after what is already waiting (requests too). */
function nextTurn(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

/** One kept view: its list and the local tools and config it was listed under. */
interface Kept {
  readonly list: PreparedList;
  readonly local: ReadonlyMap<string, LocalTool>;
  readonly config: GatewayConfig;
}
