-- examples/love2d/conf.lua: the window of the 2D example (`make love2d`);
-- the stencil is on (anim.love's clipping attachments draw into it).
function love.conf(t)
  t.window.title = "anim: a 2D skeleton from Spine JSON (examples/love2d)"
  t.window.width = 800
  t.window.height = 500
  t.window.stencil = true
  t.identity = "anim-love2d"
end
