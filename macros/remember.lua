-- Two upstream calls behind one tool: store a fact in the memory server, then read it back.
local util = require("_util")

mcp.tool {
  name = "remember",
  description = "Remember a fact about something in the knowledge graph and return what is known about it",
  params = {
    subject = "What the fact is about (an entity name)",
    fact = "The fact to remember",
    kind = { type = "string", description = "Entity type", default = "thing" },
  },
  keywords = { "memory", "note", "store" },
  run = function(args)
    -- An empty Lua table converts to {} (an object), so the entity starts with the fact itself.
    util.check(task.await(mcp.call("memory__create_entities", {
      entities = { { name = args.subject, entityType = args.kind, observations = { args.fact } } },
    })), "create the entity")
    -- If the entity already existed, creating it changed nothing: add the fact to it.
    util.check(task.await(mcp.call("memory__add_observations", {
      observations = { { entityName = args.subject, contents = { args.fact } } },
    })), "add the observation")
    local opened = util.check(task.await(mcp.call("memory__open_nodes", { names = { args.subject } })), "read it back")
    return opened.result.structuredContent or opened.content
  end,
}
