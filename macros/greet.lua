-- The example from docs/SCRIPTING.md: parameters with shorthand, explicit and inferred types.
mcp.tool {
  name = "greet",
  description = "Greet a person, optionally several times and loudly",
  params = {
    name  = "Person name",
    times = { type = "int", description = "Repeat count", default = 1 },
    loud  = { default = false, description = "Shout it" },
  },
  keywords = { "hello", "welcome" },
  run = function(args)
    local text = string.rep("Hello, " .. args.name .. "! ", args.times)
    if args.loud then text = string.upper(text) end
    return text
  end,
}
