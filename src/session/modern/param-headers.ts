/**
 * `Mcp-Param-*` headers of 2026-07-28 `tools/call` requests (SEP-2243). A tool may mark
 * primitive arguments with `x-mcp-header: Name` in its input schema, so that proxies and load
 * balancers can route on them; the server must then refuse a call whose body carries such an
 * argument without the matching `Mcp-Param-Name` header, or with one that disagrees or is not
 * valid `=?base64?…?=` — else what the routers saw and what the tool runs could differ.
 *
 * The SDK performs this check only for servers built with its `McpServer` class and does not
 * export it; the gateway's per-request server is a low-level `Server` over upstream catalogs,
 * so the door checks here, before the SDK sees the request. Upstream schemas are the upstream's
 * to get right: declarations are collected along `properties` chains and nowhere else.
 */
import { own } from "../../shared/by-name.ts";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";

interface Declaration {
  readonly path: readonly string[];
  readonly header: string;
  readonly type: string | undefined;
}

/** The refusal: HTTP 400 with JSON-RPC -32020 (HeaderMismatch), as the SDK answers its own. */
export interface ParamHeaderRejection {
  readonly status: 400;
  readonly code: -32020;
  readonly message: string;
  readonly data: { mismatch: { header: string; body: string } };
}

const SENTINEL_PREFIX = "=?base64?";
const SENTINEL_SUFFIX = "?=";
const CANONICAL_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const DECIMAL = /^-?\d+(\.\d+)?$/;

const cache = new WeakMap<Tool, readonly Declaration[]>();

/** The `x-mcp-header` declarations of `tool`'s input schema (cached per tool definition). */
export function declarationsOf(tool: Tool): readonly Declaration[] {
  let found = cache.get(tool);
  if (!found) {
    const out: Declaration[] = [];
    const walk = (node: unknown, path: string[]) => {
      if (!node || typeof node !== "object") return;
      const schema = node as Record<string, unknown>;
      const header = schema["x-mcp-header"];
      if (path.length > 0 && typeof header === "string" && header !== "") {
        out.push({ path, header, type: typeof schema.type === "string" ? schema.type : undefined });
      }
      const props = schema.properties;
      if (props && typeof props === "object") {
        for (const [key, child] of Object.entries(props)) walk(child, [...path, key]);
      }
    };
    walk(tool.inputSchema, []);
    found = out;
    cache.set(tool, found);
  }
  return found;
}

/**
 * A routing header's value as text (`Mcp-Name`, `Mcp-Param-*`): the sentinel's payload decoded,
 * the value itself when it is not `=?base64?…?=`, `undefined` when the sentinel is malformed.
 */
export function decodeHeaderValue(value: string): string | undefined {
  if (!(value.startsWith(SENTINEL_PREFIX) && value.endsWith(SENTINEL_SUFFIX))) return value;
  const b64 = value.slice(SENTINEL_PREFIX.length, value.length - SENTINEL_SUFFIX.length);
  if (!CANONICAL_BASE64.test(b64)) return undefined;
  try {
    const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

/** The text an argument travels as in its header, or `undefined` when it has none. */
function asText(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  if (typeof value === "boolean") return String(value);
  if (typeof value === "number" && Number.isFinite(value)) return String(value);
  return undefined;
}

function reject(header: string, body: string): ParamHeaderRejection {
  return {
    status: 400,
    code: -32020,
    message: `Bad Request: the request headers and body disagree: ${body}`,
    data: { mismatch: { header, body } },
  };
}

/** Checks the `Mcp-Param-*` headers of a call to `tool` against its `args`. */
export function checkParamHeaders(
  tool: Tool,
  args: unknown,
  headers: Headers,
): ParamHeaderRejection | undefined {
  for (const d of declarationsOf(tool)) {
    let value: unknown = args;
    for (const key of d.path) {
      value = value && typeof value === "object"
        ? own(value as Record<string, unknown>, key)
        : undefined;
    }
    const text = asText(value);
    if (text === undefined) continue;
    const name = `Mcp-Param-${d.header}`;
    const where = d.path.join(".");
    const raw = headers.get(name);
    if (raw === null) {
      return reject(
        name,
        `the body carries ${where}=${JSON.stringify(value)} but ${name} is absent`,
      );
    }
    const decoded = decodeHeaderValue(raw);
    if (decoded === undefined) return reject(name, `${name} carries an invalid Base64 value`);
    const numeric = (d.type === "integer" || d.type === "number") && typeof value === "number";
    const same = numeric && DECIMAL.test(decoded) ? Number(decoded) === value : decoded === text;
    if (!same) {
      return reject(
        name,
        `${name} decodes to ${JSON.stringify(decoded)} but the body carries ${where}=${
          JSON.stringify(value)
        }`,
      );
    }
  }
  return undefined;
}
