-- examples/sprite.lua: a sprite-frame character, no LÖVE needed.  The
-- sheet's data is the JSON Aseprite exports beside a sprite sheet
-- (examples/clips/slime.json); anim.import_aseprite makes a clip per tag
-- whose `frame` property is the frame to draw.  The slime idles (a
-- ping-pong tag, looping), hops once over it (an action: it takes the
-- whole frame while it plays) and idles again; a marker added from Lua
-- says when it lands.  Each line: the time, the frame, its rectangle on
-- the sheet (what love.graphics.newQuad takes, with sheet.w, sheet.h).
--
--   make sprite
local anim = require "anim"

local clips, sheet = assert(anim.import_aseprite("examples/clips/slime.json"))
print(string.format("sheet %s, %dx%d, %d frames; tags: hop, idle (and all)", sheet.image, sheet.w, sheet.h, #sheet.frames))

-- a marker on the hop's last frame (it starts at 200 ms), added to the
-- imported clip in place
local hop = anim.table(clips.hop)
hop.markers = { { time = 0.2, name = "land" } }
assert(anim.reload(clips.hop, hop))

-- a sprite needs no bones: a rig of one joint
local slime = anim.animator(assert(anim.rig{ joints = { { name = "root" } } }))
slime:on_marker(function(_, name, _, late) print(string.format("        marker %s, %.3f s before the end of this update", name, late)) end)
slime:play(clips.idle, { fade = 0 })

local dt, shown = 0.02, nil
for step = 1, 60 do
  if step == 26 then
    local tr = slime:play(clips.hop, { fade = 0, priority = "action" })
    tr:on_ended(function() print("        hop ended: idle again") end)
    print("        hop (priority action)")
  end
  slime:update(dt)
  local f = slime:property("frame")
  if f ~= shown then
    local r = sheet.frames[f + 1]
    print(string.format("%6.2f  frame %d  quad(%d, %d, %d, %d, %d, %d)", step * dt, f, r.x, r.y, r.w, r.h, sheet.w, sheet.h))
    shown = f
  end
end
