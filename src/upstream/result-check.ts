/**
 * @module The result check of a request whose answer must have a known shape (the SDK's result
 * schemas: a prompt, a resource's contents, a task); a tool call's result passes unchecked.
 */
import {
  type AnySchema,
  getParseErrorMessage,
  safeParse,
} from "@modelcontextprotocol/sdk/server/zod-compat.js";
import type { ResultCheck } from "./caller.ts";

/** A result check from a zod schema (the SDK's result schemas); parsed values pass on. */
export function schemaCheck(schema: AnySchema): ResultCheck {
  return (result) => {
    const parsed = safeParse(schema, result);
    return parsed.success
      ? { ok: true, value: parsed.data }
      : { ok: false, problem: getParseErrorMessage(parsed.error) };
  };
}
