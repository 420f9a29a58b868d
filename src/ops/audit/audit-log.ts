/**
 * The audit log (`gateway.audit`): one JSON line per tool call, prompt get and resource read,
 * seen through `gateway.calls.observeOperations`. The line is built a turn after the operation ended
 * (the answer is measured then, not on the call's path) and goes to the rotating file and, with
 * `journal: true`, to stderr as a log line of component `audit` (the journal under systemd).
 */
import type { AuditConfig } from "../../config/mod.ts";
import type { CallRecord, Gateway } from "../../gateway/mod.ts";
import type { Logger } from "../../shared/log.ts";
import { writeRecord } from "../../shared/log.ts";
import { stateSecret } from "../../state/mod.ts";
import { actionLine, type AdminAction, auditLine, type RecordContext } from "./record.ts";
import { RotatingFile } from "./writer.ts";

/** One gateway's audit log. */
export class AuditLog {
  readonly #file: RotatingFile | null;
  readonly #journal: boolean;
  readonly #ctx: RecordContext;
  #pending: CallRecord[] = [];
  #scheduled = false;

  constructor(config: AuditConfig, gateway: Gateway, log: Logger) {
    this.#file = config.file === null
      ? null
      : new RotatingFile(config.file, config.maxBytes, config.keep, log);
    this.#journal = config.journal;
    let key: Buffer | undefined;
    this.#ctx = {
      args: config.args,
      key: () => key ??= stateSecret(gateway.config.gateway.state, "audit-key.json"),
      secrets: () => (gateway.config.gateway.tokens ?? []).map((t) => t.token),
    };
  }

  /** Starts recording `gateway`'s operations. */
  observe(gateway: Gateway): void {
    gateway.calls.observeOperations((call) => this.record(call));
    gateway.onStop(() => this.close());
  }

  /** Queues one operation's record. */
  record(call: CallRecord): void {
    this.#pending.push(call);
    if (this.#scheduled) return;
    this.#scheduled = true;
    setTimeout(() => this.#emit(), 0);
  }

  /** Writes one admin action at once (they are rare, and must not wait on a call's turn). */
  recordAction(action: AdminAction): void {
    const line = actionLine(action, this.#ctx.secrets());
    this.#file?.write(line);
    if (this.#journal) writeRecord("audit", "admin", JSON.parse(line));
  }

  #emit(): void {
    this.#scheduled = false;
    const calls = this.#pending;
    this.#pending = [];
    for (const call of calls) {
      const line = auditLine(call, this.#ctx);
      this.#file?.write(line);
      if (this.#journal) writeRecord("audit", call.kind, JSON.parse(line));
    }
  }

  /** Writes every record so far. */
  async flush(): Promise<void> {
    if (this.#scheduled) this.#emit();
    await this.#file?.flush();
  }

  /** Writes every record so far and closes the file. */
  async close(): Promise<void> {
    await this.flush();
    await this.#file?.close();
  }
}
