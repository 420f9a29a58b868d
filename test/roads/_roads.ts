/**
 * Every road a tool call can take into the gateway, as one table the road tests walk: a 2025
 * session call on the HTTP fast path (with and without a progress token), a JSON-RPC batch item,
 * a call on a legacy SSE session (the SDK server), a task-augmented call on each era, a
 * 2026-07-28 call (plain, and with a progress token), the call an `execute` script makes, a
 * macro's inner call, an unprefixed call by upstream name, and a call on a profile's endpoint.
 * Each road calls as a given token, carries a `traceparent`, and answers what came back.
 */
import { CreateTaskResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { postModern } from "../protocol/_modern.ts";
import { messagesOf } from "../security/_http.ts";
import {
  ARGS,
  callAs,
  callMessage,
  openOn,
  type Outcome,
  outcomeOf,
  postOn,
  sdkOutcome,
  token,
  withClient,
} from "./_wire.ts";

/** Globs of every road's narrow token: what the wide token may call beyond them is refused. */
export const NARROW_GLOBS = ["echo__slow", "slow_compute", "execute", "relay"];
/** The profile the profiled road calls on. */
export const PROFILE = "lab";
const TASKS_CAPS = { extensions: { "io.modelcontextprotocol/tasks": {} } };

/** One road into the core. */
export interface Road {
  readonly name: string;
  /** The tool a successful call on this road asks for, and the server that serves it. */
  readonly tool: string;
  readonly server: string;
  /** A tool of that server the wide token may call and the narrow token may not. */
  readonly forbidden: string;
  /** True when the answer must be a stream carrying the call's progress before its result. */
  readonly streamed?: boolean;
  /** True when the call runs inside a local tool (`execute`, a macro), itself one call more. */
  readonly wrapped?: boolean;
  /** The path of the 2025 streamable HTTP session the road runs on (a session id to borrow). */
  readonly session?: string;
  /** Calls `tool` as the token named `who`, with `traceparent` in the call's `_meta`. */
  call(url: string, who: string, tool: string, traceparent: string): Promise<Outcome>;
}

/** A raw 2025 session call on `path`: the HTTP fast path. */
const sessionRoad = (
  name: string,
  path: string,
  extraMeta: Record<string, unknown> = {},
) =>
async (url: string, who: string, tool: string, traceparent: string): Promise<Outcome> => {
  const sid = await openOn(url, path, who);
  const { status, messages } = await postOn(
    url,
    path,
    who,
    sid,
    callMessage(7, tool, { traceparent, ...extraMeta }),
  );
  if (status !== 200) return { ok: false, message: `${name}: HTTP ${status}` };
  return outcomeOf(messages, 7);
};

/** A 2026-07-28 call (no session): the lean path unless `meta` or `caps` send it to the SDK. */
const modernRoad =
  (extraMeta: Record<string, unknown>, caps: Record<string, unknown> = {}) =>
  async (url: string, who: string, tool: string, traceparent: string): Promise<Outcome> => {
    const res = await postModern(url, token(who), "tools/call", { name: tool, arguments: ARGS }, {
      caps,
      meta: { traceparent, ...extraMeta },
    });
    return outcomeOf(messagesOf(await res.text()) as Record<string, unknown>[], 1);
  };

/** Lua source of a table literal of flat `values`. */
const lua = (values: Record<string, number>) =>
  `{ ${Object.entries(values).map(([k, v]) => `${k} = ${v}`).join(", ")} }`;

/** Every road, in the order the tests walk them. */
export const ROADS: readonly Road[] = [
  {
    name: "2025 session, HTTP fast path",
    tool: "echo__slow",
    server: "echo",
    forbidden: "echo__meta",
    session: "/mcp",
    call: sessionRoad("fast path", "/mcp"),
  },
  {
    name: "2025 session, fast path with a progress token (streamed answer)",
    tool: "echo__slow",
    server: "echo",
    forbidden: "echo__meta",
    session: "/mcp",
    streamed: true,
    call: sessionRoad("progress", "/mcp", { progressToken: "p-1" }),
  },
  {
    name: "2025 session, JSON-RPC batch item (the SDK server)",
    tool: "echo__slow",
    server: "echo",
    forbidden: "echo__meta",
    session: "/mcp",
    call: async (url, who, tool, traceparent) => {
      const sid = await openOn(url, "/mcp", who);
      const ping = { jsonrpc: "2.0", id: 8, method: "ping" };
      const batch = [ping, callMessage(9, tool, { traceparent })];
      const { status, messages } = await postOn(url, "/mcp", who, sid, batch);
      if (status !== 200) return { ok: false, message: `batch: HTTP ${status}` };
      return outcomeOf(messages, 9);
    },
  },
  {
    name: "2025 legacy SSE session (the SDK server)",
    tool: "echo__slow",
    server: "echo",
    forbidden: "echo__meta",
    call: (url, who, tool, traceparent) =>
      callAs(url, who, { name: tool, arguments: ARGS, _meta: { traceparent } }, true),
  },
  {
    name: "2025 session, task-augmented call",
    tool: "slow_compute",
    server: "tasks",
    forbidden: "tasks2__slow_compute",
    call: (url, who, tool, traceparent) =>
      withClient(url, who, (c) =>
        sdkOutcome(async () => {
          const params = {
            name: tool,
            arguments: ARGS,
            task: { ttl: 60_000 },
            _meta: { traceparent },
          };
          const { task } = await c.request(
            { method: "tools/call", params },
            CreateTaskResultSchema,
          );
          return { content: [{ type: "text", text: `task ${task.taskId}` }] };
        })),
  },
  {
    name: "2026-07-28 plain call (the lean path)",
    tool: "echo__slow",
    server: "echo",
    forbidden: "echo__meta",
    call: modernRoad({}),
  },
  {
    name: "2026-07-28 call with a progress token (the SDK server)",
    tool: "echo__slow",
    server: "echo",
    forbidden: "echo__meta",
    streamed: true,
    call: modernRoad({ progressToken: "p-2" }),
  },
  {
    name: "2026-07-28 task-augmented call",
    tool: "slow_compute",
    server: "tasks",
    forbidden: "tasks2__slow_compute",
    call: async (url, who, tool, traceparent) => {
      const outcome = await modernRoad({}, TASKS_CAPS)(url, who, tool, traceparent);
      // A plain result here would mean the call did not take the task road at all.
      if (outcome.ok && !outcome.message.includes('"resultType":"task"')) {
        return { ok: false, message: `not a task: ${outcome.message}` };
      }
      return outcome;
    },
  },
  {
    name: "a call an execute script makes",
    wrapped: true,
    tool: "echo__slow",
    server: "echo",
    forbidden: "echo__meta",
    call: (url, who, tool, traceparent) =>
      withClient(url, who, async (c) => {
        const code = `local r = tools.call("${tool}", ${lua({ ms: 1, steps: 1 })})
          if not r.ok then return { ok = false, message = r.error.code .. ": " .. r.error.message } end
          return { ok = not r.data.isError, message = r.data.content[1].text }`;
        const outcome = await sdkOutcome(() =>
          c.callTool({ name: "execute", arguments: { code }, _meta: { traceparent } })
        );
        if (!outcome.ok) return outcome;
        const { result } = JSON.parse(outcome.message) as { result?: Outcome };
        return result ?? { ok: false, message: outcome.message };
      }),
  },
  {
    name: "a macro's inner call",
    wrapped: true,
    tool: "echo__slow",
    server: "echo",
    forbidden: "echo__meta",
    call: (url, who, tool, traceparent) =>
      callAs(url, who, { name: "relay", arguments: { tool }, _meta: { traceparent } }),
  },
  {
    name: "an unprefixed call by upstream name (MCP Apps)",
    tool: "slow",
    server: "echo",
    forbidden: "meta",
    session: "/mcp",
    call: sessionRoad("unprefixed", "/mcp"),
  },
  {
    name: "a call on a profile's endpoint",
    tool: "echo__slow",
    server: "echo",
    forbidden: "echo__meta",
    session: `/mcp/${PROFILE}`,
    call: sessionRoad("profiled", `/mcp/${PROFILE}`),
  },
];

/** Token names of road `i`: a wide one (every tool) and a narrow one ({@link NARROW_GLOBS}). */
export const wideOf = (i: number): string => `wide${i}`;
export const narrowOf = (i: number): string => `narrow${i}`;
