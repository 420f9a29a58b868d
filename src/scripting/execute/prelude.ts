/**
 * Lua prelude of `execute`: defines the `tools` global on top of the `host` functions the
 * parent answers (`search`, `describe`, `call`, `refused`). `tools` is an empty table behind a
 * read-only metatable, so `pairs`, `next` and `#` find nothing to enumerate — discovery goes
 * through `tools.search` — and any other string key is a call shorthand.
 */
export const EXECUTE_PRELUDE = String.raw`
local host = host
local raise, start, wait = host.raise, host.start, host.wait
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
  why = sgsub(why, 'args%.args', 'args')
  why = sgsub(why, 'args%.json', 'args')
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

function api.call(path, args, extra)
  if rawequal(path, proxy) then path, args = args, extra end
  if type(path) ~= 'string' then
    return refused(path, 'tools.call: path must be a string, not a ' .. type(path))
  end
  local payload
  local t = type(args)
  if args == nil then
    payload = { path = path }
  elseif t == 'table' then
    payload = { path = path, args = args }
  elseif t == 'string' then
    payload = { path = path, json = args }
  else
    return refused(path, 'tools.call: args must be a table or a JSON string, not a ' .. t)
  end
  local id, why = begin('call', payload, 'tools.call')
  if not id then return refused(path, why) end
  local ok, v = wait(id)
  if ok then return v end
  -- The host function itself failed (it answers failures as values): keep the promise of
  -- never raising anyway.
  return { ok = false, error = { code = 'upstream_error', message = tostring(v.message) } }
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
