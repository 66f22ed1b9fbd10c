-- import/spine/timelines.lua: one animation of a Spine JSON export read into
-- the channels of a clip table (the 2D contract's names), by the "JSON
-- export format" page's animation section (3.8 and 4.x):
--   bones.<bone>: rotate (3.8 angle, 4.x value), translate (x y), scale
--     (x y, default 1), shear (x y); 4.x translatex translatey scalex
--     scaley shearx sheary (value); 4.2 inherit (inherit, default "normal":
--     the discrete property <bone>.inherit).  Values are relative to the setup pose: added (rotate, translate, shear) or multiplied (scale), as the
--     module's offset clips are (the rig's rests are the setup pose): the
--     clip holds them as they are, played without a conversion a sample;
--     only on an axis whose setup scale is 0 the scale is 1 (an offset
--     clip's scale adds to a rest of 0, less 1: Spine's 0 x s is 0).  The
--     shear is the absolute `<bone>.shear` property: its setup put in.
--   slots.<slot>: attachment (name, null: none); 3.8 color (color
--     RRGGBBAA), twoColor (light RRGGBBAA, dark RRGGBB); 4.x rgba (color),
--     rgb (color RRGGBB), alpha (value), rgba2 (light, dark), rgb2 (light
--     RRGGBB, dark).  Absolute.
--   deform (3.8, 4.0) skin.slot.attachment / 4.1+ attachments.skin.slot.
--     attachment.deform: offset 0, vertices (offsets from the setup
--     vertices, starting at `offset`; the rest 0); 4.1+ .sequence: sequence.lua.
--   drawOrder (or draworder): offsets [{ slot, offset }]; none: setup.
--   events: name, int, float, string, volume, balance (the event's own
--     values by default).
--   ik.<name>: mix 1, softness 0, bendPositive true, compress false,
--     stretch false.  transform.<name>: 3.8 rotateMix translateMix
--     scaleMix shearMix, 4.x mixRotate mixX mixY mixScaleX mixScaleY
--     mixShearY (1; mixY = mixX, mixScaleY = mixScaleX).
--   Every key: time 0; curve: linear when left out, "stepped", or a
--     bezier: 3.8 curve (cx1, a number, with c2 0, c3 1, c4 1 by default,
--     or the older array [cx1, cy1, cx2, cy2]) normalised to the segment;
--     4.x an array of 4 numbers per value, absolute (time, value) --
--     except deform's, whose cy are 0..1 of the way between the keys.
-- A timeline that cannot be read is left out with a warning naming its
-- path and why; the rest of the animation plays.
require("anim.base.luajit").no_traversal_traces()
local E = require "anim.base.errors"
local curves = require "anim.import.spine.curves"
local skel = require "anim.import.spine.skeleton"
local sequence = require "anim.import.spine.sequence"

local M = {}

local key, index, fail, shown = E.key, E.index, E.fail, E.shown

local MAX_COMPONENTS = 1024 -- a property's components (docs/format-reference.md)

-- A key's path, made only for a message: a key is { timeline path, index }.
local function path(kp)
  if type(kp) == "table" then return index(kp[1], kp[2]) end
  return kp
end

-- The number field `name` of key kv, else `default` (a finite number checked
-- without making a path: a timeline may have a million keys).
local function num(v, kp, name, default)
  if v == nil then return default end
  if type(v) == "number" and v - v == 0 then return v end
  if E.absent(v) then return default end
  return E.number(v, key(path(kp), name), name)
end

-- The keys of one timeline, per component: fields = { { name, default,
-- reader } ... } give each key's values (reader(v, path) -> list of
-- numbers, else a number field); map[i] = { a, b } makes a file value v
-- the channel's a*v + b.  `ncurve`: the 4.x curve's value count (nil:
-- one shared 0..1 curve, deform's).
local function read_keys(list, p, ctx, values_of, ncomp, map, ncurve)
  E.array(list, p, "a timeline")
  if #list == 0 then return nil end
  local comps = {}
  for i = 1, ncomp do comps[i] = {} end
  local last = -math.huge
  for k, kv in ipairs(list) do
    local kp = { p, k }
    if type(kv) ~= "table" or kv[1] ~= nil then E.object(kv, path(kp), "a key") end
    local t = num(kv.time, kp, "time", 0)
    if t < 0 then fail(key(path(kp), "time"), "time must be >= 0, got %s", E.num(t)) end
    if t < last then fail(key(path(kp), "time"), "keys must be in time order: %s comes after %s", E.num(t), E.num(last)) end
    last = t
    local vals = values_of(kv, kp)
    local c = kv.curve
    local function cp() return key(path(kp), "curve") end
    local curve
    if E.absent(c) or c == "linear" then
      curve = "linear"
    elseif c == "stepped" then
      curve = "stepped"
    elseif ctx.ver < 4 then
      -- 3.8: normalised, shared by every value of the key
      local q
      if type(c) == "number" then
        q = { c, num(kv.c2, kp, "c2", 0), num(kv.c3, kp, "c3", 1),
          num(kv.c4, kp, "c4", 1) }
      elseif type(c) == "table" and E.is_array(c) and #c == 4 then
        q = c
      else
        fail(cp(), "unknown curve %s (expected \"linear\", \"stepped\", or cx1 with c2, c3, c4)",
          type(c) == "string" and ("'" .. shown(c) .. "'" .. ctx.hint(c, { "linear", "stepped" })) or E.describe(c))
      end
      for i = 1, 4 do E.number(q[i], index(cp(), i), "a curve value") end
      if q[1] < 0 or q[1] > 1 or q[3] < 0 or q[3] > 1 then
        fail(cp(), "a curve's cx1 and cx2 must be within 0..1, got %s and %s", E.num(q[1]), E.num(q[3]))
      end
      curve = { norm = q }
    else
      local want = 4 * (ncurve or 1)
      if type(c) == "string" then
        fail(cp(), "unknown curve '%s'%s (expected \"stepped\" or an array of %d numbers)", shown(c),
          ctx.hint(c, { "linear", "stepped" }), want)
      end
      if type(c) ~= "table" or c[1] == nil then E.array(c, cp(), "a curve") end
      if #c ~= want then
        fail(cp(), "a bezier curve of this timeline has %d numbers (4 per value), got %d", want, #c)
      end
      for i = 1, #c do
        local x = c[i]
        if type(x) ~= "number" or x - x ~= 0 then E.number(x, index(cp(), i), "a curve value") end
      end
      curve = { abs = c }
    end
    for i = 1, ncomp do comps[i][k] = { t = t, v = vals[i], c = curve } end
  end
  -- curves made absolute (time, value) per component, then mapped
  for i = 1, ncomp do
    local keys = comps[i]
    for k = 1, #keys do
      local kk, nx = keys[k], keys[k + 1]
      local c = kk.c
      if type(c) == "table" then
        if ncurve and i > ncurve then
          kk.c = "stepped" -- (a flag: the caller makes its keys steps)
        elseif not nx then
          kk.c = "linear"
        elseif c.norm then
          kk.c = curves.normalised(c.norm, kk.t, kk.v, nx.t, nx.v)
        else
          local q = ncurve and 4 * (i - 1) or 0
          local a = c.abs
          local y1, y2 = a[q + 2], a[q + 4]
          if not ncurve then y1, y2 = kk.v + y1 * (nx.v - kk.v), kk.v + y2 * (nx.v - kk.v) end
          -- (handles outside the segment, as the module reads them)
          local x1 = math.min(math.max(a[q + 1], kk.t), nx.t)
          local x2 = math.min(math.max(a[q + 3], kk.t), nx.t)
          kk.c = { x1, y1, x2, y2 }
        end
      end
    end
    local m = map and map[i]
    if m then
      for k = 1, #keys do
        local kk = keys[k]
        kk.v = m[1] * kk.v + m[2]
        local c = kk.c
        if type(c) == "table" then -- (made above for this key alone)
          c[2], c[4] = m[1] * c[2] + m[2], m[1] * c[4] + m[2]
        end
      end
    end
  end
  return comps, last
end

-- A values_of reading number fields with defaults.
local function fields(list)
  return function(kv, kp)
    local out = {}
    for i, f in ipairs(list) do
      local name, default = f[1], f[2]
      if type(default) == "string" then default = out[tonumber(default)] end
      out[i] = num(kv[name], kp, name, default)
    end
    return out
  end
end

-- A values_of reading colours: list of { field, n (3 or 4), default hex }.
local function colors(list)
  return function(kv, kp)
    local out = {}
    for _, f in ipairs(list) do
      local v = kv[f[1]]
      local c = skel.color(v, type(v) == "string" and #v == 2 * f[2] and "" or key(path(kp), f[1]), f[2], f[3])
      for i = 1, f[2] do out[#out + 1] = c[i] end
    end
    return out
  end
end

local WHITE4, WHITE3, BLACK3 = { 1, 1, 1, 1 }, { 1, 1, 1 }, { 0, 0, 0 }

-- The animation's channels, gathered: ch[name] = { joint =, channel =,
-- pad = (the joint channel's fixed axes), prop =, discrete =, setups =
-- (each component's setup value), comps = { { keys, setup } | false } }.
local function channel(ctx, ch, name, setups, init)
  local c = ch[name]
  if not c then
    c = init
    c.where = ctx.at
    c.setups = setups
    c.comps = {}
    for i = 1, #setups do c.comps[i] = false end
    ch[name] = c
    ch[#ch + 1] = name
  end
  return c
end

local function put(c, first, comps)
  for i = 1, #comps do
    local at = first + i - 1
    c.comps[at] = { keys = comps[i], setup = c.setups[at] }
  end
end

-- A discrete property of one component (its keys made steps): an
-- attachment, a draw order, an inherit mode.
local function put_discrete(ctx, ch, name, setup, comps)
  for _, k in ipairs(comps[1]) do k.c = "stepped" end
  put(channel(ctx, ch, name, { setup }, { prop = name, discrete = true }), 1, comps)
end

local BONE_TIMELINES = { "rotate", "translate", "scale", "shear", "translatex", "translatey", "scalex", "scaley",
  "shearx", "sheary", "inherit" }

-- fn(owner index, timeline name, its keys, its path) for each timeline of
-- each bone or slot (field: "bones" or "slots"), each in a ctx.try.
local function each_timeline(anim, field, ap, by, names, what, ctx, fn)
  local owners = anim[field]
  if E.absent(owners) then return end
  E.object(owners, key(ap, field), field)
  for _, oname in ipairs(ctx.sorted(owners)) do
    if not by[oname] and ctx.full() then
      ctx.skip() -- (an unknown bone or slot past the listed warnings: counted)
    else
      local op = key(key(ap, field), oname)
      ctx.try(op, function()
        local oi = skel.ref(oname, by, names, op, what, ctx.hint)
        E.object(owners[oname], op, "a " .. what .. "'s timelines")
        for _, tname in ipairs(ctx.sorted(owners[oname])) do
          local tp = key(op, tname)
          ctx.try(tp, function() fn(oi, tname, owners[oname][tname], tp) end)
        end
      end)
    end
  end
end

-- The map of a scale timeline's axis whose setup scale is s0: none (the
-- offset as it is), or on a setup scale of 0 the constant 1 (0 v + 1).
local function zero_scale(s0)
  if s0 == 0 then return { 0, 1 } end
  return false
end

local function bone_timelines(anim, ch, look, desc, ctx, ap)
  each_timeline(anim, "bones", ap, look.bone, look.bone_names, "bone", ctx, function(bi, tname, list, tp)
    local b = desc.bones[bi]
    local bname = b.name
    local v4 = ctx.ver >= 4
    if tname == "rotate" then
      local prev
      local comps = read_keys(list, tp, ctx, function(kv, kp)
        local f = v4 and (E.absent(kv.value) and not E.absent(kv.angle) and "angle" or "value") or "angle"
        local a = num(kv[f], kp, f, 0)
        if not v4 and prev then
          -- before 4.0 a rotate timeline turns the short way between two
          -- keys (Esoteric's answer on its forum, "what algorithm the Spine
          -- use when interpolating angles"; 4.0 and later interpolate the
          -- values as written): the key is taken within half a turn of the
          -- one before, [-180, 180) degrees from it
          local d = a - prev
          a = prev + (d - 360 * math.floor((d + 180) / 360))
        end
        prev = a
        return { a }
      end, 1, nil, 1)
      if comps then
        put(channel(ctx, ch, bname .. "#rotation", { 0 },
          { joint = bname, channel = "rotation", pad = { 0, 0, false } }), 1, comps)
      end
    elseif tname == "translate" or tname == "scale" or tname == "shear" then
      local one = tname == "scale" and 1 or 0
      local map = tname == "scale" and { zero_scale(b.scale_x), zero_scale(b.scale_y) }
        or tname == "shear" and { { 1, b.shear_x }, { 1, b.shear_y } } or nil
      local comps = read_keys(list, tp, ctx, fields { { "x", one }, { "y", one } }, 2, map, 2)
      if comps then
        local c
        if tname == "shear" then
          c = channel(ctx, ch, bname .. ".shear", { b.shear_x, b.shear_y }, { prop = bname .. ".shear" })
        else
          local jn = tname == "translate" and "position" or "scale"
          c = channel(ctx, ch, bname .. "#" .. jn, { one, one },
            { joint = bname, channel = jn, pad = { false, false, one } })
        end
        put(c, 1, comps)
      end
    elseif v4 and tname ~= "inherit" and (tname:match("^translate[xy]$") or tname:match("^scale[xy]$")
        or tname:match("^shear[xy]$")) then
      local base, axis = tname:sub(1, -2), tname:sub(-1)
      local i = axis == "x" and 1 or 2
      local sv = ({ translate = { 0, 0 }, scale = { 1, 1 }, shear = { b.shear_x, b.shear_y } })[base]
      local m = base == "scale" and zero_scale(({ b.scale_x, b.scale_y })[i]) or base == "shear" and { 1, sv[i] } or nil
      local comps = read_keys(list, tp, ctx, fields { { "value", base == "scale" and 1 or 0 } }, 1, m and { m }, 1)
      if comps then
        local c
        if base == "shear" then
          c = channel(ctx, ch, bname .. ".shear", sv, { prop = bname .. ".shear" })
        else
          local jn = base == "translate" and "position" or "scale"
          c = channel(ctx, ch, bname .. "#" .. jn, sv,
            { joint = bname, channel = jn, pad = { false, false, base == "scale" and 1 or 0 } })
        end
        put(c, i, comps)
      end
    elseif tname == "inherit" and v4 then
      -- (4.2) the bone's inherit mode from each key on: the discrete
      -- property <bone>.inherit, the mode's place in skel.INHERIT from 0
      local comps = read_keys(list, tp, ctx, function(kv, kp)
        local m = kv.inherit
        if E.absent(m) then return { 0 } end
        return { E.enum(m, skel.INHERIT, key(path(kp), "inherit"), "inherit mode") - 1 }
      end, 1, nil, 0)
      if comps then
        put_discrete(ctx, ch, bname .. ".inherit", E.enum(b.inherit, skel.INHERIT, tp, "inherit mode") - 1, comps)
      end
    else
      fail(tp, "unknown bone timeline '%s'%s", shown(tname), ctx.hint(tname, BONE_TIMELINES))
    end
  end)
end

local SLOT_TIMELINES = { "attachment", "color", "twoColor", "rgba", "rgb", "alpha", "rgba2", "rgb2", "sequence" }

local function attachment_index(s, name)
  if name == nil then return 0 end
  local names = s.attachment_names
  for i, n in ipairs(names) do if n == name then return i end end
  names[#names + 1] = name
  return #names
end

local function slot_timelines(anim, ch, look, desc, ctx, ap)
  each_timeline(anim, "slots", ap, look.slot, look.slot_names, "slot", ctx, function(si, tname, list, tp)
    local s = desc.slots[si]
    local sname = s.name
    local dark = s.dark or BLACK3
    local v4 = ctx.ver >= 4
    local color = "slot." .. sname .. ".color"
    local darkn = "slot." .. sname .. ".dark"
    local function col(first, comps)
      put(channel(ctx, ch, color, s.color, { prop = color }), first, comps)
    end
    local function drk(comps)
      put(channel(ctx, ch, darkn, dark, { prop = darkn }), 1, comps)
    end
    if tname == "attachment" then
      E.array(list, tp, "a timeline")
      local comps = read_keys(list, tp, ctx, function(kv, kp)
        local n = kv.name
        if E.absent(n) then n = nil elseif type(n) ~= "string" then E.string(n, key(path(kp), "name"), "name") end
        return { attachment_index(s, n) }
      end, 1, nil, 0)
      if comps then put_discrete(ctx, ch, "slot." .. sname .. ".attachment", attachment_index(s, s.attachment), comps) end
    elseif (tname == "color" and not v4) or (tname == "rgba" and v4) then
      local comps = read_keys(list, tp, ctx, colors { { "color", 4, WHITE4 } }, 4, nil, 4)
      if comps then col(1, comps) end
    elseif (tname == "twoColor" and not v4) or (tname == "rgba2" and v4) then
      local comps = read_keys(list, tp, ctx, colors { { "light", 4, WHITE4 }, { "dark", 3, BLACK3 } }, 7, nil, 7)
      if comps then
        col(1, { comps[1], comps[2], comps[3], comps[4] })
        drk { comps[5], comps[6], comps[7] }
      end
    elseif tname == "rgb" and v4 then
      local comps = read_keys(list, tp, ctx, colors { { "color", 3, WHITE3 } }, 3, nil, 3)
      if comps then col(1, comps) end
    elseif tname == "alpha" and v4 then
      local comps = read_keys(list, tp, ctx, fields { { "value", 1 } }, 1, nil, 1)
      if comps then col(4, comps) end
    elseif tname == "rgb2" and v4 then
      local comps = read_keys(list, tp, ctx, colors { { "light", 3, WHITE3 }, { "dark", 3, BLACK3 } }, 6, nil, 6)
      if comps then
        col(1, { comps[1], comps[2], comps[3] })
        drk { comps[4], comps[5], comps[6] }
      end
    elseif tname == "sequence" then
      ctx.warn(tp, "the slot's sequence timeline is not played (kept in the file)")
    else
      fail(tp, "unknown slot timeline '%s' for Spine %s%s", shown(tname), ctx.version,
        ctx.hint(tname, SLOT_TIMELINES))
    end
  end)
end

-- deform.<skin>.<slot>.<attachment>: the full offsets of each key.
local function deform_timeline(list, tp, name, att, ch, ctx)
  local n = att.deform_count
  if n > MAX_COMPONENTS then
    fail(tp, "a deform of %d numbers is more than a property's %d components: not imported", n, MAX_COMPONENTS)
  end
  -- (charged before the keys are made: a key of a few bytes stands for
  -- the whole mesh's offsets)
  if type(list) == "table" then ctx.vertices(#list * math.ceil(n / 2), tp, "attachments and deform keys") end
  local comps = read_keys(list, tp, ctx, function(kv, kp)
    local off = num(kv.offset, kp, "offset", 0)
    local out = {}
    for i = 1, n do out[i] = 0 end
    local vs = kv.vertices
    if not E.absent(vs) then
      E.array(vs, key(path(kp), "vertices"), "vertices")
      if off % 1 ~= 0 or off < 0 or off + #vs > n then
        fail(key(path(kp), "vertices"), "offset %s and %d vertices do not fit the attachment's %d deform numbers",
          E.num(off), #vs, n)
      end
      for i = 1, #vs do
        local x = vs[i]
        if type(x) ~= "number" or x - x ~= 0 then x = E.number(x, index(key(path(kp), "vertices"), i), "a vertex offset") end
        out[off + i] = x
      end
    end
    return out
  end, n, nil, nil)
  if comps then
    local setups = {}
    for i = 1, n do setups[i] = 0 end
    put(channel(ctx, ch, name, setups, { prop = name }), 1, comps)
  end
end

local function deform_timelines(tree, tp0, ch, look, desc, ctx, nested)
  E.object(tree, tp0, "deform timelines")
  for _, skname in ipairs(ctx.sorted(tree)) do
    local kp = key(tp0, skname)
    ctx.try(kp, function()
      local ski = skel.ref(skname, look.skin, look.skin_names, kp, "skin", ctx.hint)
      local skin = desc.skins[ski]
      E.object(tree[skname], kp, "a skin's deforms")
      for _, sname in ipairs(ctx.sorted(tree[skname])) do
        local sp = key(path(kp), sname)
        ctx.try(sp, function()
          skel.ref(sname, look.slot, look.slot_names, sp, "slot", ctx.hint)
          local atts = skin.attachments[sname] or {}
          E.object(tree[skname][sname], sp, "a slot's deforms")
          for _, an in ipairs(ctx.sorted(tree[skname][sname])) do
            local p = key(sp, an)
            ctx.try(p, function()
              local att = atts[an]
              if not att then
                fail(p, "no attachment '%s' for slot '%s' in skin '%s'%s", shown(an), shown(sname), shown(skname),
                  ctx.hint(an, function() return ctx.sorted(atts) end))
              end
              local list = tree[skname][sname][an]
              if not att.deform_count and (not nested or type(list) ~= "table" or list.deform ~= nil) then
                fail(p, "a %s attachment has no vertices to deform", att.type)
              end
              if nested then
                E.object(list, p, "an attachment's timelines")
                for tn in pairs(list) do
                  if tn == "deform" then
                    ctx.try(key(p, "deform"), function()
                      deform_timeline(list.deform, key(p, "deform"), "deform." .. skname .. "." .. sname .. "." .. an,
                        att, ch, ctx)
                    end)
                  elseif tn == "sequence" then
                    sequence.put(ctx, list.sequence, key(p, tn), skname .. "." .. sname .. "." .. an, att, ch)
                  else
                    ctx.warn(key(p, tn), string.format("unknown attachment timeline '%s'%s: left out", shown(tn),
                      ctx.hint(tn, { "deform", "sequence" })))
                  end
                end
              else
                deform_timeline(list, p, "deform." .. skname .. "." .. sname .. "." .. an, att, ch, ctx)
              end
            end)
          end
        end)
      end
    end)
  end
end

-- The draw order of a key's offsets (the format: each listed slot moves
-- `offset` places from its setup index; the others keep their setup order
-- in the places left), as slot names.
local function draw_order(offsets, p, look, ctx)
  local n = #look.slot_names
  local order, unchanged = {}, {}
  local orig = 1
  local prev = 0
  for i, o in ipairs(offsets) do
    local op = index(p, i)
    E.object(o, op, "an offset")
    local si = skel.ref(o.slot, look.slot, look.slot_names, key(op, "slot"), "slot", ctx.hint)
    if si <= prev then fail(key(op, "slot"), "the offsets must list slots in setup order ('%s' comes too late)", shown(o.slot)) end
    prev = si
    local off = E.number(o.offset, key(op, "offset"), "offset")
    while orig ~= si do unchanged[#unchanged + 1] = orig; orig = orig + 1 end
    local at = orig + off
    if off % 1 ~= 0 or at < 1 or at > n or order[at] then
      fail(key(op, "offset"), "offset %s moves slot '%s' to place %s, which is %s", E.num(off), shown(o.slot),
        E.num(at), (at < 1 or at > n) and "outside the draw order" or "taken")
    end
    order[at] = orig
    orig = orig + 1
  end
  while orig <= n do unchanged[#unchanged + 1] = orig; orig = orig + 1 end
  for i = n, 1, -1 do
    if not order[i] then order[i] = table.remove(unchanged) end
  end
  local names = {}
  for i = 1, n do names[i] = look.slot_names[order[i]] end
  return names
end

local function draw_order_timeline(list, tp, ch, look, desc, ctx)
  local comps = read_keys(list, tp, ctx, function(kv, kp)
    local offs = kv.offsets
    if E.absent(offs) then return { 0 } end
    E.array(offs, key(path(kp), "offsets"), "offsets")
    ctx.places(#look.slot_names, function() return path(kp) end)
    local names = draw_order(offs, key(path(kp), "offsets"), look, ctx)
    local sig = table.concat(names, "\0")
    local k = ctx.orders[sig]
    if not k then
      desc.draw_orders[#desc.draw_orders + 1] = names
      k = #desc.draw_orders
      ctx.orders[sig] = k
    end
    return { k }
  end, 1, nil, 0)
  if comps then put_discrete(ctx, ch, "draworder", 0, comps) end
end

local function event_timeline(list, tp, desc, items, ctx)
  E.array(list, tp, "events")
  local last = 0
  for i, kv in ipairs(list) do
    local kp = index(tp, i)
    ctx.try(kp, function()
      E.object(kv, kp, "an event key")
      local t = num(kv.time, kp, "time", 0)
      local name = E.string(kv.name, key(path(kp), "name"), "name")
      local ev = desc.events[name]
      if not ev then
        fail(key(path(kp), "name"), "unknown event '%s'%s", shown(name),
          ctx.hint(name, function() return ctx.sorted(desc.events) end))
      end
      local payload = {
        int = num(kv.int, kp, "int", ev.int),
        float = num(kv.float, kp, "float", ev.float),
        string = E.absent(kv.string) and ev.string or E.string(kv.string, key(path(kp), "string"), "string"),
        volume = num(kv.volume, kp, "volume", ev.volume),
        balance = num(kv.balance, kp, "balance", ev.balance),
        audio = ev.audio,
      }
      items.events[#items.events + 1] = { time = t, name = name, payload = payload }
      if ev.audio then
        items.sounds[#items.sounds + 1] = { time = t, sound = ev.audio, volume = payload.volume }
      end
      if t > last then last = t end
    end)
  end
  return last
end

local function constraint_timelines(anim, ch, look, desc, ctx, ap)
  local ik = anim.ik
  if not E.absent(ik) then
    E.object(ik, key(ap, "ik"), "ik timelines")
    for _, name in ipairs(ctx.sorted(ik)) do
      local tp = key(key(ap, "ik"), name)
      ctx.try(tp, function()
        local c = desc.ik[skel.ref(name, look.ik, look.ik_names, tp, "IK constraint", ctx.hint)]
        local comps = read_keys(ik[name], tp, ctx, function(kv, kp)
          local function b(f, d)
            if E.absent(kv[f]) then return d end
            if type(kv[f]) == "boolean" then return kv[f] end
            return E.boolean(kv[f], key(path(kp), f), f)
          end
          return { num(kv.mix, kp, "mix", 1), num(kv.softness, kp, "softness", 0),
            b("bendPositive", true) and 1 or -1, b("compress", false) and 1 or 0, b("stretch", false) and 1 or 0 }
        end, 5, nil, 2)
        if comps then
          put(channel(ctx, ch, "ik." .. name, { c.mix, c.softness }, { prop = "ik." .. name }), 1, { comps[1], comps[2] })
          for i = 3, 5 do
            for _, k in ipairs(comps[i]) do k.c = "stepped" end
          end
          put(channel(ctx, ch, "ik." .. name .. ".flags", { c.bend, c.compress and 1 or 0, c.stretch and 1 or 0 },
            { prop = "ik." .. name .. ".flags", discrete = true }), 1, { comps[3], comps[4], comps[5] })
        end
      end)
    end
  end
  local tc = anim.transform
  if not E.absent(tc) then
    E.object(tc, key(ap, "transform"), "transform timelines")
    for _, name in ipairs(ctx.sorted(tc)) do
      local tp = key(key(ap, "transform"), name)
      ctx.try(tp, function()
        local ti = skel.ref(name, look.transform, look.transform_names, tp, "transform constraint", ctx.hint)
        local c = desc.transforms[ti]
        local f
        if ctx.ver < 4 then
          local g = fields { { "rotateMix", 1 }, { "translateMix", 1 }, { "scaleMix", 1 }, { "shearMix", 1 } }
          f = function(kv, kp)
            local v = g(kv, kp)
            return { v[1], v[2], v[2], v[3], v[3], v[4] }
          end
        else
          f = fields { { "mixRotate", 1 }, { "mixX", 1 }, { "mixY", "2" }, { "mixScaleX", 1 }, { "mixScaleY", "4" },
            { "mixShearY", 1 } }
        end
        local comps = read_keys(tc[name], tp, ctx, f, 6, nil, 6)
        if comps then
          put(channel(ctx, ch, "transform." .. name, { c.mix_rotate, c.mix_x, c.mix_y, c.mix_scale_x, c.mix_scale_y,
            c.mix_shear_y }, { prop = "transform." .. name }), 1, comps)
        end
      end)
    end
  end
end

M.ANIMATION_FIELDS = { "bones", "slots", "ik", "transform", "path", "physics", "deform", "attachments", "drawOrder",
  "draworder", "events" }

-- The clip table's channels and items of one animation: joints,
-- properties, events, sounds, its length, and the keys it makes.
function M.read(anim, ap, look, desc, ctx)
  E.object(anim, ap, "an animation")
  local ch, items = {}, { events = {}, sounds = {} }
  local kept = {}
  for _, f in ipairs(ctx.sorted(anim)) do
    local known = false
    for _, k in ipairs(M.ANIMATION_FIELDS) do if k == f then known = true end end
    if not known then
      ctx.warn(key(ap, f), string.format("unknown animation field '%s'%s: left out", shown(f), ctx.hint(f, M.ANIMATION_FIELDS)))
    end
  end
  bone_timelines(anim, ch, look, desc, ctx, ap)
  slot_timelines(anim, ch, look, desc, ctx, ap)
  constraint_timelines(anim, ch, look, desc, ctx, ap)
  if not E.absent(anim.deform) then
    ctx.try(key(ap, "deform"), function() deform_timelines(anim.deform, key(ap, "deform"), ch, look, desc, ctx, false) end)
  end
  if not E.absent(anim.attachments) then
    ctx.try(key(ap, "attachments"), function()
      deform_timelines(anim.attachments, key(ap, "attachments"), ch, look, desc, ctx, true)
    end)
  end
  local dof = E.absent(anim.drawOrder) and "draworder" or "drawOrder"
  if not E.absent(anim[dof]) then
    ctx.try(key(ap, dof), function() draw_order_timeline(anim[dof], key(ap, dof), ch, look, desc, ctx) end)
  end
  local last = 0
  if not E.absent(anim.events) then
    ctx.try(key(ap, "events"), function()
      last = event_timeline(anim.events, key(ap, "events"), desc, items, ctx)
    end)
  end
  for _, f in ipairs { "path", "physics" } do if not E.absent(anim[f]) then kept[f] = anim[f] end end
  return ch, items, last, kept
end

-- A gathered channel's keys for the clip table, and its key count (keys x
-- components).  Components no timeline set hold their setup value.
function M.keys(c, warn, where, budget)
  local comps = {}
  for i, x in ipairs(c.comps) do
    comps[i] = x or { keys = { { t = 0, v = c.setups[i], c = "linear" } }, setup = c.setups[i] }
  end
  local out = {}
  local pad = c.pad
  -- a joint channel's values and handles padded to [x, y, z]
  local function vec(list, fill)
    if not pad then return list end
    local v = {}
    local j = 1
    for i = 1, 3 do
      if pad[i] == false then v[i] = list[j]; j = j + 1 else v[i] = fill or pad[i] end
    end
    return v
  end
  local discrete = c.discrete
  local count, worst, worst_t = curves.merge(comps, budget, function(t, v, interp, oh, ih)
    local extra
    if oh or ih then
      extra = {}
      -- (a time per component: an axis no timeline moves takes the first's)
      if oh then extra.out = { type(oh[1]) == "table" and vec(oh[1], oh[1][1]) or oh[1], vec(oh[2], 0) } end
      if ih then extra["in"] = { type(ih[1]) == "table" and vec(ih[1], ih[1][1]) or ih[1], vec(ih[2], 0) } end
    end
    out[#out + 1] = { t, vec(v), discrete and "step" or interp, extra }
  end)
  if worst then
    warn(c.where or where, string.format("a bezier handle outside its segment at the key at %s s: moved into it,"
      .. " %s deviates by up to %s%s", E.num(worst_t), c.joint and (c.joint .. "." .. c.channel) or c.prop, E.numtext("%.3g", worst),
      budget.left <= 0 and string.format(" (measured on the file's first %d such segments)", budget.size) or ""))
  end
  return out, count * #comps
end

return M
