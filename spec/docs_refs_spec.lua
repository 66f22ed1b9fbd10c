-- The docs are complete on their own (issue 37): they send a reader to no
-- text outside the repository (the format's original texts, the peers'
-- benchmark README) and to no issue number of the project's tracker, and
-- every link between them reaches a file and a heading that exist.
local H = require "spec.helper"

local DOCS = { "README.md", "bench/README.md", "fuzz/README.md" }
for _, f in ipairs(H.ls(H.root .. "/docs", "%.md$")) do DOCS[#DOCS + 1] = "docs/" .. f end

-- GitHub's anchor of a heading: lower case, punctuation but - and _ left
-- out, spaces turned into -.
local function slug(heading)
  local s = heading:lower():gsub("`", "")
  s = s:gsub("[^%w%s%-_\128-\255]", ""):gsub("%s", "-")
  return s
end

local function anchors_of(path)
  local text = H.read(H.root .. "/" .. path)
  local set, fenced = {}, false
  for line in (text .. "\n"):gmatch("([^\n]*)\n") do
    if line:match("^%s*```") then fenced = not fenced end
    local h = not fenced and line:match("^#+%s+(.-)%s*$")
    if h then
      local s, n = slug(h), 0
      while set[s .. (n > 0 and ("-" .. n) or "")] do n = n + 1 end
      set[s .. (n > 0 and ("-" .. n) or "")] = true
    end
  end
  return set
end

local function dir_of(path) return path:match("^(.*)/") or "" end

-- a/b/../c -> a/c
local function normal(path)
  local out = {}
  for part in path:gmatch("[^/]+") do
    if part == ".." and #out > 0 and out[#out] ~= ".." then out[#out] = nil
    elseif part ~= "." then out[#out + 1] = part end
  end
  return table.concat(out, "/")
end

describe("the docs", function()
  for _, doc in ipairs(DOCS) do
    local text = H.read(H.root .. "/" .. doc)
    local prose = text:gsub("```.-```", "")

    it(doc .. " names no issue number of the tracker", function()
      local at = prose:lower():find("issues? %d")
      assert(not at, doc .. ": " .. prose:sub(math.max(1, (at or 1) - 60), (at or 1) + 40))
    end)

    it(doc .. " sends the reader to no text outside the repository", function()
      for _, outside in ipairs { "legacy-xml-format.txt", "anim-format.txt", "SEMANTICS.md", "DESIGN.md", "import-notes.md", "shared/bench/README" } do
        assert(not prose:find(outside, 1, true), doc .. " names " .. outside)
      end
      -- a numbered rule of the semantics is a link to where the reference says it
      if doc ~= "docs/format-reference.md" then
        for before, n in prose:gmatch("(.)SEMANTICS (%d+)") do
          assert(before == "[", doc .. ": SEMANTICS " .. n .. " is not a link to docs/format-reference.md")
        end
      end
    end)

    it(doc .. "'s links reach files and headings that exist", function()
      local n = 0
      for target in prose:gmatch("%]%(([^)%s]+)%)") do
        if not target:match("^%a+:") then -- (http:, https:, mailto:)
          local file, anchor = target:match("^([^#]*)#?(.*)$")
          local path = file == "" and doc or normal((dir_of(doc) ~= "" and dir_of(doc) .. "/" or "") .. file)
          local f = io.open(H.root .. "/" .. path, "rb")
          assert(f, doc .. " links to " .. target .. ": no file " .. path)
          f:close()
          if anchor ~= "" then
            assert(path:match("%.md$"), doc .. " links to " .. target .. ": an anchor in a file that is no markdown")
            assert(anchors_of(path)[anchor], doc .. " links to " .. target .. ": no heading of " .. path .. " has that anchor")
          end
          n = n + 1
        end
      end
      assert.is_true(n > 0 or not prose:find("](", 1, true), doc .. ": no link read")
    end)
  end
end)
