/**
 * Worker side of one run: the requests a script has in flight and the `H` table of JS functions
 * the Lua API calls. Requests go to the parent over the channel; replies settle them here and
 * wake whoever waits. Functions that hand data to Lua push it themselves (NUL-safe, see
 * lua-values.ts) and report failures as `nil, message` so Lua raises them with the script's line.
 */
import {
  decorateFunction,
  LuaMultiReturn,
  LuaRawResult,
  type LuaThread,
  type LuaWasm,
} from "wasmoon";
import {
  imageValueFromBase64,
  imageValueFromBytes,
  normaliseVfsPath,
  readVfsFile,
} from "../../media/mod.ts";
import { messageOf } from "../../shared/errors.ts";
import type { FromWorker, ReplyMessage, RunMessage } from "../protocol.ts";
import { type BufferStore, pushJson, pushString } from "./lua-values.ts";

/** One request a script made of the parent. */
export interface Request {
  kind: "tool" | "list" | "host";
  reply?: ReplyMessage;
  /** For tool requests: the table mcp.poll answers, built once. */
  pollValue?: unknown;
  waiters: Array<() => void>;
}

/** The `{ id, is_error, content, result }` table of a settled tool call. */
export function pollTable(id: string, reply: ReplyMessage): unknown {
  if (!reply.ok) {
    const message = reply.error.message;
    return {
      id,
      is_error: true,
      content: message,
      result: { content: [{ type: "text", text: message }], isError: true },
    };
  }
  const result = (reply.value ?? {}) as {
    content?: Array<{ type?: unknown; text?: unknown }>;
    isError?: unknown;
  };
  const blocks = Array.isArray(result.content) ? result.content : [];
  const text = blocks.filter((b) => b?.type === "text" && typeof b.text === "string")
    .map((b) => b.text as string).join("\n");
  return { id, is_error: result.isError === true, content: text, result };
}

/** State of the run in progress inside a worker. */
export class RunContext {
  readonly message: RunMessage;
  readonly store: BufferStore = {
    metatableRef: 0,
    idsRef: 0,
    arrayMtRef: 0,
    bytes: new Map(),
    nextId: 1,
    bufferKey: "",
  };
  toolCalls = 0;
  hostCalls = 0;
  #requests = new Map<string, Request>();
  #nextId = 1;
  #send: (m: FromWorker) => void;
  #outputBytes = 0;

  constructor(message: RunMessage, send: (m: FromWorker) => void) {
    this.message = message;
    this.#send = send;
    this.store.bufferKey = message.bufferKey;
  }

  /** Sends a request to the parent; its id as a string. */
  start(kind: Request["kind"], name?: string, args?: unknown): string {
    const id = this.#nextId++;
    this.#requests.set(String(id), { kind, waiters: [] });
    this.#send({ t: "request", run: this.message.run, id, kind, name, args });
    return String(id);
  }

  /** Settles a request with the parent's reply and wakes its waiters. */
  onReply(reply: ReplyMessage): void {
    if (reply.run !== this.message.run) return; // an answer meant for an earlier run
    const req = this.#requests.get(String(reply.id));
    if (!req || req.reply) return;
    this.#settle(String(reply.id), req, reply);
  }

  #settle(id: string, req: Request, reply: ReplyMessage): void {
    req.reply = reply;
    if (req.kind === "tool") req.pollValue = pollTable(id, reply);
    for (const wake of req.waiters.splice(0)) wake();
  }

  /** Starts `mcp.call` (or settles it at once when the Lua side refused its arguments). */
  toolCall(name: string, json: string | null, refusal: string | null): string {
    this.toolCalls++;
    let reason = refusal;
    let args: unknown;
    if (!reason) {
      try {
        args = JSON.parse(json ?? "{}");
        if (typeof args !== "object" || args === null || Array.isArray(args)) {
          reason = "mcp.call refused: args must be a JSON object";
        }
      } catch (err) {
        reason = `mcp.call refused: args is not JSON (${messageOf(err)})`;
      }
    }
    if (!reason) return this.start("tool", name, args);
    // Refused before anything crossed: settle locally, the tool never runs.
    const id = String(this.#nextId++);
    const req: Request = { kind: "tool", waiters: [] };
    this.#requests.set(id, req);
    this.#settle(id, req, {
      t: "reply",
      run: this.message.run,
      id: Number(id),
      ok: false,
      error: { code: "INVALID_ARGUMENTS", message: reason },
    });
    return id;
  }

  /** Print and emit share the transfer ceiling; past it, one marker and then nothing. */
  output(kind: "print" | "emit", text: string): void {
    const limit = this.message.limits.transferBytes;
    const before = this.#outputBytes;
    this.#outputBytes += text.length;
    if (this.#outputBytes <= limit) {
      this.#send(kind === "print" ? { t: "print", text } : { t: "emit", json: text });
    } else if (before <= limit) {
      this.#send({ t: "print", text: `[output truncated: over ${limit} bytes]\n` });
    }
  }

  /** A promise settled when request `id` is answered (at once if it was); undefined if unknown. */
  waitFor(id: string): Promise<void> | undefined {
    const req = this.#requests.get(id);
    if (!req) return undefined;
    if (req.reply) return Promise.resolve();
    return new Promise<void>((resolve) => req.waiters.push(resolve));
  }

  /** A request of this run, by id. */
  request(id: string): Request | undefined {
    return this.#requests.get(id);
  }
}

/**
 * The JS functions the Lua API (lua/api.ts) reaches as `H`, made once per engine: each call acts
 * for the run in progress (`current()`), so an engine reused for many runs never holds on to an
 * earlier run's requests, buffers or output.
 */
export function createHostTable(current: () => RunContext): Record<string, unknown> {
  const withThread = (fn: (lua: LuaWasm, L: number, ...args: never[]) => number) =>
    decorateFunction((thread: LuaThread, ...args: never[]) => {
      try {
        return new LuaRawResult(fn(thread.lua, thread.address, ...args));
      } catch (err) {
        if (err === Infinity) throw err; // a Lua error unwinding (longjmp) — let it through
        thread.lua.lua_pushnil(thread.address);
        pushString(thread.lua, thread.address, messageOf(err));
        return new LuaRawResult(2);
      }
    }, { receiveThread: true });
  const push = (lua: LuaWasm, L: number, value: unknown): number => {
    pushJson(lua, L, value, current().store);
    return 1;
  };
  return {
    toolCall: (name: string, json: string | null, refusal: string | null) =>
      current().toolCall(name, json, refusal),
    listStart: () => current().start("list"),
    hostStart: (name: string, json: string) => {
      const ctx = current();
      if (!ctx.message.hostNames.includes(name)) {
        return LuaMultiReturn.of(undefined, `no host function named ${JSON.stringify(name)}`);
      }
      let args: unknown;
      try {
        args = JSON.parse(json);
      } catch (err) {
        return LuaMultiReturn.of(undefined, `host.start: args is not JSON (${messageOf(err)})`);
      }
      ctx.hostCalls++;
      return ctx.start("host", name, args);
    },
    poll: withThread((lua, L, id: string) => {
      const req = current().request(id);
      if (!req || req.kind !== "tool") {
        throw new Error(`unknown request id ${JSON.stringify(id)}`);
      }
      return req.reply ? push(lua, L, req.pollValue) : 0;
    }),
    hostTake: withThread((lua, L, id: string) => {
      const req = current().request(String(id));
      if (!req || req.kind === "tool") {
        throw new Error(`unknown request id ${JSON.stringify(id)}`);
      }
      if (!req.reply) return 0;
      lua.lua_pushboolean(L, req.reply.ok ? 1 : 0);
      return 1 + push(lua, L, req.reply.ok ? req.reply.value : req.reply.error);
    }),
    imagePath: withThread((lua, L, path: string) => {
      const { vfs, limits } = current().message;
      const bytes = readVfsFile(vfs, path, limits.transferBytes);
      return push(lua, L, imageValueFromBytes(bytes, normaliseVfsPath(path)));
    }),
    imageBase64: withThread((lua, L, data: string, path: string | null) =>
      push(lua, L, imageValueFromBase64(data, path ?? undefined))
    ),
    imageBuffer: withThread((lua, L, id: number) => {
      const bytes = current().store.bytes.get(id);
      if (!bytes) throw new Error("unknown buffer");
      return push(lua, L, imageValueFromBytes(bytes));
    }),
    print: (text: string) => current().output("print", text),
    emit: (json: string) => current().output("emit", json),
  };
}
