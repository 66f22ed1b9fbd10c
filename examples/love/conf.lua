-- examples/love/conf.lua: the LÖVE 11 window of the example (make love).
function love.conf(t)
  t.identity = "anim-love-example"
  t.version = "11.4"
  t.window.title = "anim on LÖVE: the player rig and a glTF critter"
  t.window.width = 800
  t.window.height = 500
  t.window.vsync = 1
  t.modules.joystick = false
  t.modules.physics = false
  t.modules.video = false
end
