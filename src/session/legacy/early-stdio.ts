/**
 * The `--stdio` pipe, read from the moment the process starts rather than once every upstream has
 * started: a `server/discover` probe is answered at once with what the 2025 door answers it when
 * serving (-32601: this door speaks 2025-11-25 and older only), and every other message waits, in
 * order, until the door connects. Why: a client that negotiates its era (the SDK v2 client in
 * `auto` mode) probes a stdio server on a throwaway process of the same command before it starts
 * the one it keeps; answered only after the gateway's whole start (and then stopped only after
 * it), that probe cost a second start.
 */
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

/** What the 2025 door answers a method it does not serve. */
const METHOD_NOT_FOUND = -32601;

/** A stdio transport opened early; the session server connects to it later (see above). */
export class EarlyStdio implements Transport {
  readonly #pipe: Transport;
  /** Messages read before the door connected (`null` once it did). */
  #waiting: JSONRPCMessage[] | null = [];
  onmessage?: Transport["onmessage"];
  onclose?: Transport["onclose"];
  onerror?: Transport["onerror"];

  constructor(pipe: Transport) {
    this.#pipe = pipe;
    pipe.onmessage = (message) => this.#receive(message);
    pipe.onclose = () => this.onclose?.();
    pipe.onerror = (error) => this.onerror?.(error);
  }

  /** Starts reading the pipe, before the gateway starts. */
  async open(): Promise<void> {
    await this.#pipe.start();
  }

  /** The door connected: what waited is handed over in the order it came. */
  start(): Promise<void> {
    const waiting = this.#waiting ?? [];
    this.#waiting = null;
    for (const message of waiting) this.onmessage?.(message);
    return Promise.resolve();
  }

  send(message: JSONRPCMessage): Promise<void> {
    return this.#pipe.send(message);
  }

  close(): Promise<void> {
    return this.#pipe.close();
  }

  #receive(message: JSONRPCMessage): void {
    if (this.#waiting === null) {
      this.onmessage?.(message);
      return;
    }
    if ("method" in message && message.method === "server/discover" && "id" in message) {
      void this.#pipe.send({
        jsonrpc: "2.0",
        id: message.id,
        error: { code: METHOD_NOT_FOUND, message: "Method not found" },
      }).catch(() => {});
      return;
    }
    this.#waiting.push(message);
  }
}
