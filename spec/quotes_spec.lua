-- Every message that quotes a name or a value of a file, a state or a
-- script quotes it cut (issue 35): at most E.SHOWN (200) bytes of it,
-- control bytes escaped, and its length, whatever the source; the rule is
-- one, in C (csrc/lua/lua_shown.c), for the messages of both sides.  And
-- a misspelt name is matched against the known ones in bounded work,
-- however long both are.
require("anim.base.luajit").no_traversal_traces()
local anim = require "anim"
local E = require "anim.base.errors"
local cjson = require "cjson"
local molang = require "anim.import.blockbench.molang"
local cli_common = require "anim.tool.cli_common"
local H = require "spec.helper"

local MB = 1024 * 1024
local BIG = {
  { "1 MB of control bytes", string.rep("\1", MB) },
  { "1 MB of letters", string.rep("a", MB) },
}

-- The message of fn(): its second result (after nil), or what it raised
-- (but H.bounded's failure, which goes on up).
local function message(fn)
  local ok, a, b = pcall(fn)
  if not ok and tostring(a):find("instructions: not bounded", 1, true) then error(a, 0) end
  if not ok then return tostring(a) end
  assert(a == nil, "expected nil and a message, got " .. tostring(a))
  return b
end

-- A .anim text of version 3 with `extra` (a Lua table) merged in.
local function anim_text(extra)
  local t = { version = 3, length = 1, joints = { head = { position = { { 0, { 0, 0, 0 } } } } } }
  for k, v in pairs(extra) do t[k] = v end
  return cjson.encode(t)
end

local walk = assert(anim.clip({ length = 1, joints = { head = { position = { { 0, { 0, 0, 0 } } } } } }, "walk"))
local function animator() return anim.animator(anim.rig("player")) end

local function bedrock(anim_name, bone, value)
  return cjson.encode { format_version = "1.8.0", animations = { [anim_name] = {
    animation_length = 1, bones = { [bone] = { rotation = value } } } } }
end
-- The first warning of a Bedrock import, as the command prints it.
local function bedrock_warning(text)
  local clips, warnings = anim.decode_blockbench(text, "x.animation.json")
  assert(clips, warnings)
  assert(warnings[1], "no warning")
  return cli_common.warning_line("x.animation.json", warnings[1])
end

-- { what, fn(big) -> message, [only letters: true when the source cannot hold control bytes] }
local CASES = {
  -- a .anim file's values, names and fields
  { "a .anim priority", function(big) return message(function() return anim.decode(anim_text { priority = big }, "x.anim") end) end },
  { "a .anim euler order", function(big) return message(function() return anim.decode(anim_text { euler = big }, "x.anim") end) end },
  { "a .anim key's interpolation", function(big)
    return message(function() return anim.decode(anim_text { joints = { head = { position = { { 0, { 0, 0, 0 }, big } } } } }, "x.anim") end)
  end },
  { "a .anim key's ease", function(big)
    return message(function()
      return anim.decode(anim_text { joints = { head = { position = { { 0, { 0, 0, 0 }, "sine", { ease = big } } } } } }, "x.anim")
    end)
  end },
  { "a .anim skeleton's parent (a joint name)", function(big)
    return message(function() return anim.decode(anim_text { skeleton = { head = { parent = big } } }, "x.anim") end)
  end },
  { "a .anim modifiers' channel name", function(big)
    return message(function()
      return anim.decode(anim_text { joints = { head = { position = { { 0, { 0, 0, 0 } } }, modifiers = { [big] = {} } } } }, "x.anim")
    end)
  end },
  { "a field name of a script's clip", function(big)
    return message(function() return anim.clip({ length = 1, joints = {}, [big] = 1 }) end)
  end },
  { "a version 1 easing", function(big)
    return message(function()
      return anim.decode(cjson.encode { keyframes = { { time = 0, poses = { head = { easing = big } } } } }, "x.anim")
    end)
  end },
  { "a version 1 direction", function(big)
    return message(function()
      return anim.decode(cjson.encode { keyframes = { { time = 0, poses = { head = { direction = big } } } } }, "x.anim")
    end)
  end },
  { "a clip's field a script sets", function(big) return message(function() walk[big] = 1 end) end },
  -- a retarget map's name, and its file
  { "a retarget map's path without a library", function(big)
    return message(function() return animator():play(walk, { retarget = big }) end)
  end },
  { "a .retarget joint entry", function(big)
    return message(function() return anim.decode_retarget(cjson.encode { version = 1, joints = { [big] = 1 } }, "x.retarget") end)
  end },
  -- XML (names of elements hold no control bytes)
  { "an XML root element", function(big) return message(function() return anim.decode_xml("<" .. big .. "/>", "x.xml") end) end, true },
  { "an XML element the reader passes over", function(big)
    return message(function()
      return anim.decode_xml('<animation><' .. big .. '><head><pitch><keyframe t="x">0</keyframe></pitch></head></' .. big
        .. '></animation>', "x.xml")
    end)
  end, true },
  { "an XML attribute value", function(big)
    return message(function() return anim.decode_xml('<animation length="' .. big .. '"/>', "x.xml") end)
  end, true },
  -- Blockbench and Bedrock
  { "a Bedrock animation name", function(big) return bedrock_warning(bedrock(big, "b", "1 +")) end },
  { "a Bedrock bone name", function(big) return bedrock_warning(bedrock("a", big, "1 +")) end },
  { "a Bedrock Molang value", function(big) return bedrock_warning(bedrock("a", "b", big .. " +")) end },
  { "a Bedrock lerp_mode", function(big)
    return bedrock_warning(bedrock("a", "b", { ["0"] = { post = { 0, 0, 0 }, lerp_mode = big } }))
  end },
  { "a Bedrock key time", function(big) return bedrock_warning(bedrock("a", "b", { [big] = { 0, 0, 0 } })) end },
  { "a Molang expression", function(big) return select(2, molang.compile(big .. " +")) end },
  { "a Molang name", function(big)
    local e = assert(molang.compile("q." .. big))
    return e.notes[1]
  end, true },
  -- a rig's joint names
  { "a rig's duplicate joint name", function(big)
    return message(function() return anim.rig { joints = { { name = big }, { name = big } } } end)
  end },
  { "a rig joint's unknown parent", function(big)
    return message(function() return anim.rig { joints = { { name = "a", parent = big } } } end)
  end },
  { "an unknown built-in rig", function(big) return message(function() return anim.rig(big) end) end },
  { "a joint name read by the pose (C)", function(big) return message(function() return animator():get(big) end) end },
  { "a joint name of a root_motion option", function(big)
    return message(function() return anim.animator(anim.rig("player"), { root_motion = big }) end)
  end },
  { "a joint name of an override", function(big) return message(function() return animator():override(big, {}) end) end },
  -- names and values a script passes
  { "a play option's name", function(big) return message(function() return animator():play(walk, { [big] = 1 }) end) end },
  { "a play option's value", function(big) return message(function() return animator():play(walk, { priority = big }) end) end },
  { "an animator option's name", function(big)
    return message(function() return anim.animator(anim.rig("player"), { [big] = 1 }) end)
  end },
  { "an animator option's value", function(big)
    return message(function() return anim.animator(anim.rig("player"), { side = big }) end)
  end },
  { "an override field", function(big)
    return message(function() animator():override("head", { position = { 0, 0, 0 } })[big] = 1 end)
  end },
  { "an override option's value", function(big)
    return message(function() return animator():override("head", { mode = big }) end)
  end },
  { "a constraint field", function(big)
    return message(function() animator():aim { joint = "head", target = { 0, 0, 1 } }[big] = 1 end)
  end },
  { "an animator field", function(big) return message(function() animator()[big] = 1 end) end },
  { "a track field", function(big) return message(function() animator():play(walk)[big] = 1 end) end },
  { "a limit's name", function(big) return message(function() return anim.set_limits { [big] = 1 } end) end },
  { "a property name", function(big) return message(function() return animator():property(big) end) end },
  { "a pose's kind (C)", function(big) return message(function() return animator():pose_into({}, big) end) end },
  { "a __name of a script's table (Lua)", function(big)
    return message(function() return anim.animator(setmetatable({}, { __name = big })) end)
  end },
  { "a __name of a script's table (C)", function(big)
    local a = animator()
    return message(function() return a.get(setmetatable({}, { __name = big }), "head") end)
  end },
  -- a library's path
  { "a library path", function(big)
    local lib = assert(anim.library(H.tmpdir()))
    return message(function() return lib:clip("res://" .. big) end)
  end },
}

local function case_named(what)
  for _, c in ipairs(CASES) do if c[1] == what then return c end end
  error("no case " .. what)
end

describe("a name or value of 1 MB quoted by a message: 200 bytes of it at most, and its length (issue 35)", function()
  for _, case in ipairs(CASES) do
    for _, big in ipairs(BIG) do
      if not (case[3] and big[2]:find("\1", 1, true)) then
        it("(" .. case[1] .. ", " .. big[1] .. ")", function()
          local msg = H.bounded(3, function() return case[2](big[2]) end)
          assert.is_string(msg)
          assert.is_true(#msg < 600, #msg .. " bytes: " .. msg:sub(1, 300))
          assert.truthy(msg:find("%.%.%. %(%d+ bytes%)"), msg)
          assert.is_nil(msg:find("%c"), "a control byte in the message")
        end)
      end
    end
  end

  it("(10 MB of control bytes: a 40 MB message before, now under 600 bytes)", function()
    local big = string.rep("\1", 10 * MB)
    for _, fn in ipairs { case_named("a property name")[2], case_named("a joint name read by the pose (C)")[2],
                          case_named("a play option's name")[2] } do
      local msg = H.bounded(3, function() return fn(big) end)
      assert.is_true(#msg < 600, #msg .. " bytes")
      assert.truthy(msg:find("\\001\\001... (" .. 10 * MB .. " bytes)", 1, true), msg)
    end
  end)
end)

describe("the quoting rule, one for C and Lua (core.shown)", function()
  it("keeps a short name as it is, escapes control bytes, cuts a long one with its length", function()
    assert.are.equal("walk", E.shown("walk"))
    assert.are.equal("a\\nb\\tc\\000d\\127", E.shown("a\nb\tc\0d\127"))
    assert.are.equal("\\010\\000", E.cut("\n\0", true))
    assert.are.equal(string.rep("x", 200), E.shown(string.rep("x", 200)))
    assert.are.equal(string.rep("x", 197) .. "... (201 bytes)", E.shown(string.rep("x", 201)))
    -- 50 escapes of 4 bytes fit; 51 do not: 49 of them and the rest counted
    assert.are.equal(string.rep("\\001", 50), E.shown(string.rep("\1", 50)))
    assert.are.equal(string.rep("\\001", 49) .. "... (51 bytes)", E.shown(string.rep("\1", 51)))
  end)

  it("never cuts inside a UTF-8 character", function()
    local s = string.rep("x", 196) .. "é" .. "y"
    assert.are.equal(string.rep("x", 196) .. "... (201 bytes)", E.shown(s .. "zz"))
    assert.are.equal(string.rep("x", 195) .. "... (201 bytes)", E.shown(string.rep("x", 195) .. "€" .. "abc"))
    assert.are.equal(string.rep("x", 194) .. "€... (201 bytes)", E.shown(string.rep("x", 194) .. "€" .. "abcd"))
  end)

  it("is the binding's: the C messages quote as the Lua ones do", function()
    local big = string.rep("\1", 300)
    local msg = message(function() return animator():get(big) end)
    assert.truthy(msg:find("no joint '" .. E.shown(big) .. "' in rig 'player'", 1, true), msg)
  end)
end)

describe("a misspelt name against long names: no quadratic edit distance (issue 35)", function()
  local long = string.rep("a", 20000)
  local misspelt = string.rep("a", 19999) .. "b"

  it("(a root_motion joint of a rig whose joint is 20,000 bytes long)", function()
    local rig = assert(anim.rig { joints = { { name = long }, { name = "b", parent = long } } })
    -- (400 million steps of edit distance, minutes, before)
    local msg = H.bounded(3, function() return message(function() return anim.animator(rig, { root_motion = misspelt }) end) end)
    assert.truthy(msg:find("root_motion: unknown joint '" .. string.rep("a", 197) .. "... (20000 bytes)')", 1, true), msg)
  end)

  it("(a property of a clip named 20,000 bytes long)", function()
    local c = assert(anim.clip { length = 1, joints = {}, properties = { [long] = { { 0, 1 } } } })
    local a = animator()
    a:play(c)
    a:update(0)
    local msg = H.bounded(3, function() return message(function() return a:property(misspelt) end) end)
    assert.is_true(#msg < 800, #msg .. " bytes")
    assert.is_nil(msg:find("did you mean", 1, true), msg)
  end)

  it("(a joint name read by the pose, in C)", function()
    local rig = assert(anim.rig { joints = { { name = long } } })
    local a = anim.animator(rig)
    local msg = H.bounded(3, function() return message(function() return a:get(misspelt) end) end)
    assert.is_true(#msg < 600, #msg .. " bytes")
  end)

  it("(a 10 MB misspelt option name: a short message)", function()
    local msg = H.bounded(3, function() return message(function() return animator():play(walk, { [string.rep("w", 10 * MB)] = 1 }) end) end)
    assert.is_true(#msg < 600, #msg .. " bytes")
  end)

  it("(a misspelt root_motion against a rig of 16,384 names of 64 bytes alike: 9 s of edit distance before)", function()
    local joints = {}
    for i = 1, 16384 do joints[i] = { name = string.format("%064d", i) } end
    local rig = assert(anim.rig { joints = joints })
    local q = string.rep("0", 60) .. "wxyz"
    -- (the search stops once it has spent suggest.MAX_CELLS: about 22
    -- million instructions)
    local msg = H.bounded(40, function() return message(function() return anim.animator(rig, { root_motion = q }) end) end)
    assert.truthy(msg:find("root_motion: unknown joint '" .. q .. "'", 1, true), msg)
  end)

  it("(the joints of a clip that play on no joint of a rig: one budget for all, 12.6 s for 1,000 against 1,000)", function()
    local cj, rj = {}, {}
    for i = 1, 1000 do
      cj[string.format("c%08d", i)] = { position = { { 0, { 0, 0, 0 } } } }
      rj[i] = { name = string.format("r%08dx", i) }
    end
    local c = assert(anim.clip { length = 1, joints = cj })
    local rig = assert(anim.rig { joints = rj })
    local u = H.bounded(40, function() return require("anim.format.bind").unmatched(c, rig) end)
    assert.are.equal(1000, #u)
    assert.are.equal("r00000001x", u[1].suggestion) -- (the first ones still get theirs)
  end)

  it("a suggestion that differs only in letter case is quoted cut too", function()
    local rig = assert(anim.rig { joints = { { name = long } } })
    local msg = message(function() return anim.animator(rig, { root_motion = string.rep("A", 20000) }) end)
    assert.is_true(#msg < 600, #msg .. " bytes")
    assert.truthy(msg:find("did you mean '" .. string.rep("a", 197) .. "... (20000 bytes)'?", 1, true), msg)
  end)

  it("C and Lua suggest alike (the same rule, banded and bounded in both)", function()
    local suggest = require "anim.base.suggest"
    local seed = 5
    local function rnd(n) seed = (seed * 1103515245 + 12345) % 2147483648; return seed % n + 1 end
    local function word(n)
      local t = {}
      for i = 1, n do
        local k = rnd(5)
        t[i] = ("abABc"):sub(k, k)
      end
      return table.concat(t)
    end
    for _ = 1, 300 do
      local names, seen = {}, {}
      for _ = 1, rnd(12) do
        local n = word(rnd(8))
        if not seen[n] then seen[n], names[#names + 1] = true, n end
      end
      local joints = {}
      for i, n in ipairs(names) do joints[i] = { name = n } end
      local a = anim.animator(assert(anim.rig { joints = joints }))
      for _ = 1, 5 do
        local q = word(rnd(9))
        if not seen[q] then
          local c = select(2, pcall(a.get, a, q)):match("did you mean '(.-)'%?")
          assert.are.equal(suggest.closest(q, names), c, q .. " among " .. table.concat(names, ","))
        end
      end
    end
  end)

  it("still suggests for names of up to 64 bytes", function()
    local name = string.rep("j", 63) .. "x"
    local rig = assert(anim.rig { joints = { { name = name } } })
    local msg = message(function() return anim.animator(rig, { root_motion = string.rep("j", 63) .. "y" }) end)
    assert.truthy(msg:find("did you mean '" .. name .. "'?", 1, true), msg)
  end)
end)

describe("a path of many long keys: its first keys and its last, the middle said by its length (issue 35)", function()
  it("(a .anim's unknown fields nested 120 deep, each key 64 bytes: 9 kB of path before)", function()
    local t = {}
    local at = t
    for i = 1, 120 do
      local inner = {}
      at[string.rep(string.char(96 + i % 26), 63) .. "\1"] = inner
      at = inner
    end
    at.x = string.rep("s", 70000)
    local _, err = anim.decode(cjson.encode { version = 3, length = 1, joints = {}, extra = t }, "x.anim")
    assert.is_true(#err < 800, #err .. " bytes")
    assert.truthy(err:find("^x%.anim: extra%[\"aaaa"), err)
    assert.truthy(err:find("%.x %(a path of %d+ bytes%): string too long %(70000 bytes"), err)
  end)

  it("(XML elements nested 100 deep, each name 300 bytes: 30 kB of path before)", function()
    local open, close = {}, {}
    for i = 1, 100 do
      local n = string.rep(string.char(97 + i % 26), 300)
      open[i], close[101 - i] = "<" .. n .. ">", "</" .. n .. ">"
    end
    local text = '<animation>' .. table.concat(open) .. '<head><pitch><keyframe t="x">0</keyframe></pitch></head>'
      .. table.concat(close) .. '</animation>'
    local _, err = anim.decode_xml(text, "x.xml")
    assert.is_true(#err < 800, #err .. " bytes")
    assert.truthy(err:find("^x%.xml: animation %.%.%. /head/pitch/keyframe%[1%] %(line 1%) %(a path of %d+ bytes%): "
      .. "time t must be a number"), err)
  end)

  it("(a Bedrock warning's path, as the command prints it)", function()
    local bones = { [string.rep("b", 300)] = { rotation = "1 +" } }
    local text = cjson.encode { format_version = "1.8.0", animations = { [string.rep("a", 300)] = { bones = bones } } }
    local w = bedrock_warning(text)
    assert.is_true(#w < 1000, #w .. " bytes")
  end)
end)
