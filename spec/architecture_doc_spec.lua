-- docs/architecture.md stays true: every file it names exists, every
-- function of its tables is defined in the file beside it, and every file
-- it names in prose with a function ("`f` of `file`", "`f` in `file`") has
-- that function.
local H = require "spec.helper"

local doc = H.read(H.root .. "/docs/architecture.md")

local function exists(path)
  local f = io.open(H.root .. "/" .. path, "rb")
  if f then f:close() end
  return f ~= nil
end

-- Whether the file defines a function (C or Lua) of that name; a Lua name
-- given with its module's local (json.decode) is found as M.decode too.
local function defines(path, fname)
  local text = H.read(H.root .. "/" .. path)
  local function has(name)
    local plain = name:gsub("[%.%-]", "%%%0")
    return text:find("[%s%*]" .. plain .. "%(") ~= nil -- C: `int name(`, `*name(`
      or text:find("function " .. plain .. "%(") ~= nil -- Lua: function M.name( / local function name(
  end
  local last = fname:match("%.([%w_]+)$")
  return has(fname) or (last ~= nil and has("M." .. last))
end

describe("docs/architecture.md", function()
  it("names only files that exist", function()
    local n = 0
    for path in doc:gmatch("`([%w_%-./]+%.%a+)`") do
      if path:find("/", 1, true) then
        assert(exists(path), "docs/architecture.md names " .. path .. ", which does not exist")
        n = n + 1
      end
    end
    assert.is_true(n > 40, n .. " files named")
  end)

  it("names every source file of csrc/ and lua/", function()
    local named = {}
    for path in doc:gmatch("`([%w_%-./]+%.%a+)`") do named[path] = true end
    local files = H.popen("cd " .. string.format("%q", H.root) .. " && find csrc lua -name '*.c' -o -name '*.h' -o -name '*.lua' | sort")
    local n = 0
    for path in files:gmatch("[^\n]+") do
      assert(named[path], "docs/architecture.md does not name " .. path .. " (a row of its tables: the file and its job)")
      n = n + 1
    end
    assert.is_true(n > 100, n .. " source files")
  end)

  it("gives for each step of a frame a function that is in the file named", function()
    local n = 0
    for file, fname in doc:gmatch("| `([%w_%-./]+)` | `([%w_.]+)` |") do
      assert(defines(file, fname), fname .. " is not in " .. file)
      n = n + 1
    end
    assert.is_true(n >= 10, n .. " steps")
  end)

  it("puts the functions its prose names where it says", function()
    local n = 0
    for fname, file in doc:gmatch("`([%w_.]+)`%s+of%s+`([%w_%-./]+%.[ch%a]+)`") do
      if file:find("/", 1, true) then
        assert(defines(file, fname), fname .. " is not in " .. file)
        n = n + 1
      end
    end
    for fname, file in doc:gmatch("`([%w_.]+)`%s+in%s+`([%w_%-./]+%.[ch%a]+)`") do
      if file:find("/", 1, true) then
        assert(defines(file, fname), fname .. " is not in " .. file)
        n = n + 1
      end
    end
    assert.is_true(n >= 10, n .. " functions named")
  end)
end)
