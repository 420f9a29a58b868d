/**
 * @module The audit log: who called what, one JSON line per tool call, prompt get and resource
 * read, written off the call path to a size-rotated file and optionally the journal; and one
 * line per operator action on the running gateway, naming the admin who took it.
 */
export { AuditLog } from "./audit-log.ts";
export { actionLine, type AdminAction, auditLine, type RecordContext, scrub } from "./record.ts";
export { RotatingFile } from "./writer.ts";
