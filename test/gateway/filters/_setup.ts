/** The gateway the filter tests share: one fixture server under several filter lists. */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fixture, startTestGateway, type TestGateway } from "../../_helpers/gateway.ts";

/** The token every filter test calls with. */
export const TOKEN = "filters-test-token-0123456789abcdef";

const LUA: Record<string, string> = {
  "block.lua": `
function filter(result, ctx)
  local text = result.content[1].text
  if text:find("internal only", 1, true) then
    error("internal documents stay inside (" .. ctx.server .. "/" .. ctx.tool .. ", token " .. ctx.token .. ")")
  end
  return result
end`,
  "spin.lua": `function filter(result, ctx) while true do end end`,
  "hog.lua": `
function filter(result, ctx)
  local t = {}
  local s = string.rep("x", 1024 * 1024)
  for i = 1, 1e9 do t[i] = s .. i end
  return result
end`,
  "stash.lua": `
function filter(result, ctx)
  seen = seen or {}
  seen[#seen + 1] = result.content[1].text
  result.content[1].text = "calls seen: " .. #seen .. "; first: " .. seen[1]
  return result
end`,
  "upper.lua": `
function filter(result, ctx)
  for _, block in ipairs(result.content) do
    if block.type == "text" then block.text = block.text:upper() end
  end
  return result
end`,
};

/** Starts the shared gateway. */
export async function startFilterGateway(): Promise<TestGateway> {
  const dir = mkdtempSync(join(tmpdir(), "mcpgw-filters-"));
  for (const [name, text] of Object.entries(LUA)) writeFileSync(join(dir, name), text);
  const server = (name: string, filters: string) =>
    `  ${name}:\n    command: node\n    args: [${JSON.stringify(fixture("leaky.mjs"))}]\n` +
    `    env: { LEAKY_NAME: ${name} }\n    filters: ${filters}\n`;
  const yaml = `
gateway:
  auth:
    tokens:
      - { name: tester, token: "${TOKEN}", admin: true }
scripting:
  execute: false
  macros: null
  limits: { timeout: 4s, memory: 16MiB }
servers:
${server("plain", "[]")}
${server("redact", "[secrets, pii]")}
${server("spot", "[spotlight]")}
${server("block", "[secrets, { lua: ./block.lua }]")}
${server("spin", "[{ lua: ./spin.lua }]")}
${server("hog", "[{ lua: ./hog.lua }]")}
${server("stash", "[{ lua: ./stash.lua }]")}
${server("upper", "[pii, { lua: ./upper.lua }]")}
`;
  return await startTestGateway(yaml, { dir });
}
