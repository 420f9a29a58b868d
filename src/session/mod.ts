/**
 * @module The front doors' shared seam: who presents a request (and, with the doors, the shape
 * every door has). The doors themselves are `legacy/` (2025) and `modern/` (2026-07-28).
 */
export type { RequestIdentity } from "./door.ts";
