/**
 * Profiles: one more narrowing of the catalog, on top of the token's globs. A caller that came
 * in on `/mcp/<profile>` (or `--stdio --profile`) carries the profile's name; the gateway turns
 * it into a {@link ProfileView} from the running config at every check, so a reload that
 * changes a profile applies to every open session and running script from the next check on,
 * and a removed profile reaches nothing.
 *
 * A profile holds the upstream tools its `tools` globs match or whose server it names; the
 * macros its `macros` (or `tools`) globs match; `execute` when `execute: true` (or, unset, when
 * a `tools` glob matches it); and the meta-tools. Its servers — what resources, prompts and
 * completions follow — are the ones it names plus those owning a tool its globs match.
 */
import type { GatewayConfig, ProfileConfig } from "../config/mod.ts";
import { matchesAny } from "./catalog.ts";
import type { LocalTool } from "./types.ts";

/** What one profile holds, compiled from its config. */
export interface ProfileView {
  readonly name: string;
  readonly exposure: "all" | "search";
  /** Servers named whole (`servers:`). */
  readonly servers: ReadonlySet<string>;
  /** The `tools` globs (they also give the profile the servers of the tools they match). */
  readonly tools: readonly string[];
  /** True when the upstream tool `name` of `server` is in the profile. */
  upstream(name: string, server: string): boolean;
  /** True when the local tool (meta-tool, macro, execute) is in the profile. */
  local(tool: LocalTool): boolean;
}

const views = new WeakMap<ProfileConfig, ProfileView>();
const byName = new WeakMap<readonly ProfileConfig[], ReadonlyMap<string, ProfileConfig>>();

/**
 * The view of profile `name` in `config`: `null` for no profile (the whole catalog); a view
 * that holds nothing when the config has no such profile (a reload removed it).
 */
export function profileView(config: GatewayConfig, name: string | null): ProfileView | null {
  if (name === null) return null;
  const profile = profileConfig(config, name);
  if (!profile) return goneView(name, config.gateway.exposure);
  let view = views.get(profile);
  if (!view) {
    view = compile(profile);
    views.set(profile, view);
  }
  return view;
}

/** The configured profile named `name`, or `undefined`. */
export function profileConfig(config: GatewayConfig, name: string): ProfileConfig | undefined {
  let map = byName.get(config.profiles);
  if (!map) {
    map = new Map(config.profiles.map((p) => [p.name, p]));
    byName.set(config.profiles, map);
  }
  return map.get(name);
}

function compile(p: ProfileConfig): ProfileView {
  const servers = new Set(p.servers);
  const execute = p.execute ?? matchesAny("execute", p.tools);
  return {
    name: p.name,
    exposure: p.exposure,
    servers,
    tools: p.tools,
    upstream: (name, server) => servers.has(server) || matchesAny(name, p.tools),
    local(tool) {
      if (tool.script === "execute") return execute;
      if (tool.script === "macro") {
        return matchesAny(tool.tool.name, p.macros) || matchesAny(tool.tool.name, p.tools);
      }
      return true; // the meta-tools search within the profile
    },
  };
}

function goneView(name: string, exposure: "all" | "search"): ProfileView {
  return {
    name,
    exposure,
    servers: new Set(),
    tools: [],
    upstream: () => false,
    local: () => false,
  };
}
