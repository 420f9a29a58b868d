/**
 * @module The gateway core: aggregated catalog and naming, routing of calls, the upstream pool and
 * the pass-through state. The front doors in `src/session/` sit on it; it never imports them.
 */
export { callerAllows, configuredToken, sameGlobs } from "./access.ts";
export type { CallGate, GatedCall, Release } from "./call-gate.ts";
export { childContext, enterCall } from "./call-context.ts";
export type { CallEntry, ProgressParams } from "./call-context.ts";
export { buildCatalog, matchesAny } from "./catalog.ts";
export type { Catalog, PromptEntry, RenamedTool, ToolEntry } from "./catalog.ts";
export { Gateway } from "./gateway.ts";
export type { CallNotes, CallRecord, OperationKind } from "./call-records.ts";
export type { Era } from "./call-context.ts";
export {
  type FilterContext,
  type FilterEvent,
  type JsonObject,
  type LuaFilterFactory,
  type ResultFilter,
  ResultScreen,
} from "./filters/mod.ts";
export type { ChangeListener } from "./list-changes.ts";
export { visibleChanges, VisibleLists } from "./visible-changes.ts";
export type { VisibleTool } from "./tool-views.ts";
export { disambiguate, EXPOSED_NAME, exposedName, sanitise, shorten, stableHash } from "./names.ts";
export { META_TOOL_NAMES, MetaTools } from "./meta.ts";
export { canonicalJson } from "./pinning/mod.ts";
export { outageOf, outageResult } from "./outcome.ts";
export type { CallOutcome, Outage, OutageKind } from "./outcome.ts";
export { DEFAULT_PAGE_SIZE, page } from "./paging.ts";
export { profileConfig, profileView } from "./profiles.ts";
export type { ProfileView } from "./profiles.ts";
export { missingCapability } from "./passthrough/mod.ts";
export { LOCAL_CALLER } from "./types.ts";
export type { CallContext, Caller, LocalTool, LocalToolProvider } from "./types.ts";
