-- A library for macros (files starting with "_" are not scanned for tools): require("_util").
local util = {}

--- Raises with a readable message when a tool call failed; returns the result otherwise.
function util.check(result, what)
  if result.is_error then error("could not " .. what .. ": " .. result.content, 2) end
  return result
end

return util
