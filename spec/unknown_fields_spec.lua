-- Reading a field an object does not have raises, naming the field and
-- the kind, with a suggestion when a field or method is near (issue 37: it
-- read as nil, so `if track.playing then` was quietly always false, where
-- a misspelt write raised).  Documented fields that are absent still read
-- as nil.
local H = require "spec.helper"
local anim = require "anim"

-- The message of reading o[k], which must raise at this file's line.
local function read_error(o, k)
  local ok, err = pcall(function() local v = o[k]; return v end)
  assert.is_false(ok, "reading " .. tostring(k) .. " did not raise")
  assert.truthy(tostring(err):find("^spec/unknown_fields_spec.lua:%d+: ") or tostring(err):find("unknown_fields_spec.lua:%d+: "), err)
  return (tostring(err):gsub("^.-unknown_fields_spec.lua:%d+: ", ""))
end

describe("reading an unknown field", function()
  local walk = assert(anim.load(H.root .. "/examples/clips/walk.anim"))
  local rig = anim.rig("player")

  it("of a clip, a rig, an animator and a track", function()
    local a = anim.animator(rig)
    local t = a:play(walk)
    assert.are.equal("no field 'lenght' on anim.clip; did you mean 'length'?", read_error(walk, "lenght"))
    assert.are.equal("no field 'nmae' on anim.rig; did you mean 'name'?", read_error(rig, "nmae"))
    assert.are.equal("no field 'playing' on anim.track", read_error(t, "playing"):gsub(";.*", ""))
    assert.are.equal("no field 'name' on anim.track", read_error(t, "name"):gsub(";.*", ""))
    assert.are.equal("no field 'wieght' on anim.track; did you mean 'weight'?", read_error(t, "wieght"))
    assert.are.equal("no field 'updat' on anim.animator; did you mean 'update'?", read_error(a, "updat"))
    -- what a track has still reads
    assert.are.equal(walk, t.clip)
    assert.is_true(t.weight > 0)
  end)

  it("of a blend space, a library, an override handle and a constraint", function()
    local space = anim.blendspace { points = { { clip = walk, at = 0 }, { clip = walk, at = 1 } } }
    assert.are.equal("no field 'pionts' on anim.blendspace; did you mean 'points'?", read_error(space, "pionts"))
    local lib = assert(anim.library(H.root .. "/examples/clips"))
    assert.are.equal("no field 'clipp' on anim.library; did you mean 'clip'?", read_error(lib, "clipp"))
    local a = anim.animator(rig)
    local h = a:override("head", { rotation = { 0, 0, 0, 1 } })
    assert.are.equal("no field 'rotaton' on anim.override; did you mean 'rotation'?", read_error(h, "rotaton"))
    local c = a:aim { joint = "head", target = { 0, 0, 5 } }
    assert.are.equal("no field 'targte' on anim.constraint; did you mean 'target'?", read_error(c, "targte"))
    -- an aim constraint has no pole: nil, as documented for a two-bone field
    assert.is_nil(c.pole)
  end)

  it("by a key that is not a string", function()
    assert.are.equal("no field 1 on anim.clip (its fields are named by strings)", read_error(walk, 1))
  end)

  it("leaves documented fields that are absent as nil", function()
    assert.is_nil(walk.approx)
  end)
end)
