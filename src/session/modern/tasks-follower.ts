/**
 * One task a 2026-07-28 client created, as the gateway follows it. The client polls with
 * `tasks/get` and answers with `tasks/update`; the 2025 upstream instead expects its client to
 * sit in `tasks/result`, which is where it delivers the requests the task queues for the client
 * (elicitation, sampling) and, at the end, the result. So the follower sits in `tasks/result`
 * for the client: each request the upstream sends about the task (related-task `_meta`, routed
 * here by the pass-through relay) waits under a key as one of the task's `inputRequests`, until a
 * `tasks/update` answers it; the result or error the call ends with is kept for `tasks/get` to
 * inline.
 *
 * Keys follow the MRTR door's rule: the upstream's `_meta["mcp-gateway/inputKey"]` when free,
 * otherwise `input-N`. A request for a capability the creating request did not declare is refused
 * to the upstream at once with -32021; an answer that does not fit the request's result schema
 * leaves it pending.
 */
import type { InputRequest } from "@modelcontextprotocol/server";
import { type ClientCapabilities, RELATED_TASK_META_KEY } from "@modelcontextprotocol/sdk/types.js";
import { missingCapability } from "../../gateway/mod.ts";
import type { RequestAnswerer } from "../../gateway/types.ts";
import { type JsonRpcErrorObject, toJsonRpcError, WireError } from "../../shared/errors.ts";
import { fits, INPUT_KEY_META } from "./continuations.ts";

/** The JSON-RPC code of MissingRequiredClientCapabilityError. */
const MISSING_CAPABILITY = -32021;

/** How the upstream call behind a task ended: its result, or the JSON-RPC error it failed with. */
export type Outcome = { result: Record<string, unknown> } | { error: JsonRpcErrorObject };

interface Pending {
  readonly request: InputRequest;
  resolve(result: unknown): void;
  reject(err: Error): void;
}

/** Follows one task for its 2026-07-28 client (see the module header). */
export class TaskFollower implements RequestAnswerer {
  readonly #caps: ClientCapabilities;
  readonly #pending = new Map<string, Pending>();
  readonly #abort = new AbortController();
  #next = 0;
  #outcome: Outcome | undefined;
  /** The terminal answer of `tasks/get`, once known: later polls and cancels use it. */
  final: Record<string, unknown> | undefined;

  /** `caps`: what the request that created the task declared it can answer. */
  constructor(caps: ClientCapabilities) {
    this.#caps = caps;
  }

  /** How the call ended, once the upstream said (undefined while it runs). */
  get outcome(): Outcome | undefined {
    return this.#outcome;
  }

  /** Sits in the upstream's `tasks/result` until the task ends, keeping how it ended. */
  start(fetch: (signal: AbortSignal) => Promise<unknown>): void {
    fetch(this.#abort.signal).then(
      (result) => (this.#outcome ??= { result: cleanResult(result) }),
      (err) => {
        if (!this.#abort.signal.aborted) this.#outcome ??= { error: toJsonRpcError(err) };
      },
    );
  }

  /** Records an outcome fetched another way (a poll that found the task already ended). */
  settle(outcome: Outcome): Outcome {
    return (this.#outcome ??= outcome);
  }

  /** Called by the pass-through relay for a request the upstream sends about the task. */
  request(method: string, params: Record<string, unknown> | undefined): Promise<unknown> {
    const missing = missingCapability(this.#caps, { method, ...(params ? { params } : {}) });
    if (missing) {
      return Promise.reject(
        new WireError({
          code: MISSING_CAPABILITY,
          message: `the client did not declare ${missing}, so it cannot answer ${method}`,
        }),
      );
    }
    if (this.#abort.signal.aborted) {
      return Promise.reject(new WireError({ code: -32603, message: "the task has ended" }));
    }
    const {
      [INPUT_KEY_META]: hint,
      [RELATED_TASK_META_KEY]: _related,
      ...meta
    } = (params?._meta ?? {}) as Record<string, unknown>;
    const wanted = typeof hint === "string" && hint !== "" ? hint : undefined;
    const key = wanted && !this.#pending.has(wanted) ? wanted : `input-${++this.#next}`;
    const { _meta: _, ...rest } = params ?? {};
    const sent = Object.keys(meta).length > 0 ? { ...rest, _meta: meta } : rest;
    return new Promise((resolve, reject) => {
      this.#pending.set(key, {
        request: { method, params: sent } as InputRequest,
        resolve,
        reject,
      });
    });
  }

  /** The requests waiting for the client, by key; undefined when none waits. */
  inputRequests(): Record<string, InputRequest> | undefined {
    if (this.#pending.size === 0) return undefined;
    return Object.fromEntries([...this.#pending].map(([key, p]) => [key, p.request]));
  }

  /** Hands the client's answers to the waiting requests; unknown keys and misfits are ignored. */
  answer(responses: Record<string, unknown>): void {
    for (const [key, response] of Object.entries(responses)) {
      const pending = this.#pending.get(key);
      if (!pending) continue;
      if (!fits(pending.request.method, response)) continue;
      this.#pending.delete(key);
      pending.resolve(response);
    }
  }

  /** The task ended (or was cancelled): refuses what still waits and stops sitting upstream. */
  close(): void {
    this.#abort.abort();
    const err = new WireError({ code: -32603, message: "the task has ended" });
    for (const p of this.#pending.values()) p.reject(err);
    this.#pending.clear();
  }
}

/** A result as the client sees it: without the 2025 related-task `_meta` (the id is at the root). */
export function cleanResult(result: unknown): Record<string, unknown> {
  const { _meta, ...rest } = (result ?? {}) as Record<string, unknown>;
  const { [RELATED_TASK_META_KEY]: _related, ...meta } = (_meta ?? {}) as Record<string, unknown>;
  return Object.keys(meta).length > 0 ? { ...rest, _meta: meta } : rest;
}
