/**
 * @module Result filters: `secrets`, `pii` and `spotlight` built in (TypeScript, one regex pass
 * per string, copy on write), Lua filters made by the scripting room through
 * {@link ResultScreen.useLua}, the screen that runs a server's filters in order, and the
 * screening of what a server sends beside results (errors, notifications, task status).
 */
export { screenLog, screenProgress, screenRpcError, screenTask } from "./beside.ts";
export { filterContext, type LuaFilterFactory, ResultScreen, type Screened } from "./screen.ts";
export { SECRET_RULES, secretsFilter } from "./secrets.ts";
export { ibanValid, luhnValid, PII_RULES, piiFilter, redactEmails } from "./pii.ts";
export { spotlightFilter, spotlightMarkers } from "./spotlight.ts";
export { mapStrings, redactor, type RedactRule } from "./strings.ts";
export type {
  FilterContext,
  FilterEvent,
  JsonObject,
  ResultFilter,
  ScreenedPart,
  TextFilter,
} from "./types.ts";
