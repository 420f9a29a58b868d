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
  const toolsByName = new Map<string, ToolEntry>();
  const taken = { has: (n: string) => toolsByName.has(n) || reserved.has(n) };
  const renamed: RenamedTool[] = [];
  const prompts: PromptEntry[] = [];
  const promptsByName = new Map<string, PromptEntry>();
  for (const u of upstreams) {
    const cfg = u.config;
    for (const { tool, name: wanted, exposure } of candidatesOf(u, sep, log)) {
      let name = wanted;
      if (taken.has(name)) {
        const other = toolsByName.get(name);
        const as = disambiguate(name, `${cfg.name}/${tool.name}`, taken);
        const kept = other ? `${other.server}/${other.upstreamName}` : "gateway";
        log.warn(
          other ? "tool name collision; renamed" : "tool name is the gateway's own; renamed",
          { name, kept, renamed: `${cfg.name}/${tool.name}`, as },
        );
        renamed.push({ server: cfg.name, tool: tool.name, name, as, kept });
        name = as;
      }
      const entry = entryOf(tool, name, cfg.name, exposure);
      tools.push(entry);
      toolsByName.set(name, entry);
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

/** One upstream tool as its server's config exposes it, before other servers' names count. */
interface Candidate {
  readonly tool: Tool;
  /** Its exposed name, unless another server's tool (or the gateway's) already holds it. */
  readonly name: string;
  readonly exposure: Exposure;
}

/**
 * Candidates already worked out, per list the upstream returned (a list stays the same array
 * until it is read again) with the config and separator they were made under: a rebuild after
 * one server changes works out only that server's names.
 */
const candidates = new WeakMap<
  readonly Tool[],
  { config: Upstream["config"]; sep: string; list: readonly Candidate[] }
>();

/** `u`'s tools its config exposes (allow/deny, overrides), first copy of each name only. */
function candidatesOf(u: Upstream, sep: string, log: Logger): readonly Candidate[] {
  const cfg = u.config;
  const listed = u.catalog.tools;
  const known = candidates.get(listed);
  if (known && known.config === cfg && known.sep === sep) return known.list;
  const once = firstCopies(cfg.name, log);
  const list: Candidate[] = [];
  for (const tool of listed) {
    if (!once("tool", tool.name)) continue;
    if (cfg.allow.length > 0 && !matchesAny(tool.name, cfg.allow)) continue;
    if (matchesAny(tool.name, cfg.deny)) continue;
    const o = own(cfg.overrides, tool.name) ?? {};
    list.push({
      tool,
      name: exposedName(cfg.name, o.name ?? tool.name, sep, cfg.prefix),
      exposure: {
        description: o.description,
        hidden: o.hidden ?? false,
        discoverable: o.discoverable ?? cfg.discoverable,
      },
    });
  }
  candidates.set(listed, { config: cfg, sep, list });
  return list;
}

/** How the config exposes one upstream tool, besides its name and server. */
interface Exposure {
  readonly description: string | undefined;
  readonly hidden: boolean;
  readonly discoverable: boolean;
}

/**
 * Entries already made, per upstream definition (an upstream's list stays the same objects
 * until it is read again) with the exposure they were made under.
 */
const entries = new WeakMap<Tool, { entry: ToolEntry; exposure: Exposure }>();

/**
 * The entry of `tool` exposed as `name` by `server`: the one a previous rebuild made when
 * nothing about it changed, so each rebuild keeps one object per tool and what is cached per
 * tool object (search terms, prepared lists) stays valid.
 */
function entryOf(tool: Tool, name: string, server: string, exposure: Exposure): ToolEntry {
  const known = entries.get(tool);
  if (
    known && known.entry.name === name && known.entry.server === server &&
    known.exposure.description === exposure.description &&
    known.exposure.hidden === exposure.hidden &&
    known.exposure.discoverable === exposure.discoverable
  ) {
    return known.entry;
  }
  const { description, hidden, discoverable } = exposure;
  const entry: ToolEntry = {
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
  entries.set(tool, { entry, exposure });
  return entry;
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
