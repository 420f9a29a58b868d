/**
 * Lua source that builds the sandbox: it runs first in every engine, captures the originals it
 * needs as locals, then removes or narrows every global a script could escape through
 * (docs/ARCHITECTURE.md, "Runtime facts that shaped the script workers"):
 * no io/debug/package/require/dofile/loadfile, `os` reduced to time/clock/date, `load` forced to
 * text mode, no `string.dump`, `collectgarbage` limited to "count"/"collect", no `__gc`
 * finalizers (they would run outside the time limit when the engine closes), and a locked string
 * metatable. Coroutines are wrapped so a host wait inside a script's own coroutine is passed up
 * to the runner instead of surfacing as a stray yield.
 */
export const LUA_PRELUDE_HEAD = String.raw`
local H, CEIL = ...
local type, next, select, tostring, tonumber, error, rawget, pcall =
  type, next, select, tostring, tonumber, error, rawget, pcall
local raw_setmetatable, raw_getmetatable, raw_load, raw_collectgarbage =
  setmetatable, getmetatable, load, collectgarbage
local mtype, floor, huge = math.type, math.floor, math.huge
local sformat, sfind, sgsub, schar = string.format, string.find, string.gsub, string.char
local concat, pack, unpack = table.concat, table.pack, table.unpack
local utf8len = utf8.len
local getinfo, dgetmetatable, getregistry = debug.getinfo, debug.getmetatable, debug.getregistry
local G = _G -- the pristine globals: never handed to a script (each run gets a copy, see new_env)
local co_create, co_resume, co_yield, co_status, co_isyieldable =
  coroutine.create, coroutine.resume, coroutine.yield, coroutine.status, coroutine.isyieldable

-- Marks a yield that waits for the host; only the runner loop and the coroutine wrappers see it.
local AWAIT = raw_setmetatable({}, { __metatable = false })
local buffer_mt = { __metatable = 'buffer', __newindex = function() error('buffers are read-only', 2) end }
local buffer_ids = raw_setmetatable({}, { __mode = 'k' })
-- Empty JSON arrays arrive as tables carrying this protected metatable, so they go back out as
-- [] rather than {} (a plain empty table stays {}). Scripts see the string 'array' as its
-- metatable: no table shared between runs is handed out.
local array_mt = { __metatable = 'array' }

-- Raises msg at the first Lua frame outside this bootstrap and the prelude, so API errors carry the script's
-- line. When a tail call erased that frame (return mcp.image(x)), the message has no line.
local function raise(msg)
  local level = 2
  while true do
    local info = getinfo(level, 'Sl')
    if not info then error(msg, 0) end
    if info.what ~= 'C' and info.source ~= '=bootstrap' and info.source ~= '=prelude'
      and info.currentline > 0 then
      error(info.short_src .. ':' .. info.currentline .. ': ' .. msg, 0)
    end
    level = level + 1
  end
end
`;

/** The part that trims globals; runs after the JSON encoder and API were defined. */
export const LUA_SANDBOX = String.raw`
dofile, loadfile, require, package, debug, io, warn = nil, nil, nil, nil, nil, nil, nil
string.dump = nil
do
  local time, clock, date = os.time, os.clock, os.date
  os = { time = time, clock = clock, date = date }
end

-- load is installed per run (new_env): its default environment is the run's own.
load = nil

collectgarbage = function(opt)
  opt = opt or 'collect'
  if opt == 'count' or opt == 'collect' then return raw_collectgarbage(opt) end
  error("collectgarbage: option '" .. tostring(opt) .. "' is not allowed", 2)
end

setmetatable = function(t, mt)
  if type(mt) == 'table' and rawget(mt, '__gc') ~= nil then
    error('setmetatable: __gc metamethods are not allowed', 2)
  end
  return raw_setmetatable(t, mt)
end

raw_getmetatable('').__metatable = 'string'

local function resume(co, ...)
  local r = pack(co_resume(co, ...))
  while r[1] and r[2] == AWAIT and co_status(co) == 'suspended' do
    co_yield(AWAIT, r[3])
    r = pack(co_resume(co))
  end
  return unpack(r, 1, r.n)
end
coroutine.resume = resume
coroutine.wrap = function(f)
  local co = co_create(f)
  return function(...)
    local r = pack(resume(co, ...))
    if not r[1] then error(r[2], 0) end
    return unpack(r, 2, r.n)
  end
end
`;
