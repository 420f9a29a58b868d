/**
 * @module The front doors' shared seam: who presents a request, and the shape every door has.
 * The doors themselves are `legacy/` (2025-11-25 and older) and `modern/` (2026-07-28).
 */
export type { Door, RequestIdentity } from "./door.ts";
export { ANONYMOUS } from "./door.ts";
