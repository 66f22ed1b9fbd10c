-- examples/love2d/conf.lua: the window of the 2D example (`make love2d`);
-- the stencil is on (anim.love's clipping attachments draw into it); no
-- audio (the step events are printed: a machine without a sound device,
-- Xvfb's, may hang LÖVE at exit otherwise).
function love.conf(t)
  t.window.title = "anim: a 2D skeleton from Spine JSON (examples/love2d)"
  t.window.width = 800
  t.window.height = 500
  t.window.stencil = true
  t.identity = "anim-love2d"
  t.modules.audio = false
  t.modules.sound = false
  t.modules.joystick = false
  t.modules.physics = false
  t.modules.video = false
end
