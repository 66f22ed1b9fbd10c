-- anim.encode and anim.save (docs/formats.md, "Encoding"): lossless
-- round trips of every clip the suite can load, the version 1 conversion,
-- the number and string writer, the layout, options, errors, and atomic
-- saving.
require("anim.base.luajit").no_traversal_traces()
local anim = require "anim"
-- anim.clip keeping the fields the format does not know (strict is its
-- default): encoding loses nothing of them
local function lenient(t, name) return anim.clip(t, name, { strict = false }) end
local core = require "anim.core"
local cjson = require "cjson"
local H = require "spec.helper"
local compat = require "anim.base.compat"
local binary = require "spec.bytes"

-- Comparisons -----------------------------------------------------------------------------

-- Equal numbers, and the same sign of zero: the writer promises the bits.
local function same_number(a, b)
  return a == b and (a ~= 0 or 1 / a == 1 / b)
end

-- The first difference between two decoded JSON values, or nil.  tol > 0
-- compares numbers within tol (for hand-worked expectations).
local function deep_diff(a, b, path, tol)
  path = path or "$"
  if type(a) == "number" and type(b) == "number" then
    if (tol and math.abs(a - b) <= tol) or same_number(a, b) then return nil end
    return string.format("%s: %.17g vs %.17g", path, a, b)
  end
  if type(a) ~= type(b) then return string.format("%s: %s vs %s", path, type(a), type(b)) end
  if type(a) ~= "table" then
    if a == b then return nil end
    return string.format("%s: %s vs %s", path, tostring(a), tostring(b))
  end
  for k, v in pairs(a) do
    local d = deep_diff(v, b[k], path .. "." .. tostring(k), tol)
    if d then return d end
  end
  for k in pairs(b) do
    if a[k] == nil then return path .. "." .. tostring(k) .. ": only on the right" end
  end
  return nil
end

local function assert_same(expected, got, tol)
  local d = deep_diff(expected, got, nil, tol)
  assert(d == nil, d)
end

-- A shallow copy without some keys.
local function without(t, ...)
  local drop, out = {}, {}
  for _, k in ipairs { ... } do drop[k] = true end
  for k, v in pairs(t) do
    if not drop[k] then out[k] = v end
  end
  return out
end

-- Times to sample a clip at: a grid from before the start to after the
-- end, every key time of its source, and just beside each (each time
-- once: a baked clip's joints share their key times).
local function sample_times(c, src)
  local ts, len, seen = {}, c.length, {}
  for i = 0, 160 do ts[#ts + 1] = -1 + i * (len + 2) / 160 end
  local function add(t)
    if seen[t] then return end
    seen[t] = true
    ts[#ts + 1] = t
    ts[#ts + 1] = t - 1e-7
    ts[#ts + 1] = t + 1e-7
  end
  if type(src.joints) == "table" then
    for _, j in pairs(src.joints) do
      for _, ch in ipairs { "position", "rotation", "scale" } do
        if type(j[ch]) == "table" then
          for _, k in ipairs(j[ch]) do add(k[1]) end
        end
      end
    end
  end
  if type(src.keyframes) == "table" then
    for _, kf in ipairs(src.keyframes) do add(kf.time) end
  end
  return ts
end

-- Asserts that two clips sample the same at every time: bit for bit when
-- tol is 0, else within tol (rotations up to sign).
local function assert_samples_equal(a, b, times, tol)
  assert.are.same(a:joints(), b:joints())
  for _, t in ipairs(times) do
    local pa, pb = a:sample(t), b:sample(t)
    for name, ja in pairs(pa) do
      local jb = pb[name]
      assert(jb, name .. " not animated after the round trip")
      for _, ch in ipairs { "position", "rotation", "scale" } do
        assert((ja[ch] == nil) == (jb[ch] == nil), string.format("%s.%s present on one side only", name, ch))
        if ja[ch] then
          if tol == 0 then
            for i = 1, #ja[ch] do
              assert(same_number(ja[ch][i], jb[ch][i]), string.format("%s.%s[%d] at t=%.17g: %.17g vs %.17g",
                name, ch, i, t, ja[ch][i], jb[ch][i]))
            end
          else
            local d = ch == "rotation" and H.quatdiff(ja[ch], jb[ch]) or H.maxdiff(ja[ch], jb[ch])
            assert(d <= tol, string.format("%s.%s at t=%.17g off by %.3g", name, ch, t, d))
          end
        end
      end
    end
    for name in pairs(pb) do assert(pa[name], name .. " animated only after the round trip") end
  end
end

-- The fields every clip reports, which a round trip keeps.
local function assert_fields_equal(a, b)
  for _, f in ipairs { "length", "loop", "priority", "speed", "blend", "space", "autoplay", "euler" } do
    assert.are.equal(a[f], b[f], f)
  end
  assert.are.same(a.mask, b.mask)
  assert.are.same(a:markers(), b:markers())
  assert.are.same(a:events(), b:events())
  assert.are.same(a:sounds(), b:sounds())
  assert.are.same(a:plays(), b:plays())
end

-- Calls fn(...) with lib[name] replaced by f, puts it back even when fn
-- raises, and returns what fn returned.  save looks io.open, os.rename and
-- os.remove up when it runs, so this is how the specs make them fail.
local function replacing(lib, name, f, fn, ...)
  local real = lib[name]
  lib[name] = f -- luacheck: ignore 122 (the specs replace io and os functions on purpose)
  local res = compat.pack(pcall(fn, ...))
  lib[name] = real -- luacheck: ignore 122
  if not res[1] then error(res[2], 0) end
  return compat.unpack(res, 2, res.n)
end

-- Clip sources ----------------------------------------------------------------------------
--
-- Every source lists clips as { name, clip, original }: `original` is the
-- table the clip was read from, as the file had it (for an importer: the
-- version 3 table it built).  Add importers here, e.g.
--   { name = "XML", list = function() ... anim.import_xml(path) ... end },
-- and every check below runs on their clips too.  A clip whose encode
-- returns an approx ({ bound, note }) is compared within approx.bound: the
-- bound is in degrees for angles, and a quaternion component moves by less
-- than the angle in degrees, so that is never stricter than the bound.

local SOURCES = {
  {
    name = "conformance vectors",
    list = function()
      local out = {}
      local dir = H.shared .. "/conformance"
      for _, file in ipairs(H.ls(dir, "%.json$")) do
        local data = cjson.decode(H.read(dir .. "/" .. file))
        for _, case in ipairs(data.cases) do
          local c, err = lenient(case.clip, case.id)
          assert(c, err)
          out[#out + 1] = { name = file .. " " .. case.id, clip = c, original = case.clip }
        end
      end
      return out
    end,
  },
  {
    name = "examples/clips",
    list = function()
      local out = {}
      local dir = H.root .. "/examples/clips"
      for _, file in ipairs(H.ls(dir, "%.anim$")) do
        local path = dir .. "/" .. file
        local c, err = anim.load(path)
        assert(c, err)
        out[#out + 1] = { name = file, clip = c, original = cjson.decode(H.read(path)) }
      end
      return out
    end,
  },
  {
    -- imported clips: the original is the version 3 table the importer made
    -- (what encode writes); samples agree within the importer's bound
    name = "../shared/data/xml (imported)",
    list = function()
      local out = {}
      local dir = H.shared .. "/data/xml/Minecraft-Skin-Viewer"
      for _, file in ipairs(H.ls(dir, "%.xml$")) do
        local c = assert(anim.import_xml(dir .. "/" .. file))
        out[#out + 1] = { name = file, clip = c, original = require("anim.core").clip_info(c).source }
      end
      return out
    end,
  },
  {
    name = "../shared/data/blockbench (imported; knight.bbmodel with its placeholder degrees = 180)",
    list = function()
      local out = {}
      local p = assert(io.popen('find "' .. H.shared .. '/data/blockbench" -type f \\( -name "*.bbmodel" -o -name "*.json" \\) | sort'))
      for path in p:lines() do
        local clips, err = anim.import_blockbench(path)
        assert(clips, err)
        do
          local names = {}
          for name in pairs(clips) do names[#names + 1] = name end
          table.sort(names)
          for _, name in ipairs(names) do
            local c = clips[name]
            out[#out + 1] = { name = path:match("[^/]+$") .. " " .. name, clip = c,
              original = require("anim.core").clip_info(c).source }
          end
        end
      end
      p:close()
      return out
    end,
  },
}

-- Fields of a version 1 file that the version 3 clip says its own way.
local V1_CONVERTED = { "version", "looped", "keyframes", "length", "loop" }

local function check_round_trip(entry)
  local c, original = entry.clip, entry.original
  local text, approx = anim.encode(c)
  assert(text, approx)
  local c2, err = anim.decode(text, entry.name)
  assert(c2, err)
  local v1 = c.layout == "poses"
  local converted = v1 and c2.layout == "curves"
  if not v1 then assert.are.equal(3, c2.version) end -- curves always become version 3
  local tol = approx and approx.bound or (converted and 1e-6) or 0
  assert_samples_equal(c, c2, sample_times(c, original), tol)
  assert_fields_equal(c, c2)
  -- every field the file had, with numbers equal to the bit
  local decoded = cjson.decode(text)
  if converted then
    assert.are.equal(3, decoded.version)
    assert_same(without(original, compat.unpack(V1_CONVERTED)), without(decoded, "version", "length", "loop", "joints"))
  else
    assert.are.equal(v1 and 1 or 3, decoded.version)
    assert_same(without(original, "version"), without(decoded, "version"))
  end
  -- stable: the same bytes again, and again from the decoded clip
  assert.are.equal(text, (anim.encode(c)))
  assert.are.equal(text, (anim.encode(c2)))
end

describe("encode round trip", function()
  for _, source in ipairs(SOURCES) do
    describe(source.name, function()
      local ok, entries = pcall(source.list)
      it("has clips", function()
        assert(ok, entries)
        assert.is_true(#entries > 0, "no clips found for " .. source.name)
      end)
      if ok then
        for _, entry in ipairs(entries) do
          it(entry.name, function() check_round_trip(entry) end)
        end
      end
    end)
  end

  it("keeps version 1 clips with varying weights as version 1, and converts the rest", function()
    -- the conformance file holds both kinds; make sure the spec above saw both
    local kinds = {}
    for _, entry in ipairs(SOURCES[1].list()) do
      if entry.clip.layout == "poses" then
        local decoded = cjson.decode((anim.encode(entry.clip)))
        kinds[decoded.version] = true
      end
    end
    assert.is_true(kinds[1] and kinds[3])
  end)
end)

-- Fields ------------------------------------------------------------------------------------

-- A clip with every editor-only field, unknown fields at every level, and
-- nulls, in the shape cjson gives.
local FULL = [==[{
  "version": 3, "length": 2, "loop": "pingpong", "speed": -1.5, "autoplay": true,
  "priority": "action2", "blend": "additive", "space": "view", "mask": "head, torso",
  "euler": "zyx", "rig": "res://models/knight.bbmodel", "fps": 24, "viewModel": "arms",
  "skeleton": { "torso": { "position": [0, 0.75, 0], "rotation": [0, 10, 0], "note": "x" },
                "head": { "parent": "torso", "position": [0, 1.5, 0] } },
  "retarget": { "head": "Head", "tail": "" },
  "joints": {
    "head": {
      "rotation": [
        [0, [24, 0, 0], "bezier", { "type": "extreme", "left": "autoClamped", "right": "free",
                                  "out": [0.1, [-4, 0, 0]], "custom": [1, { "deep": null }] }],
        [0.3, [0, 0, 0], "back", { "type": "breakdown", "ease": "out" }],
        [0.6, [-24, 0, 0], null, null]
      ],
      "interpolation": "bezier", "locked": true, "muted": false, "weight": 0.25,
      "modifiers": { "rotation": [{ "type": "cycles", "before": "mirror", "after": "offset", "why": "fun" },
                                  { "type": "noise", "strength": 0.5, "enabled": false, "axis": 2 }] },
      "color": "#ff0000"
    },
    "torso": { "position": [[0, [0, 0, 0]], [2, [0, 1, 0], "step"]], "scale": [] , "selected": null }
  },
  "markers": [{ "time": 0.5, "name": "m", "value": "v", "label": 3 }, { "time": 1, "name": "n", "value": null }],
  "events": [{ "time": 0.2, "name": "e", "on": "client", "payload": { "a": [1, "two", false, null, {}] },
               "preview": { "effect": "dust" }, "extra": 1 }],
  "sounds": [{ "time": 0.1, "sound": "step", "volume": 0.5, "pitch": 1.25, "x": [] }],
  "plays": [{ "time": 1.5, "clip": "res://b.anim", "fade": 0.25, "y": "z" }],
  "unknownTop": { "nested": { "list": [1.5, -0, 1e300, "s"] } },
  "nothing": null
}]==]

describe("encode", function()
  it("keeps editor-only and unknown fields, nulls included, everywhere", function()
    local original = cjson.decode(FULL)
    local c = assert(anim.decode(FULL, "full"))
    local text = assert(anim.encode(c))
    local decoded = cjson.decode(text)
    assert_same(without(original, "version"), without(decoded, "version"))
    assert.are.equal(3, decoded.version)
    for _, s in ipairs { '"rig": "res://models/knight.bbmodel"', '"fps": 24', '"viewModel": "arms"', '"locked": true',
      '"interpolation": "bezier"', '"type": "extreme"', '"left": "autoClamped"', '"right": "free"',
      '"preview": { "effect": "dust" }', '"nothing": null', '"why": "fun"', '"color": "#ff0000"' } do
      assert(text:find(s, 1, true), "missing " .. s)
    end
    local c2 = assert(anim.decode(text, "full"))
    assert_samples_equal(c, c2, sample_times(c, original), 0)
    assert_fields_equal(c, c2)
  end)

  it("writes version 2 clips as version 3, which read the same", function()
    local src = { version = 2, joints = { a = { position = { { 0, { 0, 0, 0 } }, { 1, { 1, 2, 3 } } } } } }
    local c = assert(lenient(src))
    local text = assert(anim.encode(c))
    assert.truthy(text:find('^{\n  "version": 3,\n'))
    local c2 = assert(anim.decode(text))
    assert.are.equal(3, c2.version)
    assert_samples_equal(c, c2, { 0, 0.3, 0.5, 1, 2 }, 0)
  end)

  it("does not change the clip's source table", function()
    local src = cjson.decode(FULL)
    src.version = 2
    local c = assert(lenient(src))
    assert(anim.encode(c))
    assert.are.equal(2, src.version)
    src.version = 3
    assert_same(cjson.decode(FULL), src)
    local v1 = { keyframes = { { time = 0, poses = { a = { angles = { 10, 0, 0 } } } } } }
    assert(anim.encode(assert(lenient(v1))))
    assert.is_nil(v1.version)
    assert.are.same({ 10, 0, 0 }, v1.keyframes[1].poses.a.angles)
  end)
end)

-- Numbers and strings -----------------------------------------------------------------------

-- The text a number gets in an unknown field, and what cjson reads back.
local function number_round_trip(x)
  local c = assert(lenient({ joints = {}, n = { x } }))
  local text = assert(anim.encode(c))
  local literal = text:match('"n": %[(.-)%]')
  return literal, cjson.decode(text).n[1]
end

describe("encode numbers", function()
  it("are the shortest of %.15g, %.16g, %.17g that reads back, integers without a fraction", function()
    local cases = {
      { 0.1, "0.1" }, { 1 / 3, "0.3333333333333333" }, { 2 / 3, "0.6666666666666666" }, { 0.1 + 0.2, "0.30000000000000004" },
      { 1, "1" }, { 3.0, "3" }, { -1.5, "-1.5" }, { 2 ^ 53, "9007199254740992" },
      { 1e21, "1e+21" }, { 1e-7, "1e-07" }, { 5e-324, "4.94065645841247e-324" },
      { 1.7976931348623157e308, "1.7976931348623157e+308" },
      { 0.1 * 3, "0.30000000000000004" }, { 100, "100" }, { 2 ^ 63, "9.223372036854776e+18" },
    }
    for _, case in ipairs(cases) do
      local literal, back = number_round_trip(case[1])
      assert.are.equal(case[2], literal)
      assert(same_number(case[1], back), case[2] .. " read back as " .. tostring(back))
    end
  end)

  it("write Lua integers exactly; beyond 2^53 JSON readers take the nearest double, as the clip did", function()
    -- (5.1, 5.2 and LuaJIT have no integers: the literal is a double there,
    -- written as the shortest text that reads back as it)
    if not H.integers then
      local literal, back = number_round_trip(123456789012345678)
      assert.are.equal("1.2345678901234568e+17", literal)
      assert.are.equal(123456789012345678, back)
      return
    end
    local literal, back = number_round_trip(123456789012345678)
    assert.are.equal("123456789012345678", literal)
    assert.are.equal(123456789012345678 + 0.0, back)
    literal = number_round_trip(math.mininteger)
    assert.are.equal("-9223372036854775808", literal)
  end)

  it("keep the sign of zero", function()
    -- (zeros made at run time: 5.1 keeps one constant for 0.0 and -0.0 of
    -- a function, which are equal)
    local literal, back = number_round_trip(-1 / math.huge)
    assert.are.equal("-0", literal)
    assert.are.equal(-math.huge, 1 / back)
    literal = number_round_trip(1 / math.huge)
    assert.are.equal("0", literal)
  end)

  it("read back bit for bit, for any finite double (cjson.encode would keep only 14 digits)", function()
    -- random bit patterns cover every exponent, subnormals included (in
    -- 16-bit pieces: 5.1's math.random takes ranges below 2^31)
    local rng = math.random
    local values = {}
    while #values < 3000 do
      local x = binary.unpack("<d", binary.pack("<I2I2I2I2", rng(0, 0xffff), rng(0, 0xffff), rng(0, 0xffff), rng(0, 0xffff)))
      if x == x and x ~= math.huge and x ~= -math.huge then values[#values + 1] = x end
    end
    local c = assert(lenient({ joints = {}, values = values }))
    local back = cjson.decode((anim.encode(c))).values
    for i, x in ipairs(values) do
      assert(binary.pack("<d", x) == binary.pack("<d", back[i]), string.format("%.17g came back as %.17g", x, back[i]))
    end
    -- and the point of not using cjson's writer:
    assert.are_not.equal(0.1 + 0.2, cjson.decode(cjson.encode({ 0.1 + 0.2 }))[1])
  end)

  it("are written with a decimal point whatever the C locale's printf writes", function()
    -- no locale with a decimal comma is installed here: string.format is
    -- replaced by one that writes what printf writes in such a locale
    local real = string.format
    local values = { 0.5, 1 / 3, -2.25e-7, 1e21 }
    local c = assert(lenient({ joints = {}, values = values }))
    local text = replacing(string, "format", function(f, ...)
      local out = real(f, ...)
      if f:find("%%[%d.]*[fg]") then out = out:gsub("%.", ",") end
      return out
    end, anim.encode, c)
    assert.are.equal("0,5", replacing(string, "format", function(f, ...) return (real(f, ...):gsub("%.", ",")) end,
      function() return string.format("%.1f", 0.5) end)) -- the replacement does what it should
    assert.truthy(text:find('"values": [0.5, 0.3333333333333333, -2.25e-07, 1e+21]', 1, true), text)
    assert.are.same(values, cjson.decode(text).values)
  end)

  it("that JSON cannot hold are an error naming the field", function()
    local nan = lenient({ joints = {}, extra = { 1, 0 / 0 } }, "m")
    assert.are.same({ nil, "m: extra[2]: nan cannot be written as JSON (only finite numbers can)" }, { anim.encode(nan) })
    local inf = lenient({ joints = {}, extra = { x = -math.huge } }, "m")
    assert.are.same({ nil, "m: extra.x: -inf cannot be written as JSON (only finite numbers can)" }, { anim.encode(inf) })
  end)
end)

describe("encode strings", function()
  it("escape quotes, backslashes and control characters, and keep UTF-8 as it is", function()
    local s = 'say "hi"\\ back\n\ttab\r\b\f\0\1\31 \127 é ✓ /'
    local c = assert(lenient({ joints = { [s] = {} }, markers = { { time = 0, name = s, value = s } }, [s] = s }))
    local text = assert(anim.encode(c))
    assert.truthy(text:find('"say \\"hi\\"\\\\ back\\n\\ttab\\r\\b\\f\\u0000\\u0001\\u001f \127 é ✓ /"', 1, true))
    assert.is_nil(text:find("\0", 1, true))
    local decoded = cjson.decode(text)
    assert.are.equal(s, decoded[s])
    assert.are.equal(s, decoded.markers[1].name)
    assert.is_truthy(decoded.joints[s])
  end)
end)

-- Layout -------------------------------------------------------------------------------------

describe("encode layout", function()
  it("is the format text's: known keys first in its order, one key per line, keys and short values on one line", function()
    local c = assert(lenient({
      zeta = true, alpha = { 1, 2 }, markers = { { value = "right", name = "step", time = 0.25 } },
      joints = { torso = { weight = 0.8, position = {
        { 0, { 0, 0, 0 }, "bezier", { out = { 0.1, { 0, 0.05, 0 } } } }, { 0.5, { 0, 0.06, 0 } } } } },
      length = 1, loop = "loop", version = 2,
    }))
    assert.are.equal([==[
{
  "version": 3,
  "length": 1,
  "loop": "loop",
  "joints": {
    "torso": {
      "position": [
        [0, [0, 0, 0], "bezier", { "out": [0.1, [0, 0.05, 0]] }],
        [0.5, [0, 0.06, 0]]
      ],
      "weight": 0.8
    }
  },
  "markers": [{ "time": 0.25, "name": "step", "value": "right" }],
  "alpha": [1, 2],
  "zeta": true
}
]==], (anim.encode(c)))
  end)

  it("writes every key on one line, also when it is longer than 100 columns", function()
    -- the format text's example of a key with every extra field
    local key = '[0, [24, 0, 0], "bezier", { "type": "extreme", "left": "autoClamped", "right": "autoClamped", '
      .. '"out": [0.1, [-4, 0, 0]] }]'
    local c = assert(anim.decode('{ "joints": { "rightArm": { "rotation": [' .. key .. ', [0.6, [-24, 0, 0]]] } } }'))
    local text = assert(anim.encode(c))
    assert.truthy(text:find('\n        ' .. key .. ',\n        [0.6, [-24, 0, 0]]\n', 1, true), text)
  end)

  it("writes a value one item per line when it does not fit in 100 columns", function()
    local long = {}
    for i = 1, 40 do long[i] = i * 1000 end
    local c = assert(lenient({ joints = {}, long = long, short = { 1, 2, 3 } }))
    local text = assert(anim.encode(c))
    assert.truthy(text:find('"long": %[\n    1000,\n    2000,\n'))
    assert.truthy(text:find('"short": [1, 2, 3]', 1, true))
    for line in text:gmatch("[^\n]+") do assert(#line <= 100, line) end
  end)

  it("writes empty lists as [] and empty objects as {} where the format says which", function()
    local c = assert(lenient({ joints = { a = { rotation = {}, modifiers = { position = {} } } }, mask = {},
      markers = {}, events = { { time = 0, name = "e", payload = {} } } }))
    local text = assert(anim.encode(c))
    assert.truthy(text:find('"rotation": []', 1, true))
    assert.truthy(text:find('"modifiers": { "position": [] }', 1, true))
    assert.truthy(text:find('"mask": []', 1, true))
    assert.truthy(text:find('"markers": []', 1, true))
    assert.truthy(text:find('"payload": {}', 1, true))
    local empty = assert(anim.encode(assert(lenient({ joints = {} }))))
    assert.are.equal('{\n  "version": 3,\n  "joints": {}\n}\n', empty)
  end)

  it("orders unknown keys by bytes, whatever the locale", function()
    local c = assert(lenient({ joints = {}, b = 1, B = 2, a = 3, ["é"] = 4, A = 5 }))
    local text = assert(anim.encode(c))
    local order = {}
    for k in text:gmatch('\n  "([^"]+)":') do order[#order + 1] = k end
    assert.are.same({ "version", "joints", "A", "B", "a", "b", "é" }, order)
  end)
end)

-- Version 1 -----------------------------------------------------------------------------------

local function q_x(deg) -- a turn about x, as [x, y, z, w]
  return { math.sin(math.rad(deg) / 2), 0, 0, math.cos(math.rad(deg) / 2) }
end

describe("encode version 1 clips", function()
  it("as the version 3 clip the editor writes (the format text's example, worked by hand)", function()
    local v1 = [[{
      "length": 1, "looped": true, "priority": 1,
      "keyframes": [
        { "time": 0, "poses": { "rightLeg": { "angles": [30, 0, 0], "easing": "sine" },
                                "leftLeg": { "angles": [-30, 0, 0], "easing": "sine" } } },
        { "time": 0.5, "poses": { "rightLeg": { "angles": [-30, 0, 0], "easing": "sine" },
                                  "leftLeg": { "angles": [30, 0, 0], "easing": "sine" } } },
        { "time": 1, "poses": { "rightLeg": { "angles": [30, 0, 0] }, "leftLeg": { "angles": [-30, 0, 0] } } }
      ],
      "markers": [{ "time": 0.25, "name": "step", "value": "right" }, { "time": 0.75, "name": "step", "value": "left" }]
    }]]
    local c = assert(anim.decode(v1, "v1"))
    local text = assert(anim.encode(c))
    local sine = { ease = "inOut" } -- version 1 eases inOut when no direction is given
    assert_same({
      version = 3, length = 1, loop = "loop", priority = 1,
      joints = {
        rightLeg = { rotation = { { 0, q_x(30), "sine", sine }, { 0.5, q_x(-30), "sine", sine }, { 1, q_x(30) } } },
        leftLeg = { rotation = { { 0, q_x(-30), "sine", sine }, { 0.5, q_x(30), "sine", sine }, { 1, q_x(-30) } } },
      },
      markers = { { time = 0.25, name = "step", value = "right" }, { time = 0.75, name = "step", value = "left" } },
    }, cjson.decode(text), 1e-15)
    local c3 = assert(anim.decode(text, "v3"))
    assert_samples_equal(c, c3, sample_times(c, cjson.decode(v1)), 1e-6)
  end)

  it("puts a joint at rest where a keyframe leaves it out, and writes only the channels some pose gives", function()
    local c = assert(lenient({ looped = false, keyframes = {
      { time = 0, poses = { a = { position = { 1, 2, 3 }, easing = "quad" }, b = { rotation = { 0, 0, 0, 2 } } } },
      { time = 1, poses = { b = { angles = { 90, 0, 0 }, easing = "constant" } } },
      { time = 2, poses = { a = { position = { 4, 5, 6 }, easing = "Sine", direction = "OUT" } } },
    } }))
    local d = cjson.decode((assert(anim.encode(c))))
    assert_same({
      a = { position = { { 0, { 1, 2, 3 }, "quad", { ease = "inOut" } }, { 1, { 0, 0, 0 } },
        { 2, { 4, 5, 6 }, "sine", { ease = "out" } } } },
      b = { rotation = { { 0, { 0, 0, 0, 2 } }, { 1, q_x(90), "step" }, { 2, { 0, 0, 0, 1 } } } },
    }, d.joints, 1e-15)
    assert.are.equal("once", d.loop)
    assert.are.equal(2, d.length)
    assert.is_nil(d.keyframes)
    assert.is_nil(d.looped)
  end)

  it("writes a pose weight that is the same at every keyframe as the joint's weight", function()
    local c = assert(lenient({ keyframes = {
      { time = 0, poses = { a = { position = { 0, 0, 0 }, weight = 0.5 }, b = { position = { 0, 0, 0 }, weight = 1 } } },
      { time = 1, poses = { a = { position = { 1, 0, 0 }, weight = 0.5 }, b = { position = { 1, 0, 0 } } } },
    } }))
    local d = cjson.decode((assert(anim.encode(c))))
    assert.are.equal(0.5, d.joints.a.weight)
    assert.is_nil(d.joints.b.weight)
    assert.are.equal(3, d.version)
  end)

  it("keeps the length when markers come after the last keyframe", function()
    -- version 3 would take the last marker's time as the length
    local c = assert(lenient({ keyframes = { { time = 0, poses = { a = { position = { 0, 0, 0 } } } },
      { time = 1, poses = { a = { position = { 1, 0, 0 } } } } }, markers = { { time = 3, name = "late" } } }))
    local text = assert(anim.encode(c))
    assert.are.equal(1, cjson.decode(text).length)
    assert.are.equal(1, assert(anim.decode(text)).length)
  end)

  it("keeps the common and unknown fields", function()
    local src = { looped = true, priority = "action", mask = { "a" }, blend = "additive", space = "view", speed = 2,
      autoplay = true, rig = "player", fps = 30, custom = { x = { 1, 2 } }, euler = "yxz",
      events = { { time = 0.5, name = "e", payload = { 1 } } }, sounds = { { time = 0, sound = "s" } },
      keyframes = { { time = 0, poses = { a = { angles = { 0, 45, 0 } } } }, { time = 1, poses = {} } } }
    local c = assert(lenient(src))
    local text = assert(anim.encode(c))
    local d = cjson.decode(text)
    assert_same(without(src, compat.unpack(V1_CONVERTED)), without(d, "version", "length", "loop", "joints"))
    local c3 = assert(anim.decode(text))
    assert_fields_equal(c, c3)
    assert_samples_equal(c, c3, sample_times(c, src), 1e-6)
  end)

  describe("whose pose weights vary", function()
    local src = { looped = true, keyframes = {
      { time = 0, poses = { leftLeg = { angles = { -30, 0, 0 }, weight = 0.5 }, rightLeg = { angles = { 30, 0, 0 } } } },
      { time = 0.5, poses = { leftLeg = { angles = { 30, 0, 0 } } } },
    } }

    it("stay version 1, as they are", function()
      local c = assert(lenient(src, "w"))
      local text = assert(anim.encode(c))
      local d = cjson.decode(text)
      assert.are.equal(1, d.version)
      assert_same(src, without(d, "version"))
      local c2 = assert(anim.decode(text, "w"))
      assert.are.equal("poses", c2.layout)
      assert_samples_equal(c, c2, sample_times(c, src), 0)
    end)

    it("refuse version 3 with a message", function()
      local c = assert(lenient(src, "w"))
      assert.are.same({ nil, "w: cannot be written as version 3: the pose weight of joint 'leftLeg' varies over time "
        .. "(0.5 at keyframe 1, 1 at keyframe 2), and version 3 has no animated joint weight" },
        { anim.encode(c, { version = 3 }) })
    end)

    it("also when the joint is left out of a keyframe (weight 1 there)", function()
      local c = assert(lenient({ keyframes = {
        { time = 0, poses = { a = { position = { 0, 0, 0 }, weight = 0.5 } } },
        { time = 1, poses = {} },
      } }, "w"))
      local _, err = anim.encode(c, { version = 3 })
      assert.are.equal("w: cannot be written as version 3: the pose weight of joint 'a' varies over time "
        .. "(0.5 at keyframe 1, 1 at keyframe 2), and version 3 has no animated joint weight", err)
      assert.are.equal(1, cjson.decode((anim.encode(c))).version)
    end)
  end)

  it("stay version 1 when a keyframe or a pose has a field version 3 has no place for", function()
    local pose_field = assert(lenient({ keyframes = { { time = 0, poses = { a = { position = { 0, 0, 0 }, tag = "x" } } } } }, "p"))
    local d = cjson.decode((anim.encode(pose_field)))
    assert.are.equal(1, d.version)
    assert.are.equal("x", d.keyframes[1].poses.a.tag)
    assert.are.same({ nil, "p: cannot be written as version 3: keyframes[1].poses.a.tag is a field version 3 has no place for" },
      { anim.encode(pose_field, { version = 3 }) })
    -- several such fields: the message names the first in byte order, every time
    local kf_field = assert(lenient({ keyframes = { { time = 0, note = 1, label = "start", poses = {}, zz = 2 } } }, "k"))
    assert.are.equal(1, cjson.decode((anim.encode(kf_field))).version)
    assert.are.same({ nil, "k: cannot be written as version 3: keyframes[1].label is a field version 3 has no place for" },
      { anim.encode(kf_field, { version = 3 }) })
  end)

  it("stay version 1 when their own loop field disagrees with looped", function()
    local c = assert(lenient({ looped = true, loop = "once", keyframes = { { time = 0, poses = {} } } }, "l"))
    assert.are.equal(1, cjson.decode((anim.encode(c))).version)
    assert.are.same({ nil, "l: cannot be written as version 3: its field loop (once) is not what looped says (loop); "
      .. "version 3 has only loop" }, { anim.encode(c, { version = 3 }) })
    -- when it agrees it is simply the version 3 field
    local agree = assert(lenient({ looped = true, loop = "loop", keyframes = { { time = 0, poses = {} } } }))
    assert.are.equal(3, cjson.decode((anim.encode(agree))).version)
  end)

  it("stay version 1 when their own euler field is not version 1's order, yxz", function()
    -- version 1 reads past it; version 3 would report it as the clip's order
    local c = assert(lenient({ euler = "zyx", keyframes = { { time = 0, poses = {} } } }, "e"))
    assert.are.equal("yxz", c.euler)
    assert.are.equal(1, cjson.decode((anim.encode(c))).version)
    assert.are.same({ nil, "e: cannot be written as version 3: its field euler (zyx) is not the order version 1 uses "
      .. "(yxz), and version 3 would read it" }, { anim.encode(c, { version = 3 }) })
    local same = assert(lenient({ euler = "YXZ", keyframes = { { time = 0, poses = {} } } }))
    local d = cjson.decode((anim.encode(same)))
    assert.are.equal(3, d.version)
    assert.are.equal("YXZ", d.euler)
  end)
end)

-- Options and errors ---------------------------------------------------------------------------

describe("encode options", function()
  local v3 = assert(lenient({ joints = { a = { position = { { 0, { 0, 0, 0 } } } } } }, "c"))
  local v1 = assert(lenient({ keyframes = { { time = 0, poses = { a = { position = { 1, 0, 0 } } } } } }, "o"))

  it("take nil, an empty table, or an explicit nil version as the default", function()
    local text = anim.encode(v3)
    assert.are.equal(text, anim.encode(v3, nil))
    assert.are.equal(text, anim.encode(v3, {}))
    assert.are.equal(text, anim.encode(v3, { version = nil }))
    assert.are.equal(text, anim.encode(v3, { version = 3 }))
  end)

  it("version = 1 keeps a version 1 clip as it is", function()
    local d = cjson.decode((assert(anim.encode(v1, { version = 1 }))))
    assert.are.equal(1, d.version)
    assert.are.same({ 1, 0, 0 }, d.keyframes[1].poses.a.position)
    assert.are.equal(3, cjson.decode((anim.encode(v1))).version)
  end)

  it("version = 1 cannot write a clip of curves", function()
    assert.are.same({ nil, "c: cannot be written as version 1: only clips read from version 1 poses can" },
      { anim.encode(v3, { version = 1 }) })
  end)

  it("of the wrong type or unknown raise errors", function()
    assert.has_error(function() anim.encode(v3, 3) end, "bad argument #2 to 'encode' (table of options expected, got number)")
    assert.has_error(function() anim.encode(v3, { verison = 3 }) end,
      "bad argument #2 to 'encode' (unknown option 'verison'; did you mean 'version'?)")
    assert.has_error(function() anim.encode(v3, { zzz = 3 }) end, "bad argument #2 to 'encode' (unknown option 'zzz'; the only option is 'version')")
    assert.has_error(function() anim.encode(v3, { version = 2 }) end,
      "bad argument #2 to 'encode' (option 'version' must be 1 or 3, got 2)")
    assert.has_error(function() anim.encode(v3, { version = "3" }) end,
      "bad argument #2 to 'encode' (option 'version' must be 1 or 3, got string)")
    assert.has_error(function() anim.encode({}) end, "bad argument #1 to 'encode' (anim.clip expected, got table)")
    assert.has_error(function() anim.encode() end, "bad argument #1 to 'encode' (anim.clip expected, got nil)")
  end)
end)

describe("encode refuses values JSON cannot hold", function()
  local function err_of(t)
    local c = assert(lenient(t, "m"))
    local text, err = anim.encode(c)
    assert.is_nil(text)
    return err
  end

  it("functions and other Lua values", function()
    assert.are.equal("m: joints.a.f: a function cannot be written as JSON", err_of({ joints = { a = { f = print } } }))
    assert.are.equal("m: co: a thread cannot be written as JSON", err_of({ joints = {}, co = coroutine.create(function() end) }))
  end)

  it("arrays with holes and tables with keys that are not strings", function()
    assert.are.equal("m: x: an array with holes cannot be written as JSON (2 items, the last at index 3)",
      err_of({ joints = {}, x = { 1, nil, 3 } }))
    assert.are.equal("m: x: cannot be written as JSON: a table is either an array or has only string keys, "
      .. "got the number key 1", err_of({ joints = {}, x = { 1, y = 2 } }))
    assert.are.equal("m: x: cannot be written as JSON: a table is either an array or has only string keys, "
      .. "got the boolean key true", err_of({ joints = {}, x = { [true] = 2 } }))
  end)

  it("tables that contain themselves, or nest deeper than JSON is read", function()
    -- anim.clip copies its table and refuses these (clip_api_spec); an
    -- importer builds the table the clip keeps (info.tree, keys.lua)
    -- itself, so the encoder checks again
    local function err_with(k, v)
      local c = assert(lenient({ joints = {} }, "m"))
      core.clip_info(c).tree[k] = v
      local text, err = anim.encode(c)
      assert.is_nil(text)
      return err
    end
    local cyc = {}
    cyc.self = cyc
    local err = err_with("cyc", cyc)
    assert.truthy(err:find("^m: cyc%.self%.self.-: nested more than 128 deep %(does a table contain itself%?%)$"), err)
    local deep = {}
    local t = deep
    for _ = 1, 130 do t.d = {} t = t.d end
    assert.truthy(err_with("deep", deep):find("nested more than 128 deep", 1, true))
  end)
end)

describe("encode.table_shared", function()
  it("gives anim.table's table, not copied again, and its failures", function()
    local encode = require "anim.format.encode"
    local c = assert(anim.clip { length = 1, joints = { a = { position = { { 0, { 0, 0, 0 } }, { 1, { 1, 0, 0 } } } } },
      markers = { { time = 0.5, name = "m" } } })
    assert.are.same(anim.table(c, { version = 3 }), encode.table_shared(c, { version = 3 }))
    assert.are.same({ anim.table(c, { version = 1 }) }, { encode.table_shared(c, { version = 1 }) })
    assert.has_error(function() encode.table_shared("x") end)
  end)
end)

describe("encode of an imported clip", function()
  it("returns the importer's approx, and writes nothing extra for it", function()
    local src = { joints = { a = { position = { { 0, { 0, 0, 0 } }, { 1, { 1, 0, 0 } } } } } }
    local c = assert(lenient(src, "imported"))
    local exact = assert(anim.encode(c))
    -- what an importer does when version 3 cannot say its file exactly
    local approx = { bound = 0.01, note = "axes with different key times" }
    core.clip_info(c).approx = approx
    local text, got = anim.encode(c)
    assert.are.equal(exact, text)
    assert.are.equal(approx, got)
    assert.is_nil(select(2, anim.encode(assert(lenient(src)))))
  end)
end)

-- Saving ------------------------------------------------------------------------------------------

describe("save", function()
  local dir
  before_each(function() dir = H.tmpdir() end)
  after_each(function() os.execute("rm -rf '" .. dir .. "'") end)

  local clip = assert(anim.load(H.root .. "/examples/clips/walk.anim"))

  it("writes the encoded clip, leaves no temporary file, and replaces an existing target", function()
    local path = dir .. "/walk.anim"
    H.write(path, "old contents")
    assert.are.same({ true }, { anim.save(clip, path) })
    assert.are.equal(anim.encode(clip), H.read(path))
    assert.are.same({ "walk.anim" }, H.ls(dir))
    local back = assert(anim.load(path))
    assert_samples_equal(clip, back, sample_times(clip, cjson.decode(H.read(path))), 0)
  end)

  it("writes a temporary file beside the target and renames it; the target is never opened for writing", function()
    local path = dir .. "/walk.anim"
    H.write(path, "old contents")
    local opened, renamed = {}, {}
    local real_open, real_rename = io.open, os.rename
    local ok = replacing(io, "open", function(name, mode)
      if mode and mode:find("[wa]") then opened[#opened + 1] = name end
      return real_open(name, mode)
    end, replacing, os, "rename", function(a, b)
      renamed[#renamed + 1] = { a, b }
      return real_rename(a, b)
    end, anim.save, clip, path)
    assert.is_true(ok)
    assert.are.equal(1, #opened)
    assert.are_not.equal(path, opened[1])
    assert.are.equal(dir, opened[1]:match("^(.*)/"))
    assert.are.same({ { opened[1], path } }, renamed)
  end)

  it("passes the options on, and returns an imported clip's approx", function()
    local v1 = assert(lenient({ keyframes = { { time = 0, poses = { a = { position = { 1, 0, 0 } } } } } }))
    local path = dir .. "/v1.anim"
    assert.is_true(anim.save(v1, path, { version = 1 }))
    assert.are.equal(1, cjson.decode(H.read(path)).version)
    local c = assert(lenient({ joints = {} }))
    core.clip_info(c).approx = { bound = 0.5, note = "n" }
    local ok, approx = anim.save(c, dir .. "/i.anim")
    assert.is_true(ok)
    assert.are.same({ bound = 0.5, note = "n" }, approx)
  end)

  it("into a missing directory returns nil, message and writes nothing", function()
    local path = dir .. "/missing/walk.anim"
    local ok, err = anim.save(clip, path)
    assert.is_nil(ok)
    assert.are.equal(path .. ": cannot save: cannot create a temporary file beside it: No such file or directory", err)
    assert.are.same({}, H.ls(dir))
  end)

  it("leaves an existing target untouched when the clip cannot be encoded", function()
    local path = dir .. "/w.anim"
    H.write(path, "old contents")
    local c = assert(lenient({ keyframes = {
      { time = 0, poses = { a = { position = { 0, 0, 0 }, weight = 0.5 } } }, { time = 1, poses = {} } } }, "w"))
    local ok, err = anim.save(c, path, { version = 3 })
    assert.is_nil(ok)
    assert.truthy(err:find("^w: cannot be written as version 3"))
    assert.are.equal("old contents", H.read(path))
    assert.are.same({ "w.anim" }, H.ls(dir))
  end)

  it("leaves the target untouched and removes the temporary file when writing fails midway", function()
    local path = dir .. "/walk.anim"
    H.write(path, "old contents")
    local real_open = io.open
    local ok, err = replacing(io, "open", function(name, mode)
      local f, oerr = real_open(name, mode)
      if not f or mode ~= "wb" then return f, oerr end
      -- a file that takes a few bytes, then runs out of space
      return setmetatable({}, { __index = {
        write = function(_, s) f:write(s:sub(1, 10)) return nil, "No space left on device" end,
        flush = function() return f:flush() end,
        close = function() return f:close() end,
      } })
    end, anim.save, clip, path)
    assert.is_nil(ok)
    assert.are.equal(path .. ": cannot save: cannot write the temporary file: No space left on device", err)
    assert.are.equal("old contents", H.read(path))
    assert.are.same({ "walk.anim" }, H.ls(dir))
  end)

  it("removes the temporary file when the rename fails", function()
    local path = dir .. "/target.anim"
    H.write(path, "old")
    local ok, err = replacing(os, "rename", function() return nil, "Operation not permitted" end, anim.save, clip, path)
    assert.is_nil(ok)
    assert.are.equal(path .. ": cannot save: cannot rename the temporary file over it: Operation not permitted", err)
    assert.are.same({ "target.anim" }, H.ls(dir))
    assert.are.equal("old", H.read(path))
  end)

  it("refuses to replace a directory or a device, and writes through a link", function()
    os.execute("mkdir '" .. dir .. "/adir'")
    local ok, err = anim.save(clip, dir .. "/adir")
    assert.is_nil(ok)
    assert.are.equal(dir .. "/adir: cannot save: it is a directory, not a regular file", err)
    local ok2, err2 = anim.save(clip, "/dev/null")
    assert.is_nil(ok2)
    assert.are.equal("/dev/null: cannot save: it is a device or special file, not a regular file", err2)
    -- a link to a clip: the clip is replaced, the link stays a link
    H.write(dir .. "/real.anim", "old")
    os.execute("ln -s real.anim '" .. dir .. "/link.anim'")
    assert.is_true(anim.save(clip, dir .. "/link.anim"))
    local p = assert(io.popen("test -L '" .. dir .. "/link.anim' && echo link"))
    assert.are.equal("link", p:read("*l"))
    p:close()
    assert.is_truthy(anim.load(dir .. "/real.anim"))
  end)

  it("checks its arguments", function()
    assert.has_error(function() anim.save("walk", dir .. "/x") end, "bad argument #1 to 'save' (anim.clip expected, got string)")
    assert.has_error(function() anim.save(clip, 5) end, "bad argument #2 to 'save' (string expected, got number)")
    assert.has_error(function() anim.save(clip, dir .. "/x", { version = 4 }) end,
      "bad argument #3 to 'save' (option 'version' must be 1 or 3, got 4)")
    assert.are.same({}, H.ls(dir))
  end)
end)
