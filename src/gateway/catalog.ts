/**
 * The aggregated catalog: every upstream tool and prompt under its exposed name, after
 * allow/deny globs and per-tool overrides; collisions resolved deterministically. The
 * gateway's own tools (`execute`, `tool_search`, `tool_describe`, macros) keep their names: an
 * upstream tool exposed under one of them (`prefix: false`) is renamed like any collision, so
 * no list ever holds two tools of one name. A name one server lists twice is exposed once (its
 * first copy); upstream names never key a plain object.
 */
import picomatch from "picomatch";
import type { Prompt, Tool } from "../shared/protocol.ts";
import type { GatewayConfig } from "../config/mod.ts";
import { own } from "../shared/by-name.ts";
import type { Logger } from "../shared/log.ts";
import type { Upstream } from "../upstream/mod.ts";
import { disambiguate, exposedName } from "./names.ts";
import { appOnly, exposeToolMeta } from "./passthrough/app-uris.ts";
import { NameIndex } from "./name-index.ts";

/** One upstream tool as the gateway exposes it. */
export interface ToolEntry {
  /** Exposed name. */
  readonly name: string;
  readonly server: string;
  /** The name the upstream knows it by. */
  readonly upstreamName: string;
  /** The tool definition as listed downstream (exposed name, overridden description). */
  readonly tool: Tool;
  /** Not listed, searchable or callable by clients; macros may call it. */
  readonly hidden: boolean;
  /** Not listed; found by search; callable. */
  readonly discoverable: boolean;
  /** For MCP Apps views only (`_meta.ui.visibility` without `"model"`): not listed or found. */
  readonly appOnly: boolean;
}

/** One upstream prompt as the gateway exposes it. */
export interface PromptEntry {
  readonly name: string;
  readonly server: string;
  readonly upstreamName: string;
  readonly prompt: Prompt;
}

/** An upstream tool that did not get the name it would have had. */
export interface RenamedTool {
  readonly server: string;
  /** The upstream's name for it. */
  readonly tool: string;
  /** The name it would have had. */
  readonly name: string;
  /** The name it got. */
  readonly as: string;
  /** Who holds the name: another server's tool (`server/tool`), or `gateway` (its own tool). */
  readonly kept: string;
}

/** Every exposed tool and prompt, with lookup by exposed name. */
export interface Catalog {
  readonly tools: readonly ToolEntry[];
  readonly toolsByName: ReadonlyMap<string, ToolEntry>;
  readonly prompts: readonly PromptEntry[];
  readonly promptsByName: ReadonlyMap<string, PromptEntry>;
  /** Tools renamed because their name was taken (`check --connect` reports them). */
  readonly renamed: readonly RenamedTool[];
}

const matcherCache = new Map<string, (s: string) => boolean>();

/** True when `name` matches any of `globs` (picomatch; `*` does not cross nothing special). */
export function matchesAny(name: string, globs: readonly string[]): boolean {
  for (const g of globs) {
    let m = matcherCache.get(g);
    if (!m) {
      m = picomatch(g, { dot: true });
      matcherCache.set(g, m);
    }
    if (m(name)) return true;
  }
  return false;
}

/**
 * Builds the catalog from the upstreams that are up, in config order; `reserved` are the names
 * of the gateway's own tools, which no upstream tool may take.
 */
export function buildCatalog(
  config: GatewayConfig,
  upstreams: readonly Upstream[],
  log: Logger,
  reserved: ReadonlySet<string> = new Set(),
): Catalog {
  const sep = config.gateway.separator;
  const tools: ToolEntry[] = [];
  const toolsByName = new NameIndex<ToolEntry>();
  const taken = { has: (n: string) => toolsByName.has(n) || reserved.has(n) };
  const renamed: RenamedTool[] = [];
  const prompts: PromptEntry[] = [];
  const promptsByName = new Map<string, PromptEntry>();
  for (const u of upstreams) {
    const cfg = u.config;
    const list = entriesOf(u, sep, log);
    for (let entry of list.wanted) {
      const name = entry.name;
      if (taken.has(name)) {
        const other = toolsByName.get(name);
        const upstreamName = entry.upstreamName;
        const as = disambiguate(name, `${cfg.name}/${upstreamName}`, taken);
        const kept = other ? `${other.server}/${other.upstreamName}` : "gateway";
        log.warn(
          other ? "tool name collision; renamed" : "tool name is the gateway's own; renamed",
          { name, kept, renamed: `${cfg.name}/${upstreamName}`, as },
        );
        renamed.push({ server: cfg.name, tool: upstreamName, name, as, kept });
        entry = renamedEntry(list, entry, as);
      }
      tools.push(entry);
      toolsByName.add(entry);
    }
    const once = firstCopies(cfg.name, log);
    for (const prompt of u.catalog.prompts) {
      if (!once("prompt", prompt.name)) continue;
      let name = exposedName(cfg.name, prompt.name, sep, cfg.prefix);
      if (promptsByName.has(name)) {
        name = disambiguate(name, `${cfg.name}/${prompt.name}`, promptsByName);
      }
      const entry: PromptEntry = {
        name,
        server: cfg.name,
        upstreamName: prompt.name,
        prompt: { ...prompt, name },
      };
      prompts.push(entry);
      promptsByName.set(name, entry);
    }
  }
  return { tools, toolsByName, prompts, promptsByName, renamed };
}

/**
 * One upstream list's entries as its server's config exposes them (allow/deny, overrides, first
 * copy of each name), each under the name it wants before other servers' names count, with the
 * config and separator they were made under; `renamed` holds the entries made when a wanted name
 * was taken. Kept per list the upstream returned (a list stays the same array until it is read
 * again): a rebuild after one server changes works out only that server's entries, and keeps one
 * object per unchanged tool, so what is cached per entry (search terms, prepared lists) stays
 * valid. One record per list, not one per tool: a tool costs its entry and nothing beside it.
 */
interface ListEntries {
  readonly config: Upstream["config"];
  readonly sep: string;
  readonly wanted: readonly ToolEntry[];
  /** By upstream name: the entry under its wanted name it was made from, and the renamed one. */
  renamed: Map<string, { readonly from: ToolEntry; readonly entry: ToolEntry }> | null;
}

const lists = new WeakMap<readonly Tool[], ListEntries>();

/** `u`'s entries under their wanted names (see {@link ListEntries}). */
function entriesOf(u: Upstream, sep: string, log: Logger): ListEntries {
  const cfg = u.config;
  const listed = u.catalog.tools;
  const known = lists.get(listed);
  if (known && known.config === cfg && known.sep === sep) return known;
  // Made under another config: its entries stay where nothing about them changed.
  const before = new Map<string, ToolEntry>();
  if (known) { for (const e of known.wanted) before.set(e.upstreamName, e); }
  const once = firstCopies(cfg.name, log);
  const wanted: ToolEntry[] = [];
  for (const tool of listed) {
    if (!once("tool", tool.name)) continue;
    if (cfg.allow.length > 0 && !matchesAny(tool.name, cfg.allow)) continue;
    if (matchesAny(tool.name, cfg.deny)) continue;
    const o = own(cfg.overrides, tool.name) ?? {};
    const name = exposedName(cfg.name, o.name ?? tool.name, sep, cfg.prefix);
    const exposure: Exposure = {
      description: o.description,
      hidden: o.hidden ?? false,
      discoverable: o.discoverable ?? cfg.discoverable,
    };
    const old = before.get(tool.name);
    wanted.push(
      old && sameEntry(old, tool, name, cfg.name, exposure)
        ? old
        : entryOf(tool, name, cfg.name, exposure),
    );
  }
  // Renamed entries stay valid while the entry they were made from is kept.
  const made: ListEntries = { config: cfg, sep, wanted, renamed: known?.renamed ?? null };
  lists.set(listed, made);
  return made;
}

/**
 * `wanted` exposed as `name` instead, another server's tool (or the gateway's) holding its own:
 * its definition as exposed, renamed; kept per list like the entries under their wanted names.
 */
function renamedEntry(list: ListEntries, wanted: ToolEntry, name: string): ToolEntry {
  list.renamed ??= new Map();
  const known = list.renamed.get(wanted.upstreamName);
  if (known && known.from === wanted && known.entry.name === name) return known.entry;
  const entry: ToolEntry = { ...wanted, name, tool: { ...wanted.tool, name } };
  list.renamed.set(wanted.upstreamName, { from: wanted, entry });
  return entry;
}

/** How the config exposes one upstream tool, besides its name and server. */
interface Exposure {
  readonly description: string | undefined;
  readonly hidden: boolean;
  readonly discoverable: boolean;
}

/** True when `entry` is what {@link entryOf} would make of these. */
function sameEntry(
  entry: ToolEntry,
  tool: Tool,
  name: string,
  server: string,
  exposure: Exposure,
): boolean {
  return entry.name === name && entry.server === server &&
    entry.tool.description === (exposure.description ?? tool.description) &&
    entry.hidden === exposure.hidden && entry.discoverable === exposure.discoverable;
}

/** The entry of `tool` exposed as `name` by `server`. */
function entryOf(tool: Tool, name: string, server: string, exposure: Exposure): ToolEntry {
  const { description, hidden, discoverable } = exposure;
  return {
    name,
    server,
    upstreamName: tool.name,
    tool: exposeToolMeta(server, {
      ...tool,
      name,
      ...(description !== undefined ? { description } : {}),
    }),
    hidden,
    discoverable,
    appOnly: appOnly(tool),
  };
}

/**
 * A filter passing the first copy of each name one server lists: a call names the tool, so a
 * second definition under the same name is never the one that runs — listing it (renamed)
 * would only show a definition the upstream may not honour. Pinning treats the repetition as a
 * change of its own (`pinning/review.ts`).
 */
function firstCopies(server: string, log: Logger): (kind: string, name: string) => boolean {
  const seen = new Set<string>();
  return (kind, name) => {
    const key = `${kind}\0${name}`;
    if (!seen.has(key)) {
      seen.add(key);
      return true;
    }
    log.warn(`${kind} listed more than once by its server; the first copy is exposed`, {
      server,
      [kind]: name,
    });
    return false;
  };
}
