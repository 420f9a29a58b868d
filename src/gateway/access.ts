/** Which tools a caller may see and call, from its token's globs. */
import { matchesAny } from "./catalog.ts";
import type { Caller } from "./types.ts";

/** True when the caller's token allows `name` (no globs = everything). */
export function callerAllows(caller: Caller, name: string): boolean {
  return caller.toolGlobs === null || matchesAny(name, caller.toolGlobs);
}
