-- What the fuzz targets of issue 35 found (fuzz/README.md: state, the
-- blend spaces and reloads of animator and script), each as a plain spec;
-- their inputs are replayed by spec/fuzz_regressions_spec.lua.
local anim = require "anim"

local rig = anim.rig("player")

describe("a state saved after its overrides or constraints were all removed", function()
  -- (fuzz_state: the restored animator wrote overrides_next 1 where the
  -- saved one had 2, so its next override took id 1 where the saved
  -- animator's took 2: the two animators' states parted)
  it("restores their next ids: the restored animator writes the same state, and goes on giving the same ids", function()
    local a = anim.animator(rig)
    a:override("head", { position = { 1, 2, 3 } }):remove()
    a:aim { joint = "rightArm", target = { 1, 1, 1 } }:remove()
    a:update(0.1)
    local s = a:state()
    assert.are.equal("2", s.animator.overrides_next)
    assert.are.equal("1", s.animator.ik_next)
    local b = anim.animator(rig)
    assert(b:restore(s))
    assert.are.same(s, b:state())
    for _, x in ipairs { a, b } do
      x:override("torso", { position = { 0, 1, 0 } })
      x:aim { joint = "head", target = { 0, 2, 1 } }
    end
    assert.are.same(a:state(), b:state())
    assert.are.equal("2", b:state().overrides[1].id)
    assert.are.equal("2", b:state().constraints[1].id)
  end)
end)
