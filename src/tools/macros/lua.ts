/**
 * Lua sources for macros. The prelude gives macro files `mcp.tool { … }` (one call per tool) and
 * `require("_name")` for the folder's `_*.lua` libraries; the main chunk loads the file, then
 * either returns the registered specs (registration) or runs one tool (a call).
 */

/** Prelude: `mcp.tool`, library `require`, and accessors the main chunk uses. */
export const MACRO_PRELUDE = String.raw`
local specs, order = {}, {}
local libs, loaded = MACRO_LIBS or {}, {}
MACRO_LIBS = nil

mcp.tool = function(spec)
  if type(spec) ~= 'table' then error('mcp.tool expects a table { name = ..., run = function(args) ... end }', 2) end
  local name = rawget(spec, 'name')
  if type(name) ~= 'string' then error('mcp.tool: name must be a string', 2) end
  if specs[name] then error('mcp.tool: tool "' .. name .. '" is registered twice in this file', 2) end
  specs[name] = spec
  order[#order + 1] = name
end

require = function(name)
  if loaded[name] ~= nil then return loaded[name] end
  local src = type(name) == 'string' and libs[name] or nil
  if not src then
    error('require: no library "' .. tostring(name) .. '" (libraries are _*.lua files in the macro folder)', 2)
  end
  local chunk, err = load(src, '=' .. name .. '.lua')
  if not chunk then error(err, 0) end
  local value = chunk()
  if value == nil then value = true end
  loaded[name] = value
  return value
end

-- JSON cannot tell 2.0 from 2, so an untyped param whose default is a Lua float is given its
-- inferred type here, where the difference is still visible: a float default means "number".
local function typed_params(params)
  if type(params) ~= 'table' then return params end
  local out = {}
  for pname, p in pairs(params) do
    if type(p) == 'table' and rawget(p, 'type') == nil and math.type(rawget(p, 'default')) == 'float' then
      local c = {}
      for k, v in pairs(p) do c[k] = v end
      c.type = 'number'
      p = c
    end
    out[pname] = p
  end
  return out
end

__macro_specs = function()
  local out = {}
  for i, name in ipairs(order) do
    local copy, keys = {}, {}
    for k, v in pairs(specs[name]) do
      keys[#keys + 1] = tostring(k)
      if k == 'params' then copy[k] = typed_params(v)
      elseif k ~= 'run' then copy[k] = v end
    end
    copy.__keys = keys
    copy.__run = type(specs[name].run)
    out[i] = copy
  end
  return out
end

__macro_run = function(name, args)
  local spec = specs[name]
  if not spec then error('tool "' .. tostring(name) .. '" is no longer registered by its file', 0) end
  return spec.run(args)
end
`;

/** Main chunk: globals MACRO_SOURCE, MACRO_FILE and (for a call) MACRO_TOOL, MACRO_ARGS. */
export const MACRO_MAIN = String.raw`
local src, file, tool, args = MACRO_SOURCE, MACRO_FILE, MACRO_TOOL, MACRO_ARGS
MACRO_SOURCE, MACRO_FILE, MACRO_TOOL, MACRO_ARGS = nil, nil, nil, nil
local specs, run = __macro_specs, __macro_run
__macro_specs, __macro_run = nil, nil
local chunk, err = load(src, '=' .. file)
if not chunk then error(err, 0) end
chunk()
if tool == nil then return specs() end
return (run(tool, args or {}))
`;
