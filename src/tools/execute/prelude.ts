/**
 * Lua prelude of `execute`: defines the `tools` global on top of the `host` functions the
 * parent answers (`search`, `describe`, `call`, `refused`). `tools` is an empty table behind a
 * read-only metatable, so `pairs`, `next` and `#` find nothing to enumerate — discovery goes
 * through `tools.search` — and any other string key is a call shorthand.
 */
export const EXECUTE_PRELUDE = String.raw`
local host = host
local raise, start, wait = host.raise, host.start, host.wait
local encode, start_json = host.encode, host.start_json
local type, tostring, rawget, rawequal, pcall, setmetatable =
  type, tostring, rawget, rawequal, pcall, setmetatable
local sfind, sgsub = string.find, string.gsub

local proxy = {}

-- Starts a host request; a refused argument (ceilings, functions) comes back as a message
-- naming the script's own argument rather than the wrapper table.
local function begin(name, payload, what)
  local ok, id = pcall(start, name, payload)
  if ok then return id end
  local why = sgsub(tostring(id), '^.-host%.start refused: ', '')
  return nil, what .. ' refused: ' .. why
end

local function ask(name, payload, what)
  local id, why = begin(name, payload, what)
  if not id then raise(why) end
  local ok, v = wait(id)
  if not ok then raise(what .. ': ' .. tostring(v.message)) end
  return v
end

local api = {}

function api.search(q, extra)
  if rawequal(q, proxy) then q = extra end -- tools:search{...}
  if type(q) == 'string' then q = { query = q } end
  if type(q) ~= 'table' then
    raise('tools.search expects { query = "...", server = nil, limit = nil, offset = nil }, not a ' .. type(q))
  end
  return ask('search', q, 'tools.search')
end

function api.describe(q, extra)
  if rawequal(q, proxy) then q = extra end
  if type(q) == 'string' then q = { path = q } end
  local path = type(q) == 'table' and rawget(q, 'path') or nil
  if type(path) ~= 'string' then raise('tools.describe expects { path = "server__tool" }') end
  return ask('describe', { path = path }, 'tools.describe')
end

-- A call refused before it left the script still appears in the trace.
local function refused(path, message)
  pcall(start, 'refused', { path = tostring(path), message = message })
  return { ok = false, error = { code = 'invalid_arguments', message = message } }
end

-- The arguments are encoded on their own (the same ceilings and depth count as mcp.call), then
-- sent inside a JSON object the prelude writes itself.
function api.call(path, args, extra)
  if rawequal(path, proxy) then path, args = args, extra end
  if type(path) ~= 'string' then
    return refused(path, 'tools.call: path must be a string, not a ' .. type(path))
  end
  local t = type(args)
  if args ~= nil and t ~= 'table' and t ~= 'string' then
    return refused(path, 'tools.call: args must be a table or a JSON string, not a ' .. t)
  end
  local path_json, why = encode(path, 'path')
  if not path_json then return refused(path, 'tools.call refused: ' .. why) end
  local payload
  if args == nil then
    payload = '{"path":' .. path_json .. '}'
  else
    local args_json
    args_json, why = encode(args, 'args')
    if not args_json then return refused(path, 'tools.call refused: ' .. why) end
    payload = '{"path":' .. path_json .. (t == 'table' and ',"args":' or ',"json":') .. args_json .. '}'
  end
  local ok, id = pcall(start_json, 'call', payload)
  if not ok then return refused(path, 'tools.call refused: ' .. tostring(id)) end
  local done, v = wait(id)
  if done then return v end
  -- The answer did not reach the script: the transfer budget refused it, or the host failed.
  -- Either way tools.call keeps its promise of never raising.
  local code = v.code == 'intermediate_result_too_large' and v.code or 'upstream_error'
  return { ok = false, error = { code = code, message = tostring(v.message) } }
end

local function shorthand(name)
  return function(args, extra)
    if rawequal(args, proxy) then args = extra end -- tools:server__tool{...}
    return api.call(name, args)
  end
end

local function not_listable()
  raise('tools cannot be listed: find tools with tools.search{ query = "..." } ' ..
    '(mcp.listTools() returns every name)')
end

setmetatable(proxy, {
  __index = function(_, key)
    local f = api[key]
    if f then return f end
    -- search/call/describe are reserved above; names starting with "__" are Lua metamethod
    -- names, never shorthands (call such a tool with tools.call).
    if type(key) ~= 'string' or sfind(key, '^__') then return nil end
    return shorthand(key)
  end,
  __newindex = function() raise('tools is read-only') end,
  __pairs = not_listable,
  __len = not_listable,
  __metatable = 'tools',
})

tools = proxy
`;
