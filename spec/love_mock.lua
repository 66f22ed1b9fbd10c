-- LÖVE's graphics calls mocked for the specs of anim.love's drawing
-- (attach2d_spec, spine_sequence_spec, slots2d_spec): a ByteData is a
-- module buffer of floats, a mesh hands its vertices to
-- hooks.vertices(data, from, n), a stencil calls hooks.stencil(), a
-- stencil test hooks.stencil_test(mode) (nil: off), a draw
-- hooks.draw(texture, blend mode, vertices: the mesh's draw range); a
-- mesh's texture must be an image (a table here), as LÖVE's setTexture
-- checks.
local anim = require "anim"

local M = {}

-- fn(draw2d) with `love` mocked and anim.love loaded fresh; both put back
-- after, whatever fn raised (raised again then).
function M.run(hooks, fn)
  local blend
  local function mesh()
    local m = {}
    function m.setVertices(_, data, from, n) if hooks.vertices then hooks.vertices(data, from, n) end end
    function m.setDrawRange(_, _, n) m.range = n end
    function m.setTexture(_, t)
      if type(t) ~= "table" then error("bad argument #1 to 'setTexture' (Texture expected, got " .. type(t) .. ")") end
      m.texture = t
    end
    return m
  end
  local g = { push = function() end, pop = function() end, translate = function() end, rotate = function() end,
    scale = function() end, setShader = function() end, setBlendMode = function(mode) blend = mode end,
    draw = function(m) if hooks.draw then hooks.draw(m.texture, blend, m.range) end end,
    setStencilTest = function(mode) if hooks.stencil_test then hooks.stencil_test(mode) end end,
    newShader = function() return {} end,
    newMesh = function() return mesh() end,
    stencil = function(f)
      if hooks.stencil then hooks.stencil() end
      f()
    end }
  local saved = rawget(_G, "love")
  rawset(_G, "love", { graphics = g, data = { newByteData = function(bytes) return anim.buffer(bytes / 4, "float") end } })
  package.loaded["anim.love"] = nil
  local ok, err = pcall(function() fn(require "anim.love") end)
  rawset(_G, "love", saved)
  package.loaded["anim.love"] = nil
  collectgarbage("restart")
  assert(ok, err)
end

return M
