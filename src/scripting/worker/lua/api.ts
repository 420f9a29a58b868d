/**
 * Lua source of the namespaces scripts use: `mcp` (call/poll/listTools/image), `task.await`,
 * `host` (generic calls answered by the parent, for features layered on top), `emit` and a
 * captured `print`. Every JS function in `H` answers `(nil, message)` instead of throwing, so
 * errors are raised here with the script's line.
 */
export const LUA_API = String.raw`
-- Waits for the host: yields AWAIT + the id of the request to wait for (false: one turn of the
-- event loop) up to the runner, through wrapped coroutines.
local function wait(id)
  if not co_isyieldable() then
    raise('cannot wait for the host here (inside a metamethod, iterator or callback called from C)')
  end
  co_yield(AWAIT, id)
end

local function no_nul(s, what)
  if sfind(s, '\0', 1, true) then raise(what .. ' contains a NUL byte') end
end

mcp = {}

function mcp.call(name, args)
  if type(name) ~= 'string' then raise('mcp.call: toolName must be a string, not ' .. type(name)) end
  no_nul(name, 'mcp.call: toolName')
  local json, why
  if args == nil then
    json = '{}'
  elseif type(args) == 'table' then
    json, why = encode(args, 'args', ARG_CEIL)
  elseif type(args) == 'string' then
    why = check_string(args, 'args', ARG_CEIL)
    if not why and sfind(args, '\0', 1, true) then why = 'args is not JSON: it holds a NUL byte' end
    if not why then json = args end
  else
    why = 'args must be a table or a JSON string, not a ' .. type(args)
  end
  return H.toolCall(name, json, why and ('mcp.call refused: ' .. why) or nil)
end

function mcp.poll(id)
  id = tostring(id)
  local r, err = H.poll(id)
  if err then raise('mcp.poll: ' .. err) end
  if r == nil and co_isyieldable() then
    -- let the worker's event loop deliver replies, so a plain polling loop makes progress
    co_yield(AWAIT, false)
    r = H.poll(id)
  end
  return r
end

task = {}

local function await_one(id)
  id = tostring(id)
  -- Replies come from another process, so a call is hardly ever settled yet: wait first and
  -- look once (the runner resumes at once for a request already answered).
  if co_isyieldable() then co_yield(AWAIT, id) end
  local r, err = H.poll(id)
  while r == nil do
    if err then raise('task.await: ' .. err) end
    wait(id)
    r, err = H.poll(id)
  end
  return r
end

function task.await(...)
  local n = select('#', ...)
  if n <= 1 then return await_one((...)) end
  local out = {}
  for i = 1, n do out[i] = await_one((select(i, ...))) end
  return unpack(out, 1, n)
end

-- Settles a host request: true, value | false, { code, message }.
local function settle(id)
  while true do
    local state, v = H.hostTake(id)
    if state ~= nil then return state, v end
    wait(id)
  end
end

function mcp.listTools()
  local ok, v = settle(H.listStart())
  if not ok then raise('mcp.listTools: ' .. tostring(v.message)) end
  return v
end

function mcp.image(source)
  local t = type(source)
  local v, err
  if t == 'string' then
    no_nul(source, 'mcp.image: path')
    v, err = H.imagePath(source)
  elseif t == 'table' and buffer_ids[source] then
    v, err = H.imageBuffer(buffer_ids[source])
  elseif t == 'table' then
    local data, path = rawget(source, 'data'), rawget(source, 'path')
    if type(data) ~= 'string' then data = rawget(source, 'imageBase64') end
    if type(data) ~= 'string' then
      raise('mcp.image: the table carries no base64 picture (data or imageBase64)')
    end
    if type(path) ~= 'string' then path = nil end
    v, err = H.imageBase64(data, path)
  else
    raise('mcp.image: source must be a VFS path, a buffer or a table with base64 data, not a ' .. t)
  end
  if err then raise('mcp.image: ' .. err) end
  return v
end

local host_api = {}
host = host_api

function host_api.start(name, args)
  if type(name) ~= 'string' then raise('host.start: name must be a string') end
  no_nul(name, 'host.start: name')
  local json, why = encode(args, 'args', ARG_CEIL)
  if not json then raise('host.start refused: ' .. why) end
  local id, err = H.hostStart(name, json)
  if err then raise(err) end
  return id
end

-- For preludes: encode a value under the tool-argument ceilings, naming it 'path' in refusals
-- (json | nil, reason), and start a request whose arguments are such JSON text already, so a
-- wrapper adds no nesting level of its own to what the ceilings see.
function host_api.encode(value, path) return encode(value, path, ARG_CEIL) end

function host_api.start_json(name, json)
  if type(name) ~= 'string' or type(json) ~= 'string' then
    raise('host.start_json: name and json must be strings')
  end
  local id, err = H.hostStart(name, json)
  if err then raise(err) end
  return id
end

function host_api.wait(id) return settle(id) end

-- Lets prelude wrappers raise errors at the script's line rather than their own.
host_api.raise = raise

function host_api.try(name, args) return settle(host_api.start(name, args)) end

function host_api.call(name, args)
  local ok, v = settle(host_api.start(name, args))
  if not ok then raise(tostring(v.message)) end
  return v
end

function emit(value)
  local json, why = encode(value, 'emit', OUT_CEIL)
  if not json then raise('emit refused: ' .. why) end
  H.emit(json)
end

print = function(...)
  local n = select('#', ...)
  local parts = {}
  for i = 1, n do parts[i] = tostring((select(i, ...))) end
  -- NUL would cut the text crossing into JS; show it instead
  H.print((sgsub(concat(parts, '\t'), '\0', '\\0')) .. '\n')
end
`;

/**
 * Ends the bootstrap chunk. It returns the runner, the buffer tables the JS side needs, and the
 * two functions that let one engine serve many runs without one run seeing another:
 * - `new_env` builds a run's globals: a fresh table holding the pristine globals, each library
 *   table copied (so `string.x = …` or `rawset(math, …)` changes the run's copy only), `_G`
 *   pointing at the copy, a `load` whose default environment is the copy, the string metatable's
 *   `__index` pointed at the copy's `string`, and the random generator reseeded by the host.
 * - `verify` puts the string metatable back and checks every table shared between runs (the
 *   pristine globals and libraries, the string metatable, the bootstrap's own marker tables, the
 *   registry's named entries and `package.loaded`) key by key and metatable by metatable against
 *   the snapshot taken when the engine was made, then collects garbage. `false` means the engine
 *   is discarded instead of reused.
 */
export const LUA_PRELUDE_TAIL = String.raw`
local rawequal, rawset, ipairs = rawequal, rawset, ipairs
local reseed = math.randomseed
local string_mt = dgetmetatable('')

local function copy(t)
  local c = {}
  for k, v in next, t do c[k] = v end
  return c
end

local function new_env(string_bytes, seed1, seed2)
  ARG_CEIL.string_bytes, OUT_CEIL.string_bytes = string_bytes, string_bytes
  reseed(seed1, seed2)
  local env = {}
  for k, v in next, G do
    if rawequal(v, G) then v = env elseif type(v) == 'table' then v = copy(v) end
    env[k] = v
  end
  env.load = function(...)
    local chunk, name, _, e = ...
    if select('#', ...) >= 4 then return raw_load(chunk, name, 't', e) end
    return raw_load(chunk, name, 't', env)
  end
  string_mt.__index = env.string
  return env
end

local function run(env, prelude, main, keep_host)
  if prelude then prelude() end
  if not keep_host then rawset(env, 'host', nil) end
  local value = main()
  local json, why = encode(value, 'result', OUT_CEIL)
  if not json then error('the script returned a value JSON cannot carry: ' .. why, 0) end
  return json
end

-- What one run could touch and the next could see: every table reachable from the pristine
-- globals, the registry's named entries, package.loaded and this chunk's own shared tables,
-- with their metatables. Registry integer keys are references the host takes and frees.
local watched, snap = {}, {}
local function watch(t, named_only)
  if type(t) ~= 'table' or snap[t] then return end
  local kv, n = {}, 0
  for k, v in next, t do
    if not named_only or type(k) ~= 'number' then kv[k] = v; n = n + 1 end
  end
  snap[t] = { kv = kv, n = n, mt = dgetmetatable(t), named_only = named_only }
  watched[#watched + 1] = t
  local mt = dgetmetatable(t)
  if mt then watch(mt) end
  for k, v in next, kv do
    if type(v) == 'table' and not named_only then watch(v) end
    if type(k) == 'table' and not named_only then watch(k) end
  end
end
-- Lua's buffer code registers its box metatable (_UBOX*) the first time a string outgrows the
-- stack buffer: make that happen now, so a run that builds a long string changes nothing.
do local _ = G.string.rep('x', 65536) end
local registry = getregistry()
watch(G)
watch(string_mt)
watch(buffer_mt); watch(buffer_ids); watch(array_mt); watch(AWAIT); watch(ESC); watch(Refusal)
watch(registry, true)
for k, v in next, registry do
  if type(k) ~= 'number' and type(v) == 'table' then watch(v) end
end

local function verify()
  string_mt.__index = G.string
  for i = 1, #watched do
    local t = watched[i]
    local s = snap[t]
    if not rawequal(dgetmetatable(t), s.mt) then return false, 'a metatable changed' end
    local n = 0
    for k, v in next, t do
      if not s.named_only or type(k) ~= 'number' then
        n = n + 1
        if not rawequal(rawget(s.kv, k), v) then return false, 'key ' .. tostring(k) .. ' changed' end
      end
    end
    if n ~= s.n then return false, 'a key was removed' end
  end
  raw_collectgarbage('collect')
  return true
end
return run, buffer_mt, buffer_ids, new_env, array_mt, verify
`;
