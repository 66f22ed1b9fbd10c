-- Limits (issue 9, docs/robustness.md): what a file may hold is bounded,
-- every bound gives `nil, "file: json.path: why (... anim.limits.x)"`, and
-- the host reads the bounds through anim.limits and changes them with
-- anim.set_limits.  No number written in a file sizes an allocation or a
-- loop beyond them: a file that claims a huge length, count or period is
-- refused (or bounded), quickly.
require("anim.base.luajit").no_traversal_traces()
local anim = require "anim"
local core = require "anim.core"
local H = require "spec.helper"
local compat = require "anim.base.compat"

local with_limits = H.with_limits

-- A Blockbench import that imported no animation: its one warning, as
-- the command prints it ("file: path: message").
local function not_imported(name)
  return function(clips, warnings)
    assert.are.equal("table", type(clips), tostring(warnings))
    assert.is_nil(next(clips))
    assert.are.equal(1, #warnings)
    return name .. ": " .. warnings[1].channel .. ": " .. warnings[1].message
  end
end

-- Exactly nil and a message (nothing half built).
local function refused(c, err)
  assert.is_nil(c)
  assert.are.equal("string", type(err))
  return err
end

-- Fails, instead of hanging, when f runs more than `n` million Lua
-- instructions: the bounded loops of the importers are checked this way.
local function bounded(n, f)
  debug.sethook(function() error("more than " .. n .. " million instructions: not bounded", 2) end, "", n * 1000000)
  local r = compat.pack(pcall(f))
  debug.sethook()
  if not r[1] then error(r[2], 0) end
  return compat.unpack(r, 2, r.n)
end

local function joints_json(n, fmt)
  local parts = {}
  for i = 1, n do parts[i] = string.format(fmt, i) end
  return table.concat(parts, ",")
end

describe("the limits API", function()
  it("anim.limits reads the values in force, and is read-only", function()
    local defaults = { bytes = 16 * 1024 * 1024, depth = 128, keys = 1000000, strings = 65536, joints = 4096,
      items = 10000, modifiers = 4096, animations = 4096, bake_samples = 250000, molang_work = 40000000,
      state_entries = 10000, vertices = 1000000 }
    -- (pairs walks it on 5.2+, through __pairs; 5.1 and LuaJIT have no
    -- __pairs and walk the empty view: anim.set_limits {} gives a copy
    -- everywhere, docs/runtimes.md)
    assert.are.same(H.meta_pairs and defaults or {}, (function()
        local t = {}
        for k, v in pairs(anim.limits) do t[k] = v end
        return t
      end)())
    assert.are.same(defaults, anim.set_limits {})
    assert.are.equal(128, anim.limits.depth)
    assert.has_error(function() anim.limits.depth = 5 end,
      "anim.limits is read-only (use anim.set_limits{ depth = n })")
  end)

  it("anim.set_limits changes some limits and returns all the previous values", function()
    local old = anim.set_limits { keys = 10, joints = 3 }
    assert.are.equal(10, anim.limits.keys)
    assert.are.equal(3, anim.limits.joints)
    assert.are.equal(1000000, old.keys)
    assert.are.equal(128, old.depth)
    local mid = anim.set_limits(old)
    assert.are.same({ 10, 3 }, { mid.keys, mid.joints })
    assert.are.equal(1000000, anim.limits.keys)
    assert.are.equal(4096, anim.limits.joints)
    -- a float with a whole value is taken as an integer
    old = anim.set_limits { keys = 5e3 }
    assert.are.equal(5000, anim.limits.keys)
    -- (of the integer subtype on 5.3+; an integral number before)
    assert.is_true(H.is_integer(anim.limits.keys))
    anim.set_limits(old)
  end)

  it("validates every value, and changes nothing unless all are valid", function()
    local before = anim.set_limits {}
    assert.has_error(function() anim.set_limits(5) end, "bad argument #1 to 'set_limits' (table expected, got number)")
    assert.has_error(function() anim.set_limits { byte = 5 } end,
      "bad argument #1 to 'set_limits' (unknown limit 'byte'; did you mean 'bytes'?)")
    assert.has_error(function() anim.set_limits { zzz = 5 } end,
      "bad argument #1 to 'set_limits' (unknown limit 'zzz'; the limits are animations, bake_samples, bytes, depth,"
        .. " items, joints, keys, modifiers, molang_work, state_entries, strings, vertices)")
    assert.has_error(function() anim.set_limits { keys = 0 } end,
      "bad argument #1 to 'set_limits' (keys must be from 1 to 100000000, got 0)")
    assert.has_error(function() anim.set_limits { keys = -3 } end,
      "bad argument #1 to 'set_limits' (keys must be from 1 to 100000000, got -3)")
    assert.has_error(function() anim.set_limits { depth = 100000 } end,
      "bad argument #1 to 'set_limits' (depth must be from 1 to 1000, got 100000)")
    assert.has_error(function() anim.set_limits { joints = 1e9 } end,
      "bad argument #1 to 'set_limits' (joints must be from 1 to 65536, got 1000000000)")
    assert.has_error(function() anim.set_limits { keys = 1.5 } end,
      "bad argument #1 to 'set_limits' (keys must be a whole number, got 1.5)")
    assert.has_error(function() anim.set_limits { keys = 0 / 0 } end)
    assert.has_error(function() anim.set_limits { keys = math.huge } end)
    assert.has_error(function() anim.set_limits { keys = "10" } end,
      "bad argument #1 to 'set_limits' (keys must be a whole number, got string)")
    -- keys = 10 is valid, strings = 0 is not: neither is applied
    assert.has_error(function() anim.set_limits { keys = 10, strings = 0 } end)
    assert.are.same(before, anim.set_limits {})
  end)
end)

describe("limits on files", function()
  describe("bytes", function()
    it("a text over the limit is refused before it is parsed (JSON and XML)", function()
      with_limits({ bytes = 100 }, function()
        local text = '{"joints": {}, "pad": "' .. string.rep("x", 200) .. '"}'
        assert.are.equal("w.anim: too large (225 bytes; at most 100, anim.limits.bytes)",
          refused(anim.decode(text, "w.anim")))
        assert.are.equal("b.json: too large (225 bytes; at most 100, anim.limits.bytes)",
          refused(anim.decode_blockbench(text, "b.json")))
        assert.are.equal("r: too large (225 bytes; at most 100, anim.limits.bytes)",
          refused(anim.decode_retarget(text, "r")))
        local xml = "<animation>" .. string.rep(" ", 200) .. "</animation>"
        assert.are.equal("x.xml: too large (223 bytes; at most 100, anim.limits.bytes)",
          refused(anim.decode_xml(xml, "x.xml")))
      end)
    end)

    it("a file over the limit is refused without reading it", function()
      local dir = H.tmpdir()
      local path = dir .. "/big.anim"
      H.write(path, '{"joints": {}, "pad": "' .. string.rep("x", 5000) .. '"}')
      local err = with_limits({ bytes = 1000 }, function() return select(2, anim.load(path)) end)
      assert.are.equal(path .. ": too large (5025 bytes; at most 1000, anim.limits.bytes)", err)
      -- raised, the same file loads
      assert.is_truthy(with_limits({ bytes = 10000 }, function() return anim.load(path) end))
      os.remove(path)
      os.remove(dir)
    end)

    it("a file whose size cannot be told (/proc's, of size 0) is read no further than the limit", function()
      -- (a device that never ends, /dev/zero, is not read at all: spec/files_spec.lua)
      local f = io.open("/proc/self/status", "rb")
      if not f then pending("no /proc/self/status here") return end
      f:close()
      local err = with_limits({ bytes = 10 }, function() return select(2, anim.load("/proc/self/status")) end)
      assert.are.equal("/proc/self/status: too large (11 bytes; at most 10, anim.limits.bytes)", err)
    end)
  end)

  describe("depth", function()
    it("JSON nesting beyond the limit (cjson's own limit, set explicitly)", function()
      local function nest(n) return '{"joints": {}, "x": ' .. string.rep("[", n) .. string.rep("]", n) .. "}" end
      assert.is_truthy(anim.decode(nest(127), "d"))
      assert.are.equal("d: not valid JSON: nested deeper than 128 levels (anim.limits.depth) at character 148",
        refused(anim.decode(nest(128), "d")))
      with_limits({ depth = 300 }, function()
        assert.is_truthy(anim.decode(nest(250), "d"))
      end)
      with_limits({ depth = 10 }, function()
        assert.are.equal("d: not valid JSON: nested deeper than 10 levels (anim.limits.depth) at character 30",
          refused(anim.decode(nest(10), "d")))
      end)
    end)

    it("Lua tables given to anim.clip, and XML elements", function()
      local t = { joints = {} }
      local at = t
      for _ = 1, 20 do at.x = {} at = at.x end
      with_limits({ depth = 10 }, function()
        assert.are.equal("c: x.x.x.x.x.x.x.x.x.x: nested deeper than 10 levels (anim.limits.depth)",
          refused(anim.clip(t, "c", { strict = false })))
        assert.are.equal("x.xml: line 1: elements nested too deeply (at most 10 levels, anim.limits.depth)",
          refused(anim.decode_xml("<animation>" .. string.rep("<a>", 12) .. string.rep("</a>", 12) .. "</animation>", "x.xml")))
      end)
    end)
  end)

  describe("keys", function()
    local function channel(n, t0)
      local keys = {}
      for i = 1, n do keys[i] = string.format("[%d, [0, 0, 0]]", (t0 or 0) + i) end
      return "[" .. table.concat(keys, ",") .. "]"
    end

    it("counts the keys of every channel of the clip together", function()
      local text = '{"joints": {"a": {"position": ' .. channel(60) .. '}, "b": {"rotation": ' .. channel(30)
        .. '}, "c": {"scale": ' .. channel(30) .. "}}}"
      assert.is_truthy(with_limits({ keys = 120 }, function() return anim.decode(text, "k.anim") end))
      assert.are.equal("k.anim: joints.c.scale: too many keys: the clip would have 120 (at most 100, anim.limits.keys)",
        refused(with_limits({ keys = 100 }, function() return anim.decode(text, "k.anim") end)))
    end)

    it("counts envelope points as keys", function()
      local pts = {}
      for i = 1, 50 do pts[i] = string.format("[%d, -1, 1]", i) end
      local text = '{"joints": {"a": {"position": ' .. channel(10) .. ', "modifiers": {"position": '
        .. '[{"type": "envelope", "points": [' .. table.concat(pts, ",") .. "]}]}}}}"
      assert.are.equal("k.anim: joints.a.modifiers.position[1].points: too many keys: the clip would have 50"
        .. " (at most 40, anim.limits.keys)",
        refused(with_limits({ keys = 40 }, function() return anim.decode(text, "k.anim") end)))
    end)

    it("version 1: keyframes times joints, refused before anything that size is built", function()
      -- 2000 keyframes and 1000 joints: two million keys from a file of
      -- a few dozen kilobytes
      local kfs = { '{"time": 0, "poses": {' .. joints_json(1000, '"j%d": {"angles": [0, 0, 0]}') .. "}}" }
      for i = 1, 1999 do kfs[#kfs + 1] = string.format('{"time": %d}', i) end
      local text = '{"keyframes": [' .. table.concat(kfs, ",") .. "]}"
      assert.are.equal("v1.anim: keyframes: too many keys: 2000 keyframes for 1000 joints make 2000000"
        .. " (at most 1000000, anim.limits.keys)", refused(anim.decode(text, "v1.anim")))
    end)

    it("XML: keyframes, elements, and a length that repeats beyond the limit (even 1e300 times)", function()
      local function kfs(n)
        local out = {}
        for i = 1, n do out[i] = string.format('<keyframe t="%d">1</keyframe>', i) end
        return table.concat(out)
      end
      -- every element is a few Lua tables: elements count as keys
      local x = '<animation length="100"><head><pitch>' .. kfs(30) .. "</pitch></head></animation>"
      assert.are.equal("x.xml: line 1: too many elements (more than 20, anim.limits.keys)",
        refused(with_limits({ keys = 20 }, function() return anim.decode_xml(x, "x.xml") end)))
      assert.is_truthy(with_limits({ keys = 40 }, function() return anim.decode_xml(x, "x.xml") end))
      local junk = "<animation>" .. string.rep("<a/>", 50) .. "</animation>"
      assert.are.equal("x.xml: line 1: too many elements (more than 40, anim.limits.keys)",
        refused(with_limits({ keys = 40 }, function() return anim.decode_xml(junk, "x.xml") end)))
      -- a transformation of length 0.01 in an animation of 1e300 s (the
      -- count of repetitions is not even an integer)
      local huge = '<animation length="1e300"><head><pitch length="0.01"><keyframe>0</keyframe>'
        .. '<keyframe t="0.005">1</keyframe></pitch><roll><keyframe>0</keyframe></roll></head></animation>'
      assert.are.equal("x.xml: animation/head/pitch (line 1): length 0.01 repeats 1e+302 times in the animation's"
        .. " 1e+300 s: too many keys (at most 1000000, anim.limits.keys)", refused(anim.decode_xml(huge, "x.xml")))
    end)

    it("Blockbench: baking shares the limit among the channels of the file's clips (not each clip)", function()
      local function doc(na, nb)
        local anims = {}
        for a = 1, na do
          anims[a] = string.format('"a%d": {"loop": true, "animation_length": 4, "bones": {', a)
            .. joints_json(nb, '"b%d": {"rotation": {"0": ["math.sin(query.anim_time * 360) * 90", 0, 0]}}') .. "}}"
        end
        return '{"format_version": "1.8.0", "animations": {' .. table.concat(anims, ",") .. "}}"
      end
      local one = assert(anim.decode_blockbench(doc(1, 1), "b.json")).a1
      local per = #core.clip_info(one).source.joints.b1.rotation -- keys one channel bakes to
      assert.is_true(per > 100, per)
      local limit = per + math.floor(per / 2)
      -- two channels of one clip, and two clips of one channel each: the
      -- second channel gets what the first leaves, in both
      for _, case in ipairs { { 1, 2, "a1", "b2" }, { 2, 1, "a2", "b1" } } do
        local clips, w = with_limits({ keys = limit }, function() return anim.decode_blockbench(doc(case[1], case[2]), "b.json") end)
        assert.is_nil(clips[case[3]])
        assert.are.equal(1, #w)
        assert.are.equal(string.format('animations.%s.bones.%s.rotation["0"][1]', case[3], case[4]), w[1].channel)
        assert.are.equal(string.format("not imported: animation '%s', bone '%s', rotation x:", case[3], case[4])
          .. " Molang 'math.sin(query.anim_time * 360) * 90' changes too fast to bake: more than " .. (limit - per)
          .. " keys on the channel (what anim.limits.keys leaves for the file's clips) would be needed to stay within"
          .. " 0.01 from 0 to 4 s", w[1].message)
      end
    end)

    it("Blockbench: a length of 1e300 is baked within the cap, not over 1e300 s", function()
      local text = '{"format_version": "1.8.0", "animations": {"a": {"animation_length": 1e300, "bones": {"b": '
        .. '{"rotation": {"0": ["math.sin(query.anim_time * 100)", 0, 0]}}}}}}'
      local err = not_imported("b.json")(with_limits({ keys = 2000 }, function()
        return bounded(200, function() return anim.decode_blockbench(text, "b.json") end)
      end))
      assert.truthy(err:find("changes too fast to bake: more than 2000 keys on the channel", 1, true), err)
    end)

    it("Molang: periods far shorter than the span looked through do not make the import loop for ever", function()
      -- eight incommensurate periods of a few picoseconds: without a bound
      -- on the spans tried, about 3e10 of them
      local terms = {}
      for i, p in ipairs { 2, 3, 5, 7, 11, 13, 17, 19 } do
        terms[i] = string.format("math.sin(query.anim_time * %.12g)", 1e12 * math.sqrt(p))
      end
      local text = '{"format_version": "1.8.0", "animations": {"a": {"loop": true, "bones": {"b": '
        .. '{"rotation": {"0": ["' .. table.concat(terms, " + ") .. '", 0, 0]}}}}}}'
      local err = not_imported("b.json")(with_limits({ keys = 1000 }, function()
        return bounded(300, function() return anim.decode_blockbench(text, "b.json") end)
      end))
      assert.truthy(err:find("changes too fast to bake", 1, true), err)
    end)
  end)

  describe("strings", function()
    it("any string a file keeps: a name, a value, a payload, an unknown field, a key", function()
      local long = string.rep("s", 40)
      with_limits({ strings = 32 }, function()
        assert.are.equal("s.anim: markers[1].name: string too long (40 bytes; at most 32, anim.limits.strings)",
          refused(anim.decode('{"joints": {}, "markers": [{"time": 0, "name": "' .. long .. '"}]}', "s.anim")))
        assert.are.equal("s.anim: events[1].payload.text: string too long (40 bytes; at most 32, anim.limits.strings)",
          refused(anim.decode('{"joints": {}, "events": [{"time": 0, "name": "e", "payload": {"text": "'
            .. long .. '"}}]}', "s.anim")))
        assert.are.equal("s.anim: editor: string too long (40 bytes; at most 32, anim.limits.strings)",
          refused(anim.decode('{"joints": {}, "editor": "' .. long .. '"}', "s.anim")))
        -- a key is named by its start and its length
        local key = string.rep("k", 70)
        assert.are.equal('s.anim: joints: key too long (70 bytes; at most 32, anim.limits.strings)',
          refused(anim.decode('{"joints": {"' .. key .. '": {}}}', "s.anim")))
        assert.are.equal('r: joints: key too long (40 bytes; at most 32, anim.limits.strings)',
          refused(anim.decode_retarget('{"version": 1, "joints": {"' .. long .. '": "a"}}', "r")))
      end)
      assert.is_truthy(anim.decode('{"joints": {}, "editor": "' .. long .. '"}', "s.anim"))
    end)

    it("a long key in a message is cut short, with its length", function()
      local key = string.rep("k", 100)
      assert.are.equal('s.anim: joints["' .. string.rep("k", 60) .. '"... (100 bytes)]: joint must be an object, got number',
        refused(anim.decode('{"joints": {"' .. key .. '": 5}}', "s.anim")))
    end)
  end)

  describe("joints", function()
    it("of a clip (both layouts), its skeleton and its mask", function()
      with_limits({ joints = 3 }, function()
        assert.are.equal("j.anim: joints: too many joints (4; at most 3, anim.limits.joints)",
          refused(anim.decode('{"joints": {' .. joints_json(4, '"j%d": {}') .. "}}", "j.anim")))
        assert.are.equal("j.anim: keyframes: too many joints (4; at most 3, anim.limits.joints)",
          refused(anim.decode('{"keyframes": [{"time": 0, "poses": {' .. joints_json(4, '"j%d": {}') .. "}}]}", "j.anim")))
        assert.are.equal("j.anim: skeleton: too many joints (4; at most 3, anim.limits.joints)",
          refused(anim.decode('{"joints": {}, "skeleton": {' .. joints_json(4, '"j%d": {}') .. "}}", "j.anim")))
        assert.are.equal("j.anim: mask: too many joints (4; at most 3, anim.limits.joints)",
          refused(anim.decode('{"joints": {}, "mask": "a b c d"}', "j.anim")))
        assert.are.equal("r: joints: too many joints (4; at most 3, anim.limits.joints)",
          refused(anim.decode_retarget('{"version": 1, "joints": {' .. joints_json(4, '"j%d": "a"') .. "}}", "r")))
        assert.is_truthy(anim.decode('{"joints": {' .. joints_json(3, '"j%d": {}') .. "}}", "j.anim"))
      end)
    end)
  end)

  describe("items", function()
    it("markers, events, sounds and plays together, checked before any is read", function()
      local text = '{"joints": {}, "markers": [' .. joints_json(6, '{"time": %d, "name": "m"}')
        .. '], "sounds": [' .. joints_json(5, '{"time": %d, "sound": "s"}') .. "]}"
      assert.is_truthy(with_limits({ items = 11 }, function() return anim.decode(text, "i.anim") end))
      assert.are.equal("i.anim: sounds: too many timed items: markers, events, sounds and plays would be 11"
        .. " (at most 10, anim.limits.items)",
        refused(with_limits({ items = 10 }, function() return anim.decode(text, "i.anim") end)))
      -- an importer's clip: reported at the animation it is made of
      local bedrock = '{"animations": {"a": {"sound_effects": {' .. joints_json(12, '"%d": {"effect": "s"}') .. "}}}}"
      assert.are.equal("b.json: animations.a: not imported: the clip made of animation 'a': sounds: too many timed items:"
        .. " markers, events, sounds and plays would be 12 (at most 10, anim.limits.items)",
        not_imported("b.json")(with_limits({ items = 10 }, function() return anim.decode_blockbench(bedrock, "b.json") end)))
    end)
  end)

  describe("modifiers", function()
    it("curve modifiers of the whole clip", function()
      local mods = '{"position": [' .. joints_json(3, '{"type": "noise", "phase": %d}') .. "]}"
      local text = '{"joints": {"a": {"position": [[0, [0, 0, 0]]], "modifiers": ' .. mods
        .. '}, "b": {"position": [[0, [0, 0, 0]]], "modifiers": ' .. mods .. "}}}"
      assert.is_truthy(with_limits({ modifiers = 6 }, function() return anim.decode(text, "m.anim") end))
      assert.are.equal("m.anim: joints.b.modifiers.position: too many curve modifiers: the clip would have 6"
        .. " (at most 5, anim.limits.modifiers)",
        refused(with_limits({ modifiers = 5 }, function() return anim.decode(text, "m.anim") end)))
    end)
  end)
end)

describe("numbers in files", function()
  it("a literal too large for a double (1e999 reads as inf) is refused anywhere, by every reader", function()
    local function dec(field) return refused(anim.decode('{"joints": {}, ' .. field .. "}", "n.anim")) end
    assert.are.equal("n.anim: length: length must be a finite number, got inf", dec('"length": 1e999'))
    assert.are.equal("n.anim: editor.zoom[2]: number must be finite, got -inf", dec('"editor": {"zoom": [1, -1e999]}'))
    assert.are.equal("n.anim: events[1].payload.size: number must be finite, got inf",
      dec('"events": [{"time": 0, "name": "e", "payload": {"size": 1e999}}]'))
    assert.are.equal("r: scale: scale must be a finite number, got inf",
      refused(anim.decode_retarget('{"version": 1, "scale": 1e999}', "r")))
    assert.are.equal("r: editor: number must be finite, got inf",
      refused(anim.decode_retarget('{"version": 1, "editor": 1e999}', "r")))
    -- Blockbench files: the animation that holds it is not imported
    local bb = not_imported("b.json")
    assert.are.equal("b.json: animations.a.animation_length: not imported: animation_length must be a finite number, got inf",
      bb(anim.decode_blockbench('{"animations": {"a": {"animation_length": 1e999}}}', "b.json")))
    assert.are.equal('b.json: animations.a.bones.b.rotation["0"][1]: not imported: animation \'a\', bone \'b\', rotation x:'
      .. " value must be a finite number, got inf",
      bb(anim.decode_blockbench('{"animations": {"a": {"bones": {"b": {"rotation": {"0": [1e999, 0, 0]}}}}}}', "b.json")))
    assert.are.equal("b.json: animations.a.timeline[\"1e999\"]: not imported: animation 'a': time must be a number in a"
      .. " string like \"0.5\", got '1e999'",
      bb(anim.decode_blockbench('{"animations": {"a": {"timeline": {"1e999": "x"}}}}', "b.json")))
    assert.are.equal('x.xml: animation (line 1): length must be a finite number, got "1e999"',
      refused(anim.decode_xml('<animation length="1e999"/>', "x.xml")))
    assert.are.equal('x.xml: animation/head/pitch/keyframe[1] (line 1): time t must be a finite number, got "1e999"',
      refused(anim.decode_xml('<animation><head><pitch><keyframe t="1e999">1</keyframe></pitch></head></animation>', "x.xml")))
  end)

  it("NaN and Infinity are not JSON: refused as such", function()
    for _, lit in ipairs { "NaN", "Infinity", "-Infinity", "nan", "inf", "0x10" } do
      local err = refused(anim.decode('{"joints": {}, "x": ' .. lit .. "}", "n.anim"))
      assert.truthy(err:find("^n%.anim: not valid JSON: "), err)
    end
  end)

  it("a Lua table may hold non-JSON values in unknown fields (anim.encode refuses them later)", function()
    assert.is_truthy(anim.clip({ joints = {}, extra = { 0 / 0 } }, "c", { strict = false }))
  end)
  -- json.check (core.check_tree finds the place, json.lua words it): the
  -- two kinds of offence a decoded text cannot hold, for the tables the
  -- readers check
  it("the tree check names keys that are not strings or indices, and values JSON cannot hold", function()
    local json, E = require "anim.base.json", require "anim.base.errors"
    local function check(t) return select(2, E.catch("t", json.check, t)) end
    assert.are.equal("t: a.b: keys must be strings or array indices, got 1.5",
      check { a = { b = { [1.5] = 1 } } })
    assert.are.equal("t: a: keys must be strings or array indices, got boolean", check { a = { [true] = 1 } })
    assert.are.equal("t: a[2]: value must be a string, number, boolean, null, array or object, got function",
      check { a = { 1, print } })
    assert.are.equal("t: a[1]: number must be finite, got inf", check { a = { 1 / 0 } })
    assert.is_nil(check { a = { 1, "x", true, json.null, { b = 2 } } })
  end)
end)
