-- examples/love3d/conf.lua: the LÖVE 11 window of the 3D example (make love3d):
-- a depth buffer for the fox, no vsync in the check mode (so that the
-- crowd's frame time is the frame's cost, not the display's).
function love.conf(t)
  t.identity = "anim-love3d-example"
  t.version = "11.4"
  t.window.title = "anim on LÖVE: a skinned glTF fox (GPU skinning)"
  t.window.width = 800
  t.window.height = 500
  t.window.depth = 24
  t.window.vsync = os.getenv("ANIM_LOVE3D_TEST") and 0 or 1
  t.modules.joystick = false
  t.modules.physics = false
  t.modules.video = false
  t.modules.audio = false
  t.modules.sound = false
end
