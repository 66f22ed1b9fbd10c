-- tools/make-love2d-hero.lua: writes examples/love2d/hero/ -- the 2D
-- character of `make love2d`, made here so that the project ships no
-- Spine example asset: its skeleton as a Spine 4.1 JSON export
-- (hero.json, written from Esoteric's public "JSON export format" page),
-- a Spine 4.x texture atlas (hero.atlas, "Atlas export format" page) and
-- its page image (hero.png, drawn as SVG here and rasterised by
-- rsvg-convert of Debian's librsvg2-bin).
--
--   lua5.4 tools/make-love2d-hero.lua [outdir]     (make love2d-hero)
--
-- Axes are Spine's: y up, pixels.  13 bones, 14 slots, two skins ("blue",
-- "gold") over the default one, a weighted mesh (the scarf, deformed),
-- a two-bone IK (the right arm aims at the bone "aim", which the example
-- moves to the mouse), and three animations (idle, walk, wave) with
-- events (step, with an int and an audio path; blink).
local cjson = require "cjson"

local out = arg[1] or "examples/love2d/hero"

-- The atlas page: 256 x 256, each region's rectangle (x, y from the top
-- left, w, h) and how it is drawn.
local PAGE = 256
local REGIONS = {
  { "head-blue", 0, 0, 56, 60 }, { "head-gold", 56, 0, 56, 60 },
  { "torso-blue", 112, 0, 44, 72 }, { "torso-gold", 156, 0, 44, 72 },
  { "limb", 200, 0, 18, 44 }, { "leg", 218, 0, 20, 52 },
  { "scarf", 0, 80, 64, 24 }, { "hand", 64, 80, 18, 18 }, { "shadow", 88, 80, 80, 20 },
}
local SVG = {
  ["head-blue"] = [[<circle cx="28" cy="32" r="26" fill="#f2c9a0" stroke="#5a3b22" stroke-width="2"/>
    <path d="M4 30 Q28 -6 52 30 Z" fill="#2f5fb3"/><circle cx="38" cy="34" r="3" fill="#222"/>]],
  ["head-gold"] = [[<circle cx="28" cy="32" r="26" fill="#f2c9a0" stroke="#5a3b22" stroke-width="2"/>
    <path d="M2 32 Q28 -8 54 32 L48 24 L28 4 L8 24 Z" fill="#d8a928" stroke="#7a5a10" stroke-width="2"/>
    <circle cx="38" cy="36" r="3" fill="#222"/>]],
  ["torso-blue"] = [[<rect x="2" y="2" width="40" height="68" rx="12" fill="#2f5fb3" stroke="#1b3466" stroke-width="2"/>
    <rect x="4" y="48" width="36" height="6" fill="#5a3b22"/>]],
  ["torso-gold"] = [[<rect x="2" y="2" width="40" height="68" rx="12" fill="#d8a928" stroke="#7a5a10" stroke-width="2"/>
    <path d="M8 10 L36 10 L22 40 Z" fill="#f4d35e"/><rect x="4" y="48" width="36" height="6" fill="#7a5a10"/>]],
  limb = [[<rect x="2" y="1" width="14" height="42" rx="7" fill="#f2c9a0" stroke="#5a3b22" stroke-width="2"/>]],
  leg = [[<rect x="2" y="1" width="16" height="50" rx="6" fill="#3b3b4f" stroke="#1c1c28" stroke-width="2"/>]],
  scarf = [[<path d="M2 4 L62 4 L62 20 L2 20 Z" fill="#c8323c" stroke="#6e1218" stroke-width="2"/>
    <path d="M12 4 L12 20 M24 4 L24 20 M36 4 L36 20 M48 4 L48 20" stroke="#e86a70" stroke-width="3"/>]],
  hand = [[<circle cx="9" cy="9" r="7" fill="#f2c9a0" stroke="#5a3b22" stroke-width="2"/>]],
  shadow = [[<ellipse cx="40" cy="10" rx="38" ry="8" fill="#000" fill-opacity="0.35"/>]],
}

local function write(path, text)
  local f = assert(io.open(path, "wb"))
  f:write(text)
  f:close()
end

-- hero.svg -> hero.png
local svg = { string.format('<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d">', PAGE, PAGE) }
for _, r in ipairs(REGIONS) do
  svg[#svg + 1] = string.format('<g transform="translate(%d,%d)">%s</g>', r[2], r[3], SVG[r[1]])
end
svg[#svg + 1] = "</svg>"
write(out .. "/hero.svg", table.concat(svg, "\n"))
assert(os.execute(string.format("rsvg-convert -o %s/hero.png %s/hero.svg", out, out)), "rsvg-convert failed")
os.remove(out .. "/hero.svg")

-- hero.atlas (Spine 4.x: bounds x, y, width, height)
local atlas = { "hero.png", string.format("size: %d, %d", PAGE, PAGE), "filter: Linear, Linear", "pma: false" }
for _, r in ipairs(REGIONS) do
  atlas[#atlas + 1] = r[1]
  atlas[#atlas + 1] = string.format("bounds: %d, %d, %d, %d", r[2], r[3], r[4], r[5])
end
write(out .. "/hero.atlas", table.concat(atlas, "\n") .. "\n")

local function size(name)
  for _, r in ipairs(REGIONS) do if r[1] == name then return r[4], r[5] end end
end
-- A region attachment of image `path` centred `x` along its bone, its top
-- toward the bone's start (turned 90 degrees: bones point down the image).
local function region(path, x, rotation, extra)
  local w, h = size(path)
  local a = { x = x, rotation = rotation or 90, width = w, height = h }
  if path ~= nil then a.path = path end
  for k, v in pairs(extra or {}) do a[k] = v end
  return a
end

local skeleton = {
  skeleton = { hash = "anim-hero", spine = "4.1.24", x = -80, y = -10, width = 160, height = 240, images = "./",
    audio = "./sounds" },
  bones = {
    { name = "root" },
    { name = "hip", parent = "root", y = 104 },
    { name = "torso", parent = "hip", length = 62, rotation = 90 },
    { name = "head", parent = "torso", length = 50, x = 64 },
    { name = "upper_l", parent = "torso", length = 38, x = 54, y = 6, rotation = 195 },
    { name = "lower_l", parent = "upper_l", length = 34, x = 38, rotation = 20 },
    { name = "upper_r", parent = "torso", length = 38, x = 54, y = -6, rotation = 170 },
    { name = "lower_r", parent = "upper_r", length = 34, x = 38, rotation = -15 },
    { name = "thigh_l", parent = "hip", length = 48, x = 8, rotation = -90 },
    { name = "shin_l", parent = "thigh_l", length = 50, x = 48 },
    { name = "thigh_r", parent = "hip", length = 48, x = -8, rotation = -90 },
    { name = "shin_r", parent = "thigh_r", length = 50, x = 48 },
    { name = "aim", parent = "root", x = 90, y = 150 },
  },
  -- back to front
  slots = {
    { name = "shadow", bone = "root", attachment = "shadow" },
    { name = "upper_l", bone = "upper_l", attachment = "limb", color = "d9d9d9ff" },
    { name = "lower_l", bone = "lower_l", attachment = "limb", color = "d9d9d9ff" },
    { name = "hand_l", bone = "lower_l", attachment = "hand", color = "d9d9d9ff" },
    { name = "thigh_l", bone = "thigh_l", attachment = "leg", color = "c8c8c8ff" },
    { name = "shin_l", bone = "shin_l", attachment = "leg", color = "c8c8c8ff" },
    { name = "thigh_r", bone = "thigh_r", attachment = "leg" },
    { name = "shin_r", bone = "shin_r", attachment = "leg" },
    { name = "torso", bone = "torso", attachment = "torso" },
    { name = "scarf", bone = "torso", attachment = "scarf" },
    { name = "head", bone = "head", attachment = "head" },
    { name = "upper_r", bone = "upper_r", attachment = "limb" },
    { name = "lower_r", bone = "lower_r", attachment = "limb" },
    { name = "hand_r", bone = "lower_r", attachment = "hand" },
  },
  ik = {
    { name = "aim-arm", order = 0, bones = { "upper_r", "lower_r" }, target = "aim", bendPositive = false, mix = 1 },
  },
  skins = {
    { name = "default", attachments = {
      shadow = { shadow = region("shadow", 0, 0) },
      upper_l = { limb = region("limb", 19) }, upper_r = { limb = region("limb", 19) },
      lower_l = { limb = region("limb", 17) }, lower_r = { limb = region("limb", 17) },
      hand_l = { hand = region("hand", 36, 0) }, hand_r = { hand = region("hand", 36, 0) },
      thigh_l = { leg = region("leg", 24) }, thigh_r = { leg = region("leg", 24) },
      shin_l = { leg = region("leg", 25) }, shin_r = { leg = region("leg", 25) },
      -- the scarf: a strip of 2 x 5 vertices around the neck, each weighted
      -- between the torso and the head (Spine's weighted layout: count,
      -- then bone index, x, y, weight per bone, in each bone's frame)
      scarf = { scarf = (function()
        local verts, uvs, tris = {}, {}, {}
        for i = 0, 4 do
          for j = 0, 1 do
            local y = -30 + 15 * i
            local tx, hx = 46 + 14 * j, -18 + 14 * j -- along the torso; along the head (64 further)
            local wh = j * 0.6
            verts[#verts + 1] = 2
            for _, v in ipairs({ 2, tx, y, 1 - wh, 3, hx, y, wh }) do verts[#verts + 1] = v end
            uvs[#uvs + 1] = i / 4
            uvs[#uvs + 1] = j
          end
        end
        for i = 0, 3 do
          local a = 2 * i
          for _, v in ipairs({ a, a + 1, a + 3, a + 3, a + 2, a }) do tris[#tris + 1] = v end
        end
        return { type = "mesh", uvs = uvs, triangles = tris, vertices = verts, hull = 10, width = 64, height = 24 }
      end)() },
    } },
    { name = "blue", attachments = {
      torso = { torso = region("torso-blue", 30, -90, { path = "torso-blue" }) },
      head = { head = region("head-blue", 22, -90, { path = "head-blue" }) },
    } },
    { name = "gold", attachments = {
      torso = { torso = region("torso-gold", 30, -90, { path = "torso-gold" }) },
      head = { head = region("head-gold", 22, -90, { path = "head-gold" }) },
    } },
  },
  events = { step = { int = 0, audio = "step.ogg", volume = 0.8 }, blink = {} },
}
-- (the regions of the default skin are found by their names)
for _, atts in pairs(skeleton.skins[1].attachments) do
  for name, a in pairs(atts) do if a.path == name then a.path = nil end end
end

-- A bezier of the 4.x layout (absolute times and values) from one key
-- (t0, v0) to the next (t1, v1): an ease in and out.
local function ease(t0, v0, t1, v1)
  return { t0 + (t1 - t0) / 3, v0, t1 - (t1 - t0) / 3, v1 }
end
local function rotate(keys)
  local out = {}
  for i, k in ipairs(keys) do
    local e = { time = k[1], value = k[2] }
    local n = keys[i + 1]
    if n then e.curve = ease(k[1], k[2], n[1], n[2]) end
    out[i] = e
  end
  return out
end

skeleton.animations = {
  idle = {
    bones = {
      torso = { rotate = rotate({ { 0, 0 }, { 1, 3 }, { 2, 0 } }) },
      head = { rotate = rotate({ { 0, 0 }, { 1, -4 }, { 2, 0 } }) },
      upper_l = { rotate = rotate({ { 0, 0 }, { 1, -5 }, { 2, 0 } }) },
      -- (a 4.x bezier: cx1, cy1, cx2, cy2 of x, then of y, absolute)
      hip = { translate = { { time = 0, y = 0, curve = { 0.33, 0, 0.67, 0, 0.33, 0, 0.67, -3 } }, { time = 1, y = -3,
        curve = { 1.33, 0, 1.67, 0, 1.33, -3, 1.67, 0 } }, { time = 2, y = 0 } } },
    },
    attachments = { default = { scarf = { scarf = { deform = {
      { time = 0 },
      { time = 1, offset = 12, vertices = { 0, 4, 0, 0, 0, 0, 0, 0, 0, 6, 0, 0, 0, 0, 0, 0, 0, 8 } },
      { time = 2 } } } } } },
    events = { { time = 1.5, name = "blink" } },
  },
  walk = {
    bones = {
      thigh_l = { rotate = rotate({ { 0, 25 }, { 0.5, -25 }, { 1, 25 } }) },
      shin_l = { rotate = rotate({ { 0, 0 }, { 0.25, 30 }, { 0.5, 0 }, { 1, 0 } }) },
      thigh_r = { rotate = rotate({ { 0, -25 }, { 0.5, 25 }, { 1, -25 } }) },
      shin_r = { rotate = rotate({ { 0, 0 }, { 0.5, 0 }, { 0.75, 30 }, { 1, 0 } }) },
      upper_l = { rotate = rotate({ { 0, -25 }, { 0.5, 25 }, { 1, -25 } }) },
      upper_r = { rotate = rotate({ { 0, 20 }, { 0.5, -20 }, { 1, 20 } }) },
      torso = { rotate = { { value = -4 } } },
      hip = { translatey = { { time = 0, value = 0, curve = ease(0, 0, 0.25, 5) }, { time = 0.25, value = 5,
        curve = ease(0.25, 5, 0.5, 0) }, { time = 0.5, value = 0, curve = ease(0.5, 0, 0.75, 5) },
        { time = 0.75, value = 5, curve = ease(0.75, 5, 1, 0) }, { time = 1, value = 0 } } },
    },
    events = { { time = 0, name = "step", int = 1 }, { time = 0.5, name = "step", int = 2 } },
  },
  wave = {
    bones = {
      -- (the arm swings forward and up: from 170 degrees on the torso, down, to 330)
      upper_r = { rotate = rotate({ { 0, 0 }, { 0.3, 160 }, { 0.6, 140 }, { 0.9, 160 }, { 1.2, 0 } }) },
      lower_r = { rotate = rotate({ { 0, 0 }, { 0.3, 30 }, { 0.6, -10 }, { 0.9, 30 }, { 1.2, 0 } }) },
    },
    slots = { head = { rgba = { { time = 0, color = "ffffffff" }, { time = 0.3, color = "ffb3b3ff" }, { time = 0.9, color = "ffb3b3ff" },
      { time = 1.2, color = "ffffffff" } } } },
    ik = { ["aim-arm"] = { { mix = 0 }, { time = 1.2, mix = 0 } } },
    events = { { time = 0.6, name = "step", int = 3, string = "hello" } },
  },
}

local text = cjson.encode(skeleton)
write(out .. "/hero.json", text)
print("wrote " .. out .. "/hero.json, hero.atlas, hero.png")
