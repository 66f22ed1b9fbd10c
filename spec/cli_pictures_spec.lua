-- The command on real files a newcomer tried (issue 37): plot and sheet of
-- a file of several animations draw a page each; sheet draws a glTF
-- skeleton where its joints are (their translations and scales), not at
-- one point; convert says the error it measured; make convert's snippet
-- shows whole keys.
local H = require "spec.helper"

local sq = H.sq
local FOX = H.shared .. "/data/gltf/Fox/glTF-Binary/Fox.glb"
local KATANA = H.shared .. "/data/realfiles/hephaestus-engine/katana.bbmodel"

-- `H.lua ARGS` from the checkout with its module: output (stderr too), status
local function lua_cmd(args)
  return H.popen(string.format("cd %s && LUA_PATH='lua/?.lua;lua/?/init.lua;;' LUA_CPATH='%s/?.so;;' "
    .. "LUA_PATH_5_4='lua/?.lua;lua/?/init.lua;;' LUA_CPATH_5_4='%s/?.so;;' %s %s 2>&1",
    sq(H.root), H.build, H.build, H.lua, args))
end

-- `anim ARGS`: status, stdout and stderr together
local function anim_cmd(args)
  local out, code = lua_cmd("bin/anim " .. args)
  return code, out
end

local function have(path)
  local f = io.open(path, "rb")
  if f then f:close() end
  return f ~= nil
end

describe("anim plot and anim sheet of a file of several animations", function()
  local dir
  before_each(function() dir = H.tmpdir() end)
  after_each(function() os.execute("rm -rf " .. sq(dir)) end)

  for _, verb in ipairs { "plot", "sheet" } do
    it(verb .. " draws a page for each animation, one under the other; --animation one", function()
      if not have(FOX) then pending("no " .. FOX) return end
      local code, out = anim_cmd(string.format("%s %s -o %s", verb, sq(FOX), sq(dir .. "/all.svg")))
      assert.are.equal(0, code, out)
      local svg = H.read(dir .. "/all.svg")
      -- the outer picture and a nested one per animation (Fox: Survey, Walk, Run)
      local _, pages = svg:gsub("<svg ", "")
      assert.are.equal(4, pages, svg:sub(1, 400))
      for _, name in ipairs { "Survey", "Walk", "Run" } do
        assert.truthy(svg:find("Fox.glb (" .. name .. ")", 1, true), name)
      end
      -- each page placed below the one before
      local ys = {}
      for y in svg:gmatch('<svg y="([%d.]+)"') do ys[#ys + 1] = tonumber(y) end
      assert.are.equal(3, #ys)
      assert.is_true(ys[1] == 0 and ys[2] > ys[1] and ys[3] > ys[2])
      local code1, out1 = anim_cmd(string.format("%s %s --animation Walk -o %s", verb, sq(FOX), sq(dir .. "/walk.svg")))
      assert.are.equal(0, code1, out1)
      local _, one = H.read(dir .. "/walk.svg"):gsub("<svg ", "")
      assert.are.equal(1, one)
    end)
  end
end)

describe("anim plot --joint over several animations", function()
  it("leaves out, with a note each, the animations that do not move that joint", function()
    local knight = H.shared .. "/data/blockbench/BetterModel/knight.bbmodel"
    if not have(knight) then pending("no " .. knight) return end
    local dir = H.tmpdir()
    -- pri_right_item: in the three attacks, not in roll
    local code, out = anim_cmd(string.format("plot %s --joint pri_right_item -o %s", sq(knight), sq(dir .. "/k.svg")))
    local svg = H.read(dir .. "/k.svg")
    os.execute("rm -rf " .. sq(dir))
    assert.are.equal(0, code, out)
    assert.truthy(out:find("anim plot: note: .-knight%.bbmodel %(roll%): no joint 'pri_right_item' in the clip .-; left out\n"), out)
    local _, pages = svg:gsub("<svg ", "")
    assert.are.equal(4, pages)
    assert.is_nil(svg:find("(roll)", 1, true))
  end)
end)

describe("anim sheet of a glTF skeleton", function()
  it("places the joints by their translations: the bones spread over the frame", function()
    if not have(FOX) then pending("no " .. FOX) return end
    local dir = H.tmpdir()
    local code, out = anim_cmd(string.format("sheet %s --animation Walk --frames 1 -o %s", sq(FOX), sq(dir .. "/w.svg")))
    assert.are.equal(0, code, out)
    local svg = H.read(dir .. "/w.svg")
    os.execute("rm -rf " .. sq(dir))
    -- the extent of every drawn polygon's points
    local x0, x1, y0, y1 = math.huge, -math.huge, math.huge, -math.huge
    for pts in svg:gmatch('<polygon[^>]-points="([^"]+)"') do
      for x, y in pts:gmatch("([%d.%-]+),([%d.%-]+)") do
        x, y = tonumber(x), tonumber(y)
        x0, x1, y0, y1 = math.min(x0, x), math.max(x1, x), math.min(y0, y), math.max(y1, y)
      end
    end
    -- (with the translations left out every bone sat at the root: a few
    -- pixels; the fox spans most of its panel)
    assert.is_true(x1 - x0 > 100 and y1 - y0 > 30, string.format("drawn within %.1f x %.1f", x1 - x0, y1 - y0))
  end)
end)

describe("anim convert of a baked Blockbench animation", function()
  it("says the largest error it measured, not only the bound", function()
    if not have(KATANA) then pending("no " .. KATANA) return end
    local dir = H.tmpdir()
    local code, out = anim_cmd(string.format("convert %s --animation idle -o %s", sq(KATANA), sq(dir .. "/k.anim")))
    os.execute("rm -rf " .. sq(dir))
    assert.are.equal(0, code, out)
    local measured = tonumber(out:match("approximated: the largest error measured is ([%d.e+-]+) %(the bound: 0.01%)"))
    assert(measured, out)
    assert.is_true(measured < 1e-12, out)
  end)
end)

describe("examples/convert.lua", function()
  it("shows whole keys of the file it wrote, each a JSON array", function()
    local cjson = require "cjson"
    local out, code = lua_cmd("examples/convert.lua")
    assert.are.equal(0, code, out)
    local shown = out:match("the head's rotation keys:\n(.-)\nreloaded")
    assert(shown, out)
    local n = 0
    for line in shown:gmatch("[^\n]+") do
      if not line:match("^  %.%.%. and %d+ more$") then
        local ok, key = pcall(cjson.decode, line)
        assert(ok and type(key) == "table" and type(key[1]) == "number", "not a whole key: " .. line)
        n = n + 1
      end
    end
    assert.is_true(n >= 2, shown)
  end)
end)
