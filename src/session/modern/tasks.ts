/**
 * The tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663) on the 2026-07-28 door, over
 * the core's task router and 2025 upstreams that support tasks.
 *
 * - Creation is the server's choice: a `tools/call` from a request that negotiated the extension
 *   (its envelope's `clientCapabilities.extensions`) to a tool the upstream runs as a task
 *   (`execution.taskSupport` optional or required) creates the task upstream and answers a flat
 *   `CreateTaskResult` (or the result itself, when the upstream answered at once with a
 *   completed task); without the extension such a call runs synchronously, and a tool that
 *   requires a task is refused with -32021. What the upstream asks before the task exists is an
 *   MRTR round of the call, as for any call.
 * - `tasks/get` reports the task, with its result inlined once completed (read once from the
 *   upstream's `tasks/result`), its error once failed, or its `inputRequests` while it waits on
 *   the client; `tasks/update` answers those; `tasks/cancel` acknowledges with an empty result,
 *   also for a task that already ended. `tasks/result` and `tasks/list` do not exist here.
 * - Ids are the router's: opaque, random, and bound to the token that created the task.
 * - The extension is advertised in `server/discover` only while some upstream supports tasks.
 */
import {
  MissingRequiredClientCapabilityError,
  type Server,
  type ServerContext,
} from "@modelcontextprotocol/server";
import type { CallToolResult, ClientCapabilities, Task } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { enterCall, type Gateway } from "../../gateway/mod.ts";
import type { CallContext, Caller } from "../../gateway/types.ts";
import { TASK_TTL_MS } from "../../gateway/passthrough/mod.ts";
import { onWire, toJsonRpcError } from "../../shared/errors.ts";
import { envelopeCapabilities } from "./flow-request.ts";
import { cleanResult, TaskFollower } from "./tasks-follower.ts";
import {
  createTaskResult,
  endedTask,
  isTerminal,
  taskFields,
  TASKS_EXTENSION,
} from "./tasks-wire.ts";

const TaskParams = z.looseObject({ taskId: z.string() });
const UpdateParams = z.looseObject({
  taskId: z.string(),
  inputResponses: z.record(z.string(), z.unknown()).optional(),
});

/** What the modern `tools/call` handler calls instead of `gateway.callTool`. */
export interface ModernTasks {
  callTool(
    params: { name: string; arguments?: Record<string, unknown>; _meta?: unknown },
    ctx: ServerContext,
    options: CallContext,
  ): Promise<CallToolResult | Record<string, unknown>>;
}

/**
 * Installs `tasks/get`, `tasks/update` and `tasks/cancel` on a modern server (and advertises the
 * extension when some upstream supports tasks); `requestCaller` reads the caller from a request.
 */
export function registerModernTasks(
  server: Server,
  gateway: Gateway,
  requestCaller: (ctx: ServerContext) => Caller,
): ModernTasks {
  if (gateway.pool.all().some((u) => u.client?.getServerCapabilities()?.tasks)) {
    server.registerCapabilities({ extensions: { [TASKS_EXTENSION]: {} } });
  }
  const tasks = gateway.tasks;
  server.setRequestHandler("tasks/get", { params: TaskParams }, (params, ctx) =>
    onWire(() => {
      requireExtension(ctx, "tasks/get");
      return detail(gateway, params.taskId, requestCaller(ctx), ctx.mcpReq.signal);
    }));
  server.setRequestHandler("tasks/update", { params: UpdateParams }, (params, ctx) =>
    onWire(() => {
      requireExtension(ctx, "tasks/update");
      const follower = followerOf(gateway, params.taskId, requestCaller(ctx));
      const responses = params.inputResponses ?? ctx.mcpReq.inputResponses ?? {};
      follower?.answer(responses as Record<string, unknown>);
      return {};
    }));
  server.setRequestHandler(
    "tasks/cancel",
    { params: TaskParams },
    (params, ctx) =>
      onWire(async () => {
        requireExtension(ctx, "tasks/cancel");
        const caller = requestCaller(ctx);
        const follower = followerOf(gateway, params.taskId, caller);
        if (follower?.final) return {};
        try {
          await tasks.cancel(params.taskId, caller, ctx.mcpReq.signal);
        } catch (err) {
          // Cancelling a task that already ended is acknowledged like any other cancel.
          const now = await tasks.get(params.taskId, caller, ctx.mcpReq.signal);
          if (!isTerminal(now.status)) throw err;
        }
        follower?.close();
        return {};
      }),
  );

  return {
    callTool(params, ctx, options) {
      const support = taskSupportOf(gateway, params.name, options.caller);
      const negotiated = hasExtension(ctx);
      if (support === "required" && !negotiated) {
        throw missingExtension(`tool "${params.name}" runs only as a task`);
      }
      if (!negotiated || (support !== "required" && support !== "optional")) {
        return gateway.callTool(params.name, params.arguments, options);
      }
      return create(gateway, params, ctx, options);
    },
  };
}

async function create(
  gateway: Gateway,
  params: { name: string; arguments?: Record<string, unknown> },
  ctx: ServerContext,
  options: CallContext,
): Promise<Record<string, unknown>> {
  const caller = options.caller;
  const { task } = await gateway.createTask(
    {
      name: params.name,
      ...(params.arguments ? { arguments: params.arguments } : {}),
      ...(options.meta ? { _meta: options.meta } : {}),
      task: { ttl: TASK_TTL_MS },
    },
    options,
  );
  if (task.status === "completed") {
    // The upstream answered at once (a 2026-07-28 upstream may run the call without a task):
    // the answer is the call's, as the extension lets a server answer.
    return await gateway.tasks.result(task.taskId, options);
  }
  const follower = new TaskFollower(capabilitiesOf(ctx));
  gateway.tasks.follow(task.taskId, caller, follower);
  follower.start((signal) => gateway.tasks.result(task.taskId, enterCall(caller, { signal })));
  return createTaskResult(task);
}

/** The `DetailedTask` for `tasks/get`. */
async function detail(
  gateway: Gateway,
  id: string,
  caller: Caller,
  signal: AbortSignal,
): Promise<Record<string, unknown>> {
  const follower = followerOf(gateway, id, caller);
  if (follower?.final) return follower.final;
  const task: Task = await gateway.tasks.get(id, caller, signal);
  if (!isTerminal(task.status)) {
    const inputRequests = follower?.inputRequests();
    if (inputRequests) return { ...taskFields(task), status: "input_required", inputRequests };
    // The upstream waits on a request not delivered yet: nothing to answer so far.
    const status = task.status === "input_required" ? "working" : task.status;
    return { ...taskFields(task), status };
  }
  let outcome = follower?.outcome;
  if (!outcome && task.status !== "cancelled") {
    // Ended upstream before the follower heard: read the result now (it is there at once).
    outcome = await gateway.tasks.result(id, enterCall(caller, { signal })).then(
      (result) => ({ result: cleanResult(result) }),
      (err: unknown) => {
        if (signal.aborted) throw err; // the client went away: nothing learnt about the task
        return { error: toJsonRpcError(err) };
      },
    );
    if (follower) outcome = follower.settle(outcome);
  }
  const ended = endedTask(task, outcome);
  if (follower) {
    follower.final = ended;
    follower.close();
  }
  return ended;
}

function followerOf(gateway: Gateway, id: string, caller: Caller): TaskFollower | undefined {
  const follower = gateway.tasks.followerOf(id, caller);
  return follower instanceof TaskFollower ? follower : undefined;
}

/**
 * True when a `tools/call` of `name` may create a task or be refused for want of the extension:
 * such a call is the SDK server's to serve (see `./fast-call.ts`).
 */
export function mayRunAsTask(gateway: Gateway, name: string, caller: Caller): boolean {
  // A catalog none of whose tools offers tasks (the common gateway) answers without resolving
  // the name for the caller a second time (the call resolves it): a gateway tool never runs
  // as a task, and a down server's stand-in entry declares no execution.
  if (!offersTasks(gateway.catalogOf(caller))) return false;
  const support = taskSupportOf(gateway, name, caller);
  return support === "required" || support === "optional";
}

type Catalog = Gateway["catalog"];
/** Whether a catalog has a tool that may run as a task; a catalog is rebuilt, never changed. */
const taskCatalogs = new WeakMap<Catalog, boolean>();

function offersTasks(catalog: Catalog): boolean {
  let offers = taskCatalogs.get(catalog);
  if (offers === undefined) {
    const tasked = (entry: { tool: { execution?: { taskSupport?: string } } }) => {
      const support = entry.tool.execution?.taskSupport;
      return support === "required" || support === "optional";
    };
    offers = catalog.tools.some(tasked) || [...catalog.toolsByName.values()].some(tasked);
    taskCatalogs.set(catalog, offers);
  }
  return offers;
}

/** The upstream tool's `execution.taskSupport` as this door honours it (see the isolation note). */
function taskSupportOf(gateway: Gateway, name: string, caller: Caller): string | undefined {
  try {
    const target = gateway.resolveTool(name, caller);
    if ("call" in target) return undefined;
    const support = target.tool.execution?.taskSupport;
    // A session-isolated server's process lives as long as the request here: a task would die
    // with it, so a tool that allows it runs as a plain call (one that requires it is refused).
    const isolated = gateway.pool.get(target.server)?.config.isolation === "session";
    return isolated && support === "optional" ? undefined : support;
  } catch {
    return undefined; // the call itself reports unknown or forbidden tools
  }
}

function capabilitiesOf(ctx: ServerContext): ClientCapabilities {
  return envelopeCapabilities(ctx.mcpReq.envelope as Record<string, unknown> | undefined) ?? {};
}

function hasExtension(ctx: ServerContext): boolean {
  const extensions = (capabilitiesOf(ctx) as { extensions?: Record<string, unknown> }).extensions;
  return extensions?.[TASKS_EXTENSION] !== undefined;
}

function missingExtension(why: string): MissingRequiredClientCapabilityError {
  return new MissingRequiredClientCapabilityError(
    { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } },
    `${why}: declare the ${TASKS_EXTENSION} extension in the request's client capabilities`,
  );
}

function requireExtension(ctx: ServerContext, method: string): void {
  if (!hasExtension(ctx)) throw missingExtension(`${method} belongs to the tasks extension`);
}
