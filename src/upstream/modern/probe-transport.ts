/**
 * Our stdio transport lent to the v2 client for the era probe. The v2 client probes a custom
 * stdio transport in place (on the process it will keep), as the SDK's negotiation does for
 * such transports; when the probe finds no 2026-07-28 server, the same running process goes
 * on to the 2025 `initialize` handshake of the SDK 1.x client. So while the probe runs,
 * `close()` only lets go of the process; the verdict decides whether it is kept or handed back.
 */
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import type { StdioTransport } from "../stdio.ts";

/** A stdio transport held for the probe, then kept (modern) or released (legacy). */
export class ProbeTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  readonly #inner: StdioTransport;
  #held = true;
  #started = false;
  #innerClosed = false;

  constructor(inner: StdioTransport) {
    this.#inner = inner;
  }

  /** The child's pid: with `stderr`, marks a stdio channel (a silent probe means legacy). */
  get pid(): number | undefined {
    return this.#inner.pid;
  }
  /** Never read by us; present so the v2 client applies its stdio probe policy. */
  get stderr(): null {
    return null;
  }
  /** True once the process ended (e.g. it exited on the unknown probe request). */
  get ended(): boolean {
    return this.#innerClosed;
  }

  async start(): Promise<void> {
    if (this.#started) return;
    this.#started = true;
    this.#inner.onmessage = (m) => this.onmessage?.(m);
    this.#inner.onerror = (e) => this.onerror?.(e);
    this.#inner.onclose = () => {
      this.#innerClosed = true;
      this.onclose?.();
    };
    await this.#inner.start();
  }

  send(message: JSONRPCMessage): Promise<void> {
    return this.#inner.send(message);
  }

  async close(): Promise<void> {
    if (this.#held) return;
    await this.#inner.close();
  }

  /** The probe found a 2026-07-28 server: from now on `close()` ends the process. */
  keep(): void {
    this.#held = false;
  }

  /** No modern server: detaches and hands the running process back, for `initialize`. */
  release(): StdioTransport {
    this.#inner.onmessage = undefined;
    this.#inner.onerror = undefined;
    this.#inner.onclose = undefined;
    return this.#inner;
  }

  /** Ends the process (a failed probe under `protocol: modern`). */
  async dispose(): Promise<void> {
    this.release();
    await this.#inner.close();
  }
}
