/**
 * @module Pinning what upstream servers declare: canonical hashes of tools, prompts, resources
 * and resource templates kept in the state folder, changes logged with a diff, quarantine
 * (hidden and refused until approved), and the approval the `approve` command and the status
 * page share.
 */
export { type Approval, approvePins } from "./approve.ts";
export { canonicalHash, canonicalJson, diffDefinitions, type FieldDiff } from "./canonical.ts";
export { type Held, Pins, type ServerPins } from "./pins.ts";
export { kindLabel, type PinChange, type Removed } from "./review.ts";
