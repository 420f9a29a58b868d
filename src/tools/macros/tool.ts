/**
 * Macros as gateway tools: listed under their own names (no server prefix), searchable under
 * the server `macros`, validated against their declared params, able to call every upstream
 * tool including hidden ones. Reloaded with the config and when a macro file changes; an
 * invalid macro folder on reload keeps the previous macros serving.
 */
import { existsSync, type FSWatcher, watch } from "node:fs";
import type { GatewayConfig } from "../../config/mod.ts";
import { invokeMacro } from "./invoke.ts";
import { loadMacros, type MacroDef } from "./registry.ts";
import type { ScriptHost } from "../../scripting/mod.ts";
import { messageOf } from "../../shared/errors.ts";
import type { Gateway, LocalTool, LocalToolProvider } from "../../gateway/mod.ts";
import { bridgeFor } from "./bridge.ts";
import { type ScriptRuns, verdictOf } from "../runs.ts";
import { signalOf } from "../../shared/call-context.ts";

/** The search group macros belong to. */
export const MACRO_SERVER = "macros";

/** Provides the macros of a config. */
export class MacroTools implements LocalToolProvider {
  #gateway: Gateway;
  #host: ScriptHost;
  #runs: ScriptRuns;
  #tools: LocalTool[] = [];
  #watcher: FSWatcher | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #dir: string | null = null;

  constructor(gateway: Gateway, host: ScriptHost, runs: ScriptRuns) {
    this.#gateway = gateway;
    this.#host = host;
    this.#runs = runs;
  }

  /** Registers the config's macros; throws `CONFIG_INVALID` naming file, tool and key. */
  async load(config: GatewayConfig): Promise<void> {
    const dir = config.scripting.macrosDir;
    // Not an error (the default ./macros may simply not exist), but never silent.
    if (dir && !existsSync(dir)) this.#gateway.log.warn("no macros folder", { dir });
    const defs = await loadMacros(
      this.#host,
      config.scripting.macrosDir,
      config.scripting.tools,
      config.file,
    );
    this.#tools = defs.map((d) => this.#tool(d));
    this.#dir = config.scripting.macrosDir;
  }

  localTools(): readonly LocalTool[] {
    return this.#tools;
  }

  /** On reload: new macros, or the old ones kept (and the error logged) when invalid. */
  async applyConfig(config: GatewayConfig): Promise<void> {
    try {
      await this.load(config);
      this.#gateway.log.info("macros loaded", { count: this.#tools.length });
    } catch (err) {
      this.#gateway.log.error("macro reload rejected; keeping the previous macros", {
        error: messageOf(err),
      });
    }
    if (this.#watcher) this.watch();
  }

  /** Reloads when a file of the macro folder changes (debounced). */
  watch(): void {
    this.unwatch();
    const dir = this.#dir;
    if (!dir) return;
    try {
      this.#watcher = watch(dir, () => {
        clearTimeout(this.#timer);
        this.#timer = setTimeout(() => void this.#reloadFromDisk(), 250);
      });
      this.#watcher.on("error", () => this.unwatch());
    } catch {
      // No folder yet: SIGHUP picks it up once it exists.
    }
  }

  /** Stops watching. */
  unwatch(): void {
    clearTimeout(this.#timer);
    this.#watcher?.close();
    this.#watcher = undefined;
  }

  async #reloadFromDisk(): Promise<void> {
    await this.applyConfig(this.#gateway.config);
    this.#gateway.refreshLocalTools();
  }

  #tool(def: MacroDef): LocalTool {
    const gateway = this.#gateway;
    const host = this.#host;
    const runs = this.#runs;
    return {
      tool: { name: def.name, description: def.description, inputSchema: def.inputSchema },
      server: MACRO_SERVER,
      discoverable: def.discoverable,
      alwaysListed: !def.discoverable,
      keywords: def.keywords,
      script: "macro",
      origin: def.origin,
      call: (args, options) => {
        const started = performance.now();
        const caller = options.caller;
        const signal = signalOf(options);
        return invokeMacro(host, def, args, {
          bridge: bridgeFor(gateway, { internal: true, parent: options }),
          ...(signal ? { signal } : {}),
          maxPictures: gateway.config.scripting.limits.pictures,
          depth: options.scriptDepth ?? 0,
          owner: caller.tokenName,
          onFinished: (outcome, tooManyPictures) =>
            runs.publish({
              feature: "macro",
              name: def.name,
              tokenName: caller.tokenName,
              durationMs: performance.now() - started,
              ...verdictOf(outcome, tooManyPictures),
              at: Date.now(),
            }),
          // as never: a script's result: content optional
        }) as never;
      },
    };
  }
}
