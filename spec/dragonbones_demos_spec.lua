-- anim.import_dragonbones against DragonBones' own runtime on its public
-- demo skeletons (#long).  No npm package carries DragonBones' demos and
-- none are committed here: put a folder of them (each *_ske.json with its
-- *_tex.json, e.g. the Demos of the DragonBonesJS repository) through
--   tools/dragonbones-reference/run --demos DIR
-- which writes the runtime's references into its cache
-- ($ANIM_DRAGONBONES_CACHE, else ${XDG_CACHE_HOME:-~/.cache}/anim/
-- dragonbones-reference, then demos/<name>.json, each naming its skeleton).
-- Without them the test is pending, saying so.
--
-- What is compared: as spec/dragonbones_spec.lua, every bone's world
-- matrix as animator:world2d gives it (those IK moves too: the 2D stage
-- plays DragonBones' inherit flags and IK solver), every slot's display
-- and colour, the draw order, at the setup pose and 10 frame instants of
-- every animation.  Tolerances: matrices 1e-5 + 1e-7 · |value| (32-bit
-- frame values, the demos' coordinates in the hundreds; measured: 1.2e-5
-- on a value of 300); the bones IK moves 1e-4 + 1e-7 · |value| (a leg
-- nearly straight amplifies the runtime's 32-bit rounding of its target:
-- the body demo's, 823 units long and 1.9 short of straight, 5.6e-5 at
-- the knee); in an animation with a `curve`,
-- which the runtime samples once per frame (docs/formats.md, DragonBones),
-- 0.1 (measured: 0.056, IK bones 0.02); colours 2e-4 (the runtime keeps
-- percent steps).
local anim = require "anim"
local cjson = require "cjson"
local W = require "spec.dragonbones_world"

local function cache()
  local c = os.getenv("ANIM_DRAGONBONES_CACHE")
  if c and c ~= "" then return c end
  local base = os.getenv("XDG_CACHE_HOME")
  if not base or base == "" then base = (os.getenv("HOME") or "") .. "/.cache" end
  return base .. "/anim/dragonbones-reference"
end

local function read_json(path)
  local f = io.open(path, "rb")
  if not f then return nil end
  local t = cjson.decode(f:read("*a"))
  f:close()
  return t
end

local function demos()
  local dir = cache() .. "/demos"
  local list = {}
  local p = io.popen('ls "' .. dir .. '" 2>/dev/null')
  if p then
    for f in p:lines() do
      if f:match("%.json$") then list[#list + 1] = dir .. "/" .. f end
    end
    p:close()
  end
  return list, dir
end

-- the animations (armature/name) of a file that hold a `curve`
local function curved(raw)
  local out = {}
  for _, a in ipairs(raw.armature) do
    for _, an in ipairs(a.animation or {}) do
      if cjson.encode(an):find('"curve"', 1, true) then out[a.name .. "/" .. (an.name or "")] = true end
    end
  end
  return out
end

describe("#long anim.import_dragonbones against DragonBones' runtime on its demos", function()
  it("matches the runtime on every demo whose reference is in the cache", function()
    local list, dir = demos()
    if #list == 0 then
      pending("no demo references in " .. dir .. ": run tools/dragonbones-reference/run --demos DIR (see this file)")
      return
    end
    local files, values = 0, 0
    for _, path in ipairs(list) do
      local ref = assert(read_json(path), path)
      local raw = read_json(ref.source)
      if raw then
        local tex = ref.source:gsub("_ske%.json$", "_tex.json")
        local f = io.open(tex)
        if f then f:close() else tex = nil end
        local r = assert(anim.import_dragonbones(ref.source, tex))
        local with_curves = curved(raw)
        W.compare(r, ref, raw, cjson.null, function(label, what, got, want, kind)
          local aname = label:match("^(.-) ")
          if what == "bone" or what == "ik bone" then
            local tol = (what == "ik bone" and 1e-4 or 1e-5) + 1e-7 * math.abs(want)
            if kind ~= "exact" and with_curves[aname .. "/" .. kind.animation] then tol = 0.1 end
            if math.abs(got - want) > tol then
              error(string.format("%s: %s: %.9g, the runtime %.9g", ref.source, label, got, want))
            end
          elseif what == "colour" then
            if math.abs(got - want) > 2e-4 then
              error(string.format("%s: %s: %.9g, the runtime %.9g", ref.source, label, got, want))
            end
          elseif got ~= want then
            error(string.format("%s: %s: %s, the runtime %s", ref.source, label, tostring(got), tostring(want)))
          end
          values = values + 1
        end)
        files = files + 1
      end
    end
    assert.is_true(files >= 3, "at least three demos compared, got " .. files)
    print(string.format("\n%d DragonBones demos, %d values compared", files, values))
  end)
end)
