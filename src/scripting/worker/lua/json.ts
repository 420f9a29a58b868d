/**
 * Lua source of the JSON encoder every value leaving Lua goes through (tool arguments, emitted
 * values, the returned value). It runs inside the sandbox so the argument ceilings (docs/ARCHITECTURE.md,
 * "Where each limit is enforced")
 * are checked before anything crosses into JS, and its output is plain JSON text, so NUL bytes and
 * other control characters cross escaped rather than cut.
 *
 * Conversion rules (documented for script authors):
 * - a table whose keys are exactly the integers 1..n is a JSON array; an empty table is `{}`,
 *   except one that arrived as an empty JSON array (it carries a marker metatable) — `[]`;
 *   any other table is an object (integer keys become strings: `{[1]="a",[3]="b"}` →
 *   `{"1":"a","3":"b"}`); keys that are neither strings nor integers are refused;
 * - integers stay integers; floats with an integral value print without a fraction (`3.0` → `3`);
 *   NaN and ±inf become `null` like JSON.stringify; integers beyond 2^53 lose precision in JS;
 * - strings must be UTF-8 text; functions, coroutines, buffers and self-containing tables are
 *   refused, naming the path of the offending value (`args.items[3].name`).
 */
export const LUA_JSON = String.raw`
local ESC = { ['"'] = '\\"', ['\\'] = '\\\\', ['\b'] = '\\b', ['\f'] = '\\f', ['\n'] = '\\n',
  ['\r'] = '\\r', ['\t'] = '\\t', ['\127'] = '\\u007f' }
for i = 0, 31 do
  local c = schar(i)
  if not ESC[c] then ESC[c] = sformat('\\u%04x', i) end
end

local Refusal = {}
local function refuse(msg) error(raw_setmetatable({ msg = msg }, Refusal), 0) end

local function key_path(path, k)
  if mtype(k) == 'integer' then return path .. '[' .. k .. ']' end
  if sfind(k, '^[%a_][%w_]*$') then return path .. '.' .. k end
  if #k > 64 then k = k:sub(1, 64) .. '...' end
  return path .. '[' .. sformat('%q', k) .. ']'
end

-- Returns a reason when a string may not cross as text, else nil.
local function check_string(s, path, ceil)
  local n = #s
  if n > ceil.string_bytes then
    return sformat('%s is a string of %d bytes, over the ceiling of %d bytes', path, n, ceil.string_bytes)
  end
  local ok, bad = utf8len(s)
  if not ok then
    return sformat('%s is a string of %d bytes that is not valid UTF-8 text (bad byte at %d)', path, n, bad)
  end
  return nil
end

local function put_string(s, path, ceil, buf)
  local why = check_string(s, path, ceil)
  if why then refuse(why) end
  local b = #buf
  buf[b + 1] = '"'
  if sfind(s, '[%c"\\]') then buf[b + 2] = sgsub(s, '[%c"\\]', ESC) else buf[b + 2] = s end
  buf[b + 3] = '"'
end

local function put_number(x, buf)
  if mtype(x) == 'integer' then buf[#buf + 1] = sformat('%d', x); return end
  if x ~= x or x == huge or x == -huge then buf[#buf + 1] = 'null'; return end
  if x == floor(x) and x >= -9007199254740992 and x <= 9007199254740992 then
    buf[#buf + 1] = sformat('%d', x); return
  end
  local s = sformat('%.14g', x)
  if tonumber(s) ~= x then s = sformat('%.17g', x) end
  buf[#buf + 1] = s
end

local put_value

local function put_table(t, path, depth, ceil, seen, buf)
  if depth > ceil.depth then
    refuse(sformat('%s is nested %d tables deep, over the ceiling of %d', path, depth, ceil.depth))
  end
  if buffer_ids[t] then refuse(path .. ' is a buffer, which JSON cannot carry (pass it to mcp.image)') end
  if seen[t] then refuse(path .. ' is a table that contains itself') end
  local n, maxk, seq = 0, 0, true
  for k in next, t do
    n = n + 1
    if mtype(k) == 'integer' then
      if k < 1 then seq = false elseif k > maxk then maxk = k end
    elseif type(k) == 'string' then
      seq = false
    else
      refuse(sformat('%s has a key of type %s, which JSON cannot carry', path, mtype(k) or type(k)))
    end
  end
  seen[t] = true
  if n == 0 and dgetmetatable(t) == array_mt then
    buf[#buf + 1] = '[]'
  elseif n > 0 and seq and maxk == n then
    if n > ceil.items then
      refuse(sformat('%s holds %d sequence items, over the ceiling of %d', path, n, ceil.items))
    end
    buf[#buf + 1] = '['
    for i = 1, n do
      if i > 1 then buf[#buf + 1] = ',' end
      put_value(rawget(t, i), path .. '[' .. i .. ']', depth + 1, ceil, seen, buf)
    end
    buf[#buf + 1] = ']'
  else
    if n > ceil.keyed then
      refuse(sformat('%s holds %d keyed entries, over the ceiling of %d', path, n, ceil.keyed))
    end
    buf[#buf + 1] = '{'
    local first = true
    for k, v in next, t do
      if not first then buf[#buf + 1] = ',' end
      first = false
      local kp = key_path(path, k)
      if mtype(k) == 'integer' then buf[#buf + 1] = '"' .. k .. '"' else put_string(k, kp .. ' (key)', ceil, buf) end
      buf[#buf + 1] = ':'
      put_value(v, kp, depth + 1, ceil, seen, buf)
    end
    buf[#buf + 1] = '}'
  end
  seen[t] = nil -- the same table may appear twice; only a cycle is refused
end

put_value = function(v, path, depth, ceil, seen, buf)
  local tv = type(v)
  if tv == 'string' then put_string(v, path, ceil, buf)
  elseif tv == 'number' then put_number(v, buf)
  elseif tv == 'boolean' then buf[#buf + 1] = v and 'true' or 'false'
  elseif tv == 'nil' then buf[#buf + 1] = 'null'
  elseif tv == 'table' then put_table(v, path, depth, ceil, seen, buf)
  else refuse(sformat('%s is a %s, which JSON cannot carry', path, tv)) end
end

-- Ceilings of tool arguments (the same for mcp.call and tools.call) and the looser ones of returned and emitted values.
local ARG_CEIL = { string_bytes = CEIL.string_bytes, keyed = 4096, items = 262144, depth = 64 }
local OUT_CEIL = { string_bytes = CEIL.string_bytes, keyed = huge, items = huge, depth = 200 }

-- encode(value, path, ceil) → json | nil, reason. Errors that are not refusals (memory, time)
-- propagate unchanged.
local function encode(value, path, ceil)
  local buf = {}
  local ok, err = pcall(put_value, value, path, 1, ceil or ARG_CEIL, {}, buf)
  if ok then return concat(buf) end
  if raw_getmetatable(err) == Refusal then return nil, err.msg end
  error(err, 0)
end
`;
