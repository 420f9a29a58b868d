-- A result with pictures: fetch the everything server's tiny image several times at once and
-- return them inside a table; each becomes an image block beside the JSON text.
mcp.tool {
  name = "tiny_gallery",
  description = "Return a gallery of the everything server's tiny image (1 to 16 copies)",
  params = { count = { type = "integer", description = "How many pictures", default = 3 } },
  keywords = { "image", "picture", "demo" },
  run = function(args)
    if args.count < 1 or args.count > 16 then error("count must be between 1 and 16") end
    local ids = {}
    for i = 1, args.count do ids[i] = mcp.call("everything__get-tiny-image", {}) end
    local pictures = {}
    for i, id in ipairs(ids) do
      local r = task.await(id)
      if r.is_error then error("get-tiny-image failed: " .. r.content) end
      for _, block in ipairs(r.result.content) do
        if block.type == "image" then pictures[#pictures + 1] = mcp.image(block) break end
      end
    end
    return { caption = args.count .. " tiny images", pictures = pictures }
  end,
}
