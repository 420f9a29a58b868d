/**
 * What result filters cost: `bun bench/filters.ts` measures, in this process, the built-in
 * `secrets` + `pii` pair on a 10 KB and a 1 MB tool result (prose with a few secrets and
 * addresses in it, and the same prose clean), the serialisation a screened result pays because
 * it never takes the raw-text shortcut, and one Lua filter call on a 10 KB result (a warm
 * script worker, the result crossing to the worker and back). Prints a Markdown table with the
 * machine's load; the reference figures are kept in docs/PERFORMANCE.md.
 *
 * Every loop is bounded by a count and a time.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LOCAL_CALLER } from "../src/gateway/mod.ts";
import { piiFilter, secretsFilter } from "../src/gateway/filters/mod.ts";
import type { FilterContext, JsonObject } from "../src/gateway/filters/mod.ts";
import { ScriptHost } from "../src/scripting/mod.ts";
import { LuaFilter } from "../src/tools/filters/lua-filter.ts";
import { loadNow } from "./machine.ts";
import { fmt, table, timeMedian as time } from "./stats.ts";

const CTX: FilterContext = {
  kind: "tool",
  server: "bench",
  name: "bench__say",
  caller: LOCAL_CALLER,
  depth: 0,
};

const PROSE = "The deployment finished at 10:42 on node 7 after 1234 requests; see ticket 5521 " +
  "for the rollout notes and the list of services that were restarted during the window. ";
const LEAKS = "Contact ann.lee@example.com or +44 20 7946 0958; key AKIAIOSFODNN7EXAMPLE. ";

/** A text result of about `bytes`, with a leak every ~2 KB when `leaky`. */
function result(bytes: number, leaky: boolean): JsonObject {
  let text = "";
  while (text.length < bytes) {
    text += text.length % 2048 < PROSE.length && leaky ? LEAKS + PROSE : PROSE;
  }
  return { content: [{ type: "text", text: text.slice(0, bytes) }] };
}

const rows: string[][] = [];
const loadBefore = loadNow();
for (
  const [label, bytes, count] of [["10 KB", 10 * 1024, 2000], ["1 MB", 1024 * 1024, 60]] as const
) {
  for (const leaky of [true, false]) {
    const value = result(bytes, leaky);
    const ms = await time(
      () => piiFilter.apply(secretsFilter.apply(value, CTX) as JsonObject, CTX),
      count,
      8000,
    );
    rows.push([
      `secrets + pii, ${label}, ${leaky ? "with leaks" : "clean"}`,
      fmt(ms, 3),
      fmt(bytes / 1024 / 1024 / (ms / 1000), 0),
    ]);
  }
  const value = result(bytes, false);
  const ms = await time(() => JSON.stringify(value), count, 8000);
  rows.push([
    `JSON.stringify (no raw shortcut), ${label}`,
    fmt(ms, 3),
    fmt(bytes / 1024 / 1024 / (ms / 1000), 0),
  ]);
}

const dir = mkdtempSync(join(tmpdir(), "mcpgw-bench-filters-"));
const file = join(dir, "upper.lua");
writeFileSync(
  file,
  `function filter(result, ctx)
  for _, b in ipairs(result.content) do if b.type == "text" then b.text = b.text:upper() end end
  return result
end`,
);
const host = new ScriptHost({ vfs: {}, poolSize: 1 });
try {
  await host.warmup();
  const lua = new LuaFilter(host, { name: "lua:upper", file });
  const value = result(10 * 1024, true);
  const ms = await time(() => lua.apply(value, CTX), 300, 10_000);
  rows.push([
    "Lua filter (upper-case every text block), 10 KB",
    fmt(ms, 3),
    fmt(10 / 1024 / (ms / 1000), 1),
  ]);
} finally {
  await host.close();
}

console.log(`Load average (1/5/15 min) before: ${loadBefore}; after: ${loadNow()}\n`);
console.log(table(["what", "median ms per result", "MB/s"], rows));
