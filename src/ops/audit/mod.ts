/**
 * @module The audit log: who called what, one JSON line per tool call, prompt get and resource
 * read, written off the call path to a size-rotated file and optionally the journal.
 */
export { AuditLog } from "./audit-log.ts";
export { auditLine, type RecordContext, scrub } from "./record.ts";
export { RotatingFile } from "./writer.ts";
