-- `anim convert` of a file of animations (issue 35, defect 13; the style of
-- spec/cli_spec.lua: the command run as a subprocess, without LUA_PATH, in
-- a temp directory): a file that holds one animation is written to OUT
-- itself (`anim convert Box.glb -o m.anim` wrote m.animation0.anim); a
-- file of several, or of one imported and others left out, keeps one file
-- per animation, its name before .anim.
require("anim.base.luajit").no_traversal_traces()
local H = require "spec.helper"
local anim = require "anim"

local q = H.sq

local function absolute(path)
  local p = assert(io.popen("cd " .. q(path) .. " 2>/dev/null && pwd"))
  local d = p:read("*l")
  p:close()
  return d or path
end
local ROOT = absolute(H.root)
local BIN = ROOT .. "/bin/anim"
local GLTF = absolute(H.shared) .. "/data/gltf/"

local tmp -- a fresh directory per test
before_each(function() tmp = H.tmpdir() end)
after_each(function() os.execute("rm -rf " .. q(tmp)) end)

-- (every variable by which Lua 5.1 to 5.4 take their module paths)
local NO_PATHS = "-u LUA_PATH -u LUA_CPATH -u LUA_PATH_5_4 -u LUA_CPATH_5_4 -u LUA_PATH_5_3 -u LUA_CPATH_5_3"
  .. " -u LUA_PATH_5_2 -u LUA_CPATH_5_2"

-- Runs `anim ARGS` in the temp dir with no LUA_PATH: status, stdout, stderr.
local function run(args)
  local errf = tmp .. "/.stderr"
  local out, code = H.popen(string.format("cd %s && env %s %s %s %s 2>%s", q(tmp), NO_PATHS, H.lua, q(BIN), args,
    q(errf)))
  local err = H.read(errf)
  os.remove(errf)
  return code, out, err
end

-- Do clips a and b sample alike (within 1e-12) at 21 times over a's length?
local function same_samples(a, b)
  for i = 0, 20 do
    local t = a.length * i / 20
    local pb = b:sample(t)
    for j, x in pairs(a:sample(t)) do
      for ch, v in pairs(x) do
        if H.maxdiff(v, pb[j][ch]) > 1e-12 then return false end
      end
    end
  end
  return true
end

describe("anim convert", function()
  it("writes the animation of a glTF file that holds one to OUT itself", function()
    for _, f in ipairs { "BoxAnimated/glTF-Binary/BoxAnimated.glb", "AnimatedCube/glTF/AnimatedCube.gltf" } do
      local code, out, err = run("convert " .. q(GLTF .. f) .. " -o m.anim")
      assert.are.equal(0, code, err)
      assert.are.equal("", out)
      assert.are.equal("anim convert: " .. GLTF .. f .. " -> m.anim\n", err)
      assert.are.same({ "m.anim" }, H.ls(tmp))
      local _, clip = next(assert(anim.import_gltf(GLTF .. f)).clips)
      assert.is_true(same_samples(clip, assert(anim.load(tmp .. "/m.anim"))))
      os.remove(tmp .. "/m.anim")
    end
  end)

  it("keeps one file per animation for a file of several", function()
    local code, _, err = run("convert " .. q(GLTF .. "Fox/glTF-Binary/Fox.glb") .. " -o fox.anim")
    assert.are.equal(0, code, err)
    assert.are.same({ "fox.Run.anim", "fox.Survey.anim", "fox.Walk.anim" }, H.ls(tmp))
  end)

  it("writes a Blockbench file of one animation to OUT itself, not when others were left out", function()
    if not anim.import_blockbench then pending("no anim.import_blockbench here") return end
    local one = '{"format_version": "1.8.0", "animations": {"a": {"animation_length": 1,'
      .. ' "bones": {"b": {"position": [0, 1, 0]}}}}}'
    H.write(tmp .. "/one.animation.json", one)
    local code, _, err = run("convert one.animation.json -o k.anim")
    assert.are.equal(0, code, err)
    assert.are.same({ "k.anim", "one.animation.json" }, H.ls(tmp))
    -- two in the file, one of them not imported: the one imported keeps its name
    H.write(tmp .. "/two.animation.json", one:sub(1, -3) .. ', "z": {"bones": {"b": {"position": [0, "1 +", 0]}}}}}')
    code, _, err = run("convert two.animation.json -o t.anim")
    assert.are.equal(0, code, err)
    assert.truthy(anim.load(tmp .. "/t.a.anim"))
    assert.is_nil(io.open(tmp .. "/t.anim"))
  end)
end)
