-- import/blockbench/easing.lua: the easings of GeckoLib and Animated Java:
-- what each name and argument plays, as the mod and the plugins play it,
-- and the rules of which tool's easings a file follows.
local E = require "anim.base.errors"

local M = {}

-- GeckoLib (the mod that plays GeckoLib files) and the Animated Java and
-- GeckoLib plugins of Blockbench ease the segment that ends at a key with
-- that key's `easing`, easingArgs[1] tuning back (overshoot factor times
-- 1.70158), elastic (bounciness), bounce and the number of steps of
-- `step`.  The curves on s in [0, 1] (GeckoLib's EasingType.java in 4.x
-- and 5.x, EasingManager.java in 3.x; Animated Java's src/util/easing.ts):
local BASE = {
  sine = function(s) return 1 - math.cos(s * math.pi / 2) end,
  quad = function(s) return s * s end,
  cubic = function(s) return s * s * s end,
  quart = function(s) return s ^ 4 end,
  quint = function(s) return s ^ 5 end,
  expo = function(s) return 2 ^ (10 * (s - 1)) end,
  circ = function(s) return 1 - math.sqrt(math.max(0, 1 - s * s)) end,
}
local function back(n)
  local c = n * 1.70158
  return function(s) return s * s * ((c + 1) * s - c) end
end
local function elastic(n)
  return function(s) return 1 - math.cos(s * math.pi / 2) ^ 3 * math.cos(s * n * math.pi) end
end
local function bounce(k)
  return function(x)
    return math.min(121 / 16 * x * x, 121 / 4 * k * (x - 6 / 11) ^ 2 + 1 - k,
      121 * k * k * (x - 9 / 11) ^ 2 + 1 - k * k, 484 * k ^ 3 * (x - 10.5 / 11) ^ 2 + 1 - k ^ 3)
  end
end
-- floor(s·n)/n up to the last step: intervals i/d for i below `count`
-- (GeckoLib: d = count = trunc(n); Animated Java: d = n, count = floor(n))
local function step(count, d)
  return function(s)
    if s < 0 then return 0 end
    local i = math.min(math.floor(s * d), count - 1)
    return i / d
  end
end
M.step_curve = step
local DIRS = {
  ["in"] = function(f) return f end,
  out = function(f) return function(s) return 1 - f(1 - s) end end,
  inout = function(f)
    return function(s)
      if s < 0.5 then return f(s * 2) / 2 end
      return 1 - f((1 - s) * 2) / 2
    end
  end,
}
local CLIP_DIR = { ["in"] = "in", out = "out", inout = "inOut" }

-- Each tool's rules: its name, whether names are read in any case, the
-- default arguments and the power of easeInQuint.
M.EASING_RULES = {
  geckolib = { name = "GeckoLib", any_case = true, back = 1, elastic = 1, bounce = 0.5, steps = 2, quint_in = 4 },
  geckolib3 = { name = "GeckoLib 3", any_case = true, back = 1, elastic = 1, bounce = 0.5, steps = 2, quint_in = 5 },
  animated_java = { name = "Animated Java", any_case = false, back = 1, elastic = 1, bounce = 0.25, steps = 5,
    quint_in = 5, float_steps = true },
}

local AJ_NAMES = {} -- Animated Java's names, as it spells them (it reads no other)
for _, b in ipairs { "Quad", "Cubic", "Quart", "Quint", "Sine", "Expo", "Circ", "Back", "Elastic", "Bounce" } do
  for _, d in ipairs { "In", "Out", "InOut" } do AJ_NAMES["ease" .. d .. b] = true end
end
AJ_NAMES.linear, AJ_NAMES.step = true, true

-- The easing called `name` with argument `arg` (a number or nil) under
-- `rules` (M.EASING_RULES.*; opts.short_steps "two" or "refuse"):
-- { name, fn, exact = { interpolation, ease } when a clip easing is the
-- same curve, catmull = true for GeckoLib's "catmullrom", note = what was
-- read otherwise, refuse = why it cannot be read }.
function M.easing(name, arg, rules, short_steps)
  local lname = name:lower()
  local e = { name = name }
  if not rules.any_case and not AJ_NAMES[name] then
    e.fn, e.exact = function(s) return s end, { "linear" }
    e.note = string.format("unknown easing '%s' read as linear (%s knows its names as it spells them)", E.shown(name),
      rules.name)
    return e
  end
  if lname == "linear" or lname == "none" then
    e.fn, e.exact = function(s) return s end, { "linear" }
    return e
  end
  if lname == "catmullrom" and rules.any_case then
    e.catmull = true
    return e
  end
  if lname == "step" then
    local n = arg or rules.steps
    local count = rules.float_steps and math.floor(n) or (n >= 0 and math.floor(n) or math.ceil(n))
    if n < 2 then
      if short_steps == "refuse" then
        e.refuse = string.format("easing step with %s steps: %s refuses fewer than 2", E.num(n), rules.name)
        return e
      end
      e.note = string.format("easing step with %s steps read as 2 steps (%s refuses fewer than 2;"
        .. " options.short_steps = \"refuse\" drops the animation instead)", E.num(n), rules.name)
      n, count = 2, 2
    end
    e.fn = step(count, rules.float_steps and n or count)
    return e
  end
  local dir, base = lname:match("^ease(inout)(%a+)$")
  if not dir then dir, base = lname:match("^ease(in)(%a+)$") end
  if not dir then dir, base = lname:match("^ease(out)(%a+)$") end
  local f
  if base == "quint" and dir == "in" and rules.quint_in == 4 then
    -- GeckoLib 4.x and 5.x register easeInQuint as pow(4) (easeOutQuint and
    -- easeInOutQuint as pow(5)); GeckoLib 3 and Animated Java use s^5
    f = BASE.quart
    e.exact = { "quart", "in" }
  elseif base and BASE[base] then
    f = BASE[base]
    -- The same formulas as the clip easings (easings.net).  Expo differs
    -- at the one instant s = 0, where 2^(10(s-1)) is 2^-10 and
    -- easings.net's is 0; everywhere else they agree.
    e.exact = { base, CLIP_DIR[dir] }
  elseif base == "back" then
    local n = arg or rules.back
    f = back(n)
    if n == 0 then
      e.exact = { "cubic", CLIP_DIR[dir] } -- no overshoot: s^3
    elseif n == 1 and dir ~= "inout" then
      -- easings.net's back in and out; its inOut uses 1.70158·1.525, these do not
      e.exact = { "back", CLIP_DIR[dir] }
    end
  elseif base == "elastic" then
    f = elastic(arg or rules.elastic)
  elseif base == "bounce" then
    f = bounce(arg or rules.bounce)
  end
  if not f then
    -- GeckoLib reads a name it does not know as linear
    e.fn, e.exact = function(s) return s end, { "linear" }
    e.note = string.format("unknown easing '%s' read as linear (as %s reads it)", E.shown(name), rules.name)
    return e
  end
  e.fn = DIRS[dir](f)
  return e
end

return M
