-- The `anim` command (bin/anim, lua/anim/cli.lua): every verb run as a
-- subprocess, from another directory and without LUA_PATH, as a user runs
-- it from the checkout; exit statuses, output, files written, and the
-- SVG pictures parsed with expat.
require("anim.base.luajit").no_traversal_traces()
local H = require "spec.helper"
local anim = require "anim"
local compat = require "anim.base.compat"

local q = H.sq

-- absolute: the commands run in temp directories
local ROOT = (function()
  local p = assert(io.popen("cd " .. q(H.root) .. " && pwd"))
  local d = p:read("*l")
  p:close()
  return d
end)()
local BIN = ROOT .. "/bin/anim"
local WALK = ROOT .. "/examples/clips/walk.anim"
local SHARED = (function()
  local p = assert(io.popen("cd " .. q(H.shared) .. " 2>/dev/null && pwd"))
  local d = p:read("*l")
  p:close()
  return d or H.shared
end)()

local tmp -- a fresh directory per test
before_each(function() tmp = H.tmpdir() end)
after_each(function() os.execute("rm -rf " .. q(tmp)) end)

-- (every variable by which Lua 5.1 to 5.4 take their module paths)
local NO_PATHS = "-u LUA_PATH -u LUA_CPATH -u LUA_PATH_5_4 -u LUA_CPATH_5_4 -u LUA_PATH_5_3 -u LUA_CPATH_5_3"
  .. " -u LUA_PATH_5_2 -u LUA_CPATH_5_2"

-- Runs `anim ARGS` (a shell fragment) in the temp dir with no LUA_PATH:
-- status, stdout, stderr.
local function run(args, env)
  local errf = tmp .. "/.stderr"
  local cmd = string.format("cd %s && env %s %s %s %s %s 2>%s",
    q(tmp), NO_PATHS, env or "", H.lua, q(BIN), args, q(errf))
  local out, code = H.popen(cmd)
  local err = H.read(errf)
  os.remove(errf)
  return code, out, err
end

local function lines(s)
  local out = {}
  for l in s:gmatch("([^\n]*)\n") do out[#out + 1] = l end
  return out
end

local function has_line(text, line)
  for _, l in ipairs(lines(text)) do if l == line then return true end end
  return false
end

local parse_xml = H.parse_xml

local function find_els(els, name, class)
  local out = {}
  for _, e in ipairs(els) do
    if (name == nil or e.name == name) and (class == nil or e.attrs.class == class) then out[#out + 1] = e end
  end
  return out
end

local function write_clip(name, text)
  local path = tmp .. "/" .. name
  H.write(path, text)
  return path
end

local VERBS = { "info", "validate", "convert", "sample", "plot", "sheet", "graph" }

describe("anim --help", function()
  it("prints the commands on stdout for --help, -h and help, status 0", function()
    for _, a in ipairs { "--help", "-h", "help" } do
      local code, out, err = run(a)
      assert.are.equal(0, code, a)
      assert.are.equal("", err)
      assert.truthy(out:find("usage: anim COMMAND", 1, true), a)
      for _, v in ipairs(VERBS) do assert.truthy(out:find("\n  " .. v .. " ", 1, true), v) end
    end
  end)

  it("prints each verb's usage for `help VERB` and `VERB --help`", function()
    for _, v in ipairs(VERBS) do
      for _, a in ipairs { "help " .. v, v .. " --help", v .. " -h" } do
        local code, out, err = run(a)
        assert.are.equal(0, code, a)
        assert.are.equal("", err, a)
        assert.truthy(out:find("usage: anim " .. v, 1, true), a .. ": " .. out)
        assert.truthy(out:find("exit status", 1, true), a)
      end
    end
  end)

  it("states the output naming rule of convert for Blockbench files", function()
    local _, out = run("convert --help")
    assert.truthy(out:find("knight.walk.anim", 1, true))
    assert.truthy(out:find("--animation NAME", 1, true))
  end)

  it("without a command prints the usage on stderr, status 2", function()
    local code, out, err = run("")
    assert.are.equal(2, code)
    assert.are.equal("", out)
    assert.truthy(err:find("usage: anim COMMAND", 1, true))
  end)
end)

describe("anim usage errors", function()
  it("refuse an unknown command, status 2", function()
    local code, out, err = run("frobnicate x")
    assert.are.equal(2, code)
    assert.are.equal("", out)
    assert.are.equal("anim: unknown command 'frobnicate' (the commands: info, validate, convert, compress, sample, plot, sheet, graph;"
      .. " see anim --help)\n", err)
    code, out, err = run("help frobnicate")
    assert.are.equal(2, code)
    assert.are.equal("", out)
    assert.are.equal("anim: unknown command 'frobnicate' (the commands: info, validate, convert, compress, sample, plot, sheet, graph)\n", err)
  end)

  it("refuse an unknown option, naming it", function()
    local code, out, err = run("info --bogus " .. q(WALK))
    assert.are.equal(2, code)
    assert.are.equal("", out)
    assert.are.equal("anim info: unknown option '--bogus' (see anim info --help)\n", err)
    code, out, err = run("sample -x " .. q(WALK))
    assert.are.equal(2, code)
    assert.are.equal("", out)
    assert.are.equal("anim sample: unknown option '-x' (see anim sample --help)\n", err)
  end)

  it("refuse an option without its value", function()
    local code, _, err = run("sample " .. q(WALK) .. " --at")
    assert.are.equal(2, code)
    assert.are.equal("anim sample: option '--at' needs a value (see anim sample --help)\n", err)
  end)

  it("refuse a wrong number of files", function()
    local code, _, err = run("info")
    assert.are.equal(2, code)
    assert.are.equal("anim info: expected one FILE, got 0 arguments (see anim info --help)\n", err)
    code, _, err = run("info a b")
    assert.are.equal(2, code)
    assert.are.equal("anim info: expected one FILE, got 2 arguments (see anim info --help)\n", err)
    code, _, err = run("validate")
    assert.are.equal(2, code)
    assert.are.equal("anim validate: expected at least one FILE or DIR (see anim validate --help)\n", err)
  end)

  it("take option values after = and arguments after --", function()
    local code, out = run("sample --at=0.25 --joint=torso -- " .. q(WALK))
    assert.are.equal(0, code)
    assert.truthy(out:find("\ntorso ", 1, true))
  end)
end)

describe("anim info", function()
  it("prints the playback fields, joints with channels and key counts, and timed items", function()
    local code, out, err = run("info " .. q(WALK))
    assert.are.equal(0, code, err)
    assert.are.equal("", err)
    for _, l in ipairs {
      WALK,
      "  version    3 (curves per joint)",
      "  length     1 s",
      "  loop       loop",
      "  priority   2 (movement)",
      "  speed      1",
      "  euler      yxz",
      "  blend      normal",
      "  space      body",
      "  mask       all joints",
      "  autoplay   false",
      "joints (5)",
      "  leftArm   rotation 3 keys (Euler)",
      "  torso     position 5 keys; weight 0.8",
      "markers (2)",
      "  0.25     step  right",
      "  0.75     step  left",
      "events (1)",
      '  0.5      dust  {"color": [0.6, 0.5, 0.4], "size": 0.3}  on both',
      "sounds (0)",
      "plays (0)",
      "editor (0)",
    } do
      assert.truthy(has_line(out, l), "missing line: " .. l .. "\n" .. out)
    end
  end)

  it("prints editor fields, unknown fields, modifiers, flags, sounds and plays", function()
    local path = write_clip("edit.anim", [=[{
      "version": 3, "rig": "player", "fps": 24, "viewModel": "res://hand.bbmodel", "custom": 1,
      "priority": 7.5, "mask": "head, torso", "space": "view", "speed": -2,
      "joints": { "head": { "rotation": [[0, [0, 0, 0, 1]], [1, [0, 1, 0, 0]]],
                            "scale": [[0, [1, 1, 1]]], "muted": true, "locked": true,
                            "interpolation": "bezier" },
                  "torso": { "position": [[0, [0, 0, 0]], [1, [0, 1, 0]]],
                             "modifiers": { "position": [{ "type": "noise" }, { "type": "limits", "max": 1 }] } } },
      "sounds": [{ "time": 0.5, "sound": "step", "volume": 0.5 }],
      "plays": [{ "time": 1, "clip": "res://next.anim", "fade": 0.3 }],
      "skeleton": { "head": { "position": [0, 1.5, 0] } }
    }]=])
    local code, out, err = run("info " .. q(path))
    assert.are.equal(0, code, err)
    for _, l in ipairs {
      "  priority   7.5",
      "  speed      -2",
      "  space      view",
      "  mask       head, torso",
      "  head      rotation 2 keys (quaternion), scale 1 key; muted, locked, new keys bezier",
      "  torso     position 2 keys, 2 modifiers",
      "sounds (1)",
      "  0.5      step  volume 0.5  pitch 1",
      "plays (1)",
      "  1        res://next.anim  fade 0.3",
      "editor (5)",
      "  rig        player",
      "  fps        24",
      "  viewModel  res://hand.bbmodel",
      "  skeleton   1 joint",
      "  other      custom",
    } do
      assert.truthy(has_line(out, l), "missing line: " .. l .. "\n" .. out)
    end
  end)

  it("describes a version 1 clip by its keyframes", function()
    local path = write_clip("old.anim", [=[{ "looped": true, "keyframes": [
      { "time": 0, "poses": { "rightLeg": { "angles": [30, 0, 0] }, "torso": { "position": [0, 1, 0] } } },
      { "time": 1, "poses": { "rightLeg": { "angles": [-30, 0, 0] } } } ] }]=])
    local code, out = run("info " .. q(path))
    assert.are.equal(0, code)
    assert.truthy(has_line(out, "  version    1 (poses at keyframes)"), out)
    assert.truthy(has_line(out, "  loop       loop"), out)
    assert.truthy(has_line(out, "  rightLeg  rotation in 2 of 2 keyframes"), out)
    assert.truthy(has_line(out, "  torso     position in 1 of 2 keyframes"), out)
  end)

  it("describes an .animc file: rate, bytes, the error bound and measured errors, channels by kind, keys", function()
    -- hips and far move linearly (2 keys: cheaper as float32), head turns
    -- and back (3 keys) with a scale at rest, spine holds a turn (1 key)
    local clip = assert(anim.clip({ version = 3, length = 1, loop = "loop", joints = {
      hips = { position = { { 0, { 0, 0, 0 } }, { 1, { 0.3, 0.6, 0.9 } } } },
      spine = { rotation = { { 0, { 0, 40, 0 } }, { 1, { 0, 40, 0 } } } },
      head = { rotation = { { 0, { 0, 0, 0 } }, { 0.5, { 30, 0, 0 } }, { 1, { 0, 0, 0 } } },
        scale = { { 0, { 1, 1, 1 } }, { 1, { 1, 1, 1 } } }, weight = 0.5 },
      far = { position = { { 0, { 0, 0, 0 } }, { 1, { 5000, 0, 0 } } } },
      still = {},
    }, markers = { { time = 0.5, name = "mid" } } }, "probe"))
    local path = tmp .. "/probe.animc"
    assert(anim.save(assert(anim.compress(clip)), path))
    local f = assert(anim.load(path)):compression()
    local code, out, err = run("info " .. q(path))
    assert.are.equal(0, code, err)
    assert.are.equal("", err)
    -- (the header: 16 bytes and one a joint; a wide key 12 or 16 bytes
    -- after its channel's count and frames; the narrow rotation's bits
    -- as the pack chose them, its bytes the rest)
    local ch = require("anim.format.animc").channels(assert(anim.load(path)))
    local head
    for i, n in ipairs(assert(anim.load(path)):joints()) do if n == "head" then head = ch.joints[i].rotation end end
    -- (a wide channel: its count 1 byte; two keys: the first frame 2, db 1, the least delta 1,
    -- no delta bits, 2 x 12; one key: no frames, 16)
    local wide = 29 + 29 + 17
    assert.are.equal("narrow", head.kind)
    assert.are.equal(f.bytes - 21 - wide, head.bytes)
    for _, l in ipairs {
      "  version    3 (compressed: linear keys at frames)",
      "compressed",
      "  rate       20 frames a second (frames 0 to 20)",
      string.format("  bytes      %d raw (10 float32 a joint at each of the densest channel's key times), %d packed,"
        .. " ratio %.2f:1", f.bytes_raw, f.bytes, f.ratio),
      "  file       " .. #H.read(path) .. " bytes",
      string.format("  error      worst %.3g, 99th percentile %.3g on the rig's joints (the bound 0.001 at distance 0.1)",
        f.worst, f.p99),
      "  channels   1 narrow (bits a number chosen per channel; rotations: three components, the fourth rebuilt),"
        .. " 3 wide (float32), 1 identity, 10 absent",
      "  keys       8 (" .. (f.bytes - 21) .. " bytes in channels, 21 bytes of header)",
      "joints (5)",
      "  far       position 2 keys, float32 (29 bytes)",
      string.format("  head      rotation 3 keys, x, y, z at %s bits, w rebuilt (%d bytes), scale identity (no bytes);"
        .. " weight 0.5", table.concat(head.bits, ", "), head.bytes),
      "  hips      position 2 keys, float32 (29 bytes)",
      "  spine     rotation 1 key, float32 (17 bytes)",
      "  still     no channels (its rest)",
      "markers (1)",
    } do
      assert.truthy(has_line(out, l), "missing line: " .. l .. "\n" .. out)
    end
    assert.is_true(f.worst <= 0.001 and f.bytes_raw == 480, out)
  end)

  it("reports a missing file on stderr with status 1", function()
    local code, out, err = run("info nowhere.anim")
    assert.are.equal(1, code)
    assert.are.equal("", out)
    assert.are.equal("anim info: nowhere.anim: cannot open file: No such file or directory\n", err)
  end)

  it("reports a file that does not load with the loader's message, status 1", function()
    local path = write_clip("bad.anim", '{"joints": {"a": {"rotation": [[0, [1, 2]]]}}}')
    local _, expected = anim.load(path)
    local code, out, err = run("info " .. q(path))
    assert.are.equal(1, code)
    assert.are.equal("", out)
    assert.are.equal("anim info: " .. expected .. "\n", err)
    assert.truthy(expected:find("joints.a.rotation[1][2]", 1, true))
  end)
end)

describe("anim validate", function()
  local GOOD = '{"joints": {"a": {"position": [[0, [0, 0, 0]], [1, [1, 1, 1]]]}}}'

  it("prints one `path: json.path: message` line per bad file in a folder tree, status 1", function()
    os.execute("mkdir -p " .. q(tmp .. "/clips/sub dir"))
    local files = {
      ["clips/a.anim"] = GOOD,
      ["clips/b.anim"] = '{"joints": {"a": {"rotation": [[0, [1, 2, 3]], [-1, [0, 0, 0]]]}}}',
      ["clips/sub dir/c'q.anim"] = '{"version": 9, "joints": {}}',
      ["clips/sub dir/d.anim"] = "not json",
      ["clips/sub dir/e.anim"] = GOOD,
      ["clips/notes.txt"] = "not a clip, and not checked",
    }
    for name, text in pairs(files) do H.write(tmp .. "/" .. name, text) end
    local code, out, err = run("validate clips")
    assert.are.equal(1, code)
    local expected = {}
    for _, name in ipairs { "clips/b.anim", "clips/sub dir/c'q.anim", "clips/sub dir/d.anim" } do
      local _, msg = anim.load(tmp .. "/" .. name)
      expected[#expected + 1] = msg:gsub("^" .. tmp:gsub("%p", "%%%0") .. "/", "")
    end
    assert.are.same(expected, lines(out))
    assert.are.equal("clips/b.anim: joints.a.rotation[2][1]: key times must not decrease (-1 comes after 0)", expected[1])
    -- the files of the tree that are not clip files are named, with why
    assert.are.equal("anim validate: skipped clips/notes.txt: not a clip file (.txt)\n"
      .. "anim validate: 5 files checked, 3 files with problems, 1 file skipped\n", err)
  end)

  it("prints nothing on stdout and exits 0 when every file loads", function()
    H.write(tmp .. "/a.anim", GOOD)
    H.write(tmp .. "/b.anim", GOOD)
    local code, out, err = run("validate a.anim b.anim " .. q(WALK))
    assert.are.equal(0, code)
    assert.are.equal("", out)
    assert.are.equal("anim validate: 3 files checked, all good\n", err)
  end)

  it("accepts property channels (an extension of this module), and names a bad one", function()
    H.write(tmp .. "/p.anim", '{"version": 3, "joints": {}, "properties": {"glow": [[0, 0], [1, 1, "sine"]],'
      .. ' "tint": {"keys": [[0, [1, 1, 1]], [0.5, [1, 0, 0], "step"]], "modifiers": [{"type": "noise", "axis": 2}]}}}')
    H.write(tmp .. "/q.anim", '{"version": 3, "joints": {}, "properties": {"tint": [[0, [1, 1, 1]], [0.5, [1, 0]]]}}')
    local code, out, err = run("validate p.anim q.anim")
    assert.are.equal(1, code)
    assert.are.equal("q.anim: properties.tint[2][2]: this value has 2 components, the first key's had 3 "
      .. "(a property keeps one number of components)\n", out)
    assert.are.equal("anim validate: 2 files checked, 1 file with problems\n", err)
    code, out = run("info p.anim")
    assert.are.equal(0, code)
    assert.is_true(has_line(out, "properties (2)"))
    assert.is_true(has_line(out, "  glow      1 component, 2 keys"))
    assert.is_true(has_line(out, "  tint      3 components, 2 keys, 1 modifier"))
  end)

  it("reads the JSON of an Aseprite sheet: a clip per tag, and all", function()
    os.execute("cp " .. q(ROOT .. "/examples/clips/slime.json") .. " " .. q(tmp .. "/slime.json"))
    local code, out, err = run("validate slime.json")
    assert.are.equal(0, code, err)
    assert.are.equal("", out)
    code, out = run("info slime.json --animation hop")
    assert.are.equal(0, code)
    assert.is_true(has_line(out, "slime.json  animation hop"))
    assert.is_true(has_line(out, "  loop       once"))
    assert.is_true(has_line(out, "  frame     1 component, 3 keys"))
    H.write(tmp .. "/bad.aseprite.json", '{"frames": [{"frame": {"x": 0, "y": 0, "w": 1, "h": 1}, "duration": 0}]}')
    code, out = run("validate bad.aseprite.json")
    assert.are.equal(1, code)
    assert.are.equal("bad.aseprite.json: frames[1].duration: a frame's duration must be more than 0 ms, got 0\n", out)
  end)

  it("counts a path that does not exist as a problem", function()
    local code, out = run("validate " .. q(WALK) .. " missing.anim")
    assert.are.equal(1, code)
    assert.are.equal("missing.anim: cannot open file: No such file or directory\n", out)
  end)

  it("says so on stderr when a folder holds no clips, and does not fail", function()
    os.execute("mkdir " .. q(tmp .. "/empty"))
    local code, out, err = run("validate empty")
    assert.are.equal(0, code)
    assert.are.equal("", out)
    assert.are.equal("anim validate: empty: no clip files in it\nanim validate: 0 files checked, all good\n", err)
  end)

  it("checks legacy XML files in a folder when the XML importer is there", function()
    if not pcall(require, "anim.import.xml") then pending("anim.xml does not load here") return end
    os.execute("mkdir " .. q(tmp .. "/x"))
    H.write(tmp .. "/x/ok.xml", '<animation length="1"><head><pitch><keyframe t="0">0</keyframe>' ..
      '<keyframe t="1">10</keyframe></pitch></head></animation>')
    H.write(tmp .. "/x/broken.xml", "<animation")
    local _, msg = anim.import_xml(tmp .. "/x/broken.xml")
    local code, out, err = run("validate x")
    assert.are.equal(1, code)
    assert.are.equal(msg:gsub("^" .. tmp:gsub("%p", "%%%0") .. "/", "") .. "\n", out)
    assert.are.equal("anim validate: 2 files checked, 1 file with problems\n", err)
  end)

  it("checks Blockbench files in a folder when the Blockbench importer is there", function()
    if not anim.import_blockbench then pending("no anim.import_blockbench here") return end
    os.execute("mkdir " .. q(tmp .. "/bb"))
    os.execute("cp " .. q(SHARED .. "/data/blockbench/hephaestus-engine/geometry.bbmodel") .. " " .. q(tmp .. "/bb/"))
    H.write(tmp .. "/bb/broken.bbmodel", "{")
    H.write(tmp .. "/bb/broken.animation.json", "[]")
    local code, out, err = run("validate bb")
    assert.are.equal(1, code)
    local expected = {}
    for _, name in ipairs { "bb/broken.animation.json", "bb/broken.bbmodel" } do
      local _, msg = anim.import_blockbench(tmp .. "/" .. name)
      expected[#expected + 1] = msg:gsub("^" .. tmp:gsub("%p", "%%%0") .. "/", "")
    end
    assert.are.same(expected, lines(out))
    assert.are.equal("anim validate: 3 files checked, 2 files with problems\n", err)
  end)

  it("follows symbolic links to folders and files, and reports links that lead nowhere", function()
    os.execute("mkdir -p " .. q(tmp .. "/real/sub") .. " " .. q(tmp .. "/other"))
    H.write(tmp .. "/real/good.anim", GOOD)
    H.write(tmp .. "/real/sub/bad.anim", "not json")
    H.write(tmp .. "/elsewhere.anim", "{")
    os.execute(table.concat({
      "cd " .. q(tmp),
      "ln -s real link",                      -- a link to a folder, given as the argument
      "ln -s ../real other/inner",            -- a link to a folder inside a folder
      "ln -s ../elsewhere.anim other/f.anim", -- a link to a file
      "ln -s nowhere.anim other/gone.anim",   -- a link that leads nowhere
    }, " && "))
    local _, bad = anim.load(tmp .. "/real/sub/bad.anim")
    local _, brace = anim.load(tmp .. "/elsewhere.anim")
    local function rel(msg, path) return path .. msg:match("^.-(: .*)$") end
    local code, out, err = run("validate link")
    assert.are.equal(1, code)
    assert.are.same({ rel(bad, "link/sub/bad.anim") }, lines(out))
    assert.are.equal("anim validate: 2 files checked, 1 file with problems\n", err)
    code, out, err = run("validate other")
    assert.are.equal(1, code)
    assert.are.same({
      rel(brace, "other/f.anim"),
      "other/gone.anim: cannot open file: No such file or directory",
      rel(bad, "other/inner/sub/bad.anim"),
    }, lines(out))
    assert.are.equal("anim validate: 4 files checked, 3 files with problems\n", err)
  end)

  it("prints each problem on one line, control characters escaped, and paths never hold a raw newline", function()
    local E = require "anim.base.errors"
    assert.are.equal('joints["a\\nb"]', E.key("joints", "a\nb"))
    assert.are.equal('j["q\\"\\\\\\t\\001\\r"]', E.key("j", 'q"\\\t\1\r'))
    -- a joint named "a\nb" with keys out of order; a file whose name holds
    -- a newline; Molang text with a newline in it
    write_clip("joint.anim", '{"joints": {"a\\nb": {"rotation": [[0, [1, 2, 3]], [-1, [0, 0, 0]]]}}}')
    write_clip("new\nline.anim", "{")
    local files = { "joint.anim", "new\nline.anim" }
    if anim.import_blockbench then
      write_clip("m.animation.json", '{"animations": {"a": {"bones": {"b": {"rotation": [0, 0, "v.x\\n+"]}}}}}')
      files[#files + 1] = "m.animation.json"
    end
    local code, out, err = run("validate " .. table.concat((function()
      local qs = {}
      for i, f in ipairs(files) do qs[i] = q(f) end
      return qs
    end)(), " "))
    assert.are.equal(1, code)
    local want = { "joint.anim: joints[\"a\\nb\"].rotation[2][1]: key times must not decrease (-1 comes after 0)" }
    if anim.import_blockbench then
      want[3] = "m.animation.json: animations.a.bones.b.rotation[3]: not imported: animation 'a', bone 'b', rotation z:" ..
        " cannot import Molang 'v.x\\n+': not an expression (stopped at column 5, '+')"
    end
    local _, msg = anim.load(tmp .. "/new\nline.anim")
    want[2] = "new\\nline.anim" .. msg:match("^.-line%.anim(: .*)$")
    assert.are.same(want, lines(out))
    assert.are.equal(string.format("anim validate: %d files checked, %d files with problems%s\n", #files, #files,
      anim.import_blockbench and " (1 warning)" or ""), err)
  end)

  it("checks every file after a Molang refusal, and prints the warnings of those that import", function()
    if not anim.import_blockbench then pending("no anim.import_blockbench here") return end
    os.execute("mkdir " .. q(tmp .. "/m"))
    -- math.mod by zero is nan (floats, not a Lua error), which Blockbench reads as 0
    H.write(tmp .. "/m/a.animation.json", '{"animations": {"a": {"bones": {"b": {"rotation": [0, 0, "math.mod(5, 0)"]}}}}}')
    H.write(tmp .. "/m/b.anim", "{")
    H.write(tmp .. "/m/c.animation.json", '{"animations": {"c": {"bones": {"b": {"rotation": [0, 0, "1/0"]}}}}}')
    local code, out, err = run("validate m")
    assert.are.equal(1, code)
    local ls = lines(out)
    assert.are.equal(3, #ls)
    assert.are.equal("m/a.animation.json: animations.a.bones.b.rotation: animation 'a', bone 'b', rotation:" ..
      " Molang 'math.mod(5, 0)' evaluates to nan: read as 0 (as Blockbench reads it)", ls[1])
    assert.truthy(ls[2]:find("^m/b%.anim: "))
    assert.are.equal("m/c.animation.json: animations.c.bones.b.rotation[3]: not imported: animation 'c', bone 'b'," ..
      " rotation z: Molang '1/0' evaluates to inf", ls[3])
    assert.are.equal("anim validate: 3 files checked, 2 files with problems (2 warnings)\n", err)
  end)

  it("picks the importer by content, not by the file's name", function()
    if not anim.import_blockbench then pending("no anim.import_blockbench here") return end
    os.execute("mkdir " .. q(tmp .. "/c"))
    local bedrock = '{"format_version": "1.8.0", "animations": {"wave": {"animation_length": 1, "bones": {"head":'
      .. ' {"rotation": {"0": [0, 0, 0], "1": [0, 0, 90]}}}}}}'
    -- a Bedrock file named .anim, one named .txt.json, one with comments and a byte-order mark
    H.write(tmp .. "/c/wave.anim", bedrock)
    H.write(tmp .. "/c/plain.json", bedrock)
    H.write(tmp .. "/c/commented.json", "\239\187\191// made by hand\n" .. bedrock)
    -- a .anim clip named .bbmodel, an XML animation named .json, and a JSON
    -- that is none of them (a pack's manifest: not a clip file)
    H.write(tmp .. "/c/clip.bbmodel", GOOD)
    H.write(tmp .. "/c/legacy.json", '<animation length="1"><head><pitch><keyframe t="0">0</keyframe>'
      .. '<keyframe t="1">10</keyframe></pitch></head></animation>')
    H.write(tmp .. "/c/manifest.json", '{"header": {"name": "pack"}}')
    for _, f in ipairs { "wave.anim", "plain.json", "commented.json" } do
      local code, out = run("info c/" .. f)
      assert.are.equal(0, code, f)
      assert.truthy(has_line(out, "c/" .. f .. "  animation wave"), out)
    end
    local code, out = run("info c/clip.bbmodel")
    assert.are.equal(0, code)
    assert.truthy(out:find("curves per joint", 1, true), out)
    code = run("info c/legacy.json")
    assert.are.equal(0, code)
    local err
    code, out, err = run("validate c")
    assert.are.equal(0, code, out)
    assert.are.equal("", out)
    assert.are.equal("anim validate: skipped c/manifest.json: JSON, but neither a clip, a retarget map, a Blockbench"
      .. " or Bedrock file nor an Aseprite sheet\nanim validate: 5 files checked, all good, 1 file skipped\n", err)
  end)

  it("prints an import's warnings in info and convert", function()
    if not anim.import_blockbench then pending("no anim.import_blockbench here") return end
    H.write(tmp .. "/w.animation.json", '{"format_version": "1.8.0", "animations": {"a": {"animation_length": 1,'
      .. ' "bones": {"b": {"rotation": ["q.life_time * 90", 0, 0]}}}, "z": {"bones": {"b": {"position": [0, "1 +", 0]}}}}}')
    local W1 = "w.animation.json: animations.a.bones.b.rotation: animation 'a', bone 'b', rotation: query.life_time"
      .. " read as the animation's time (as Blockbench previews it)"
    local W2 = "w.animation.json: animations.z.bones.b.position[2]: not imported: animation 'z', bone 'b', position y:"
      .. " cannot import Molang '1 +': not an expression (stopped at column 3, '+')"
    local code, out = run("info w.animation.json")
    assert.are.equal(0, code)
    assert.truthy(has_line(out, "warnings (2)"), out)
    assert.truthy(has_line(out, "  " .. W1), out)
    assert.truthy(has_line(out, "  " .. W2), out)
    local _, err
    code, _, err = run("convert w.animation.json -o w.anim")
    assert.are.equal(0, code, err)
    assert.truthy(has_line(err, "anim convert: " .. W1), err)
    assert.truthy(has_line(err, "anim convert: " .. W2), err)
    assert.truthy(anim.load(tmp .. "/w.a.anim"))
  end)

  it("is fast on a folder of 2000 clips (the time is printed, not asserted)", function()
    os.execute("mkdir " .. q(tmp .. "/many"))
    local walk = H.read(WALK)
    for i = 1, 2000 do
      H.write(string.format("%s/many/clip%04d.anim", tmp, i), i % 500 == 0 and "{" or walk)
    end
    local function now()
      local p = assert(io.popen("date +%s.%N"))
      local t = tonumber(p:read("*l"))
      p:close()
      return t
    end
    local t0 = now()
    local code, out = run("validate many")
    local t1 = now()
    assert.are.equal(1, code)
    assert.are.equal(4, #lines(out)) -- clips 500, 1000, 1500 and 2000 are "{"
    print(string.format("\n  anim validate: 2000 clips (walk.anim) in %.2f s", t1 - t0))
  end)
end)

-- The largest difference between two clips' samples over [0, length].
local function sample_diff(a, b)
  local worst = 0
  for i = 0, 40 do
    local t = a.length * i / 40
    local pa, pb = a:sample(t), b:sample(t)
    for j, x in pairs(pa) do
      local y = assert(pb[j], "joint " .. j .. " missing")
      if x.position then worst = math.max(worst, H.maxdiff(x.position, y.position)) end
      if x.rotation then worst = math.max(worst, H.quatdiff(x.rotation, y.rotation)) end
      if x.scale then worst = math.max(worst, H.maxdiff(x.scale, y.scale)) end
    end
  end
  return worst
end

describe("anim convert", function()
  it("writes a version 3 file that loads and samples like the input", function()
    local code, out, err = run("convert " .. q(WALK) .. " -o out.anim")
    assert.are.equal(0, code, err)
    assert.are.equal("", out)
    assert.are.equal("anim convert: " .. WALK .. " -> out.anim\n", err)
    local a, b = assert(anim.load(WALK)), assert(anim.load(tmp .. "/out.anim"))
    assert.are.equal(3, b.version)
    assert.are.equal(0, sample_diff(a, b))
    assert.are.same(a:markers(), b:markers())
    -- atomic: no temporary file is left beside it
    assert.are.same({ "out.anim" }, H.ls(tmp))
  end)

  it("writes the animations of a glTF file as .anim files, and clips as a .glb", function()
    local fox = SHARED .. "/data/gltf/Fox/glTF-Binary/Fox.glb"
    -- (exact: --exact, else the Fox's dense keys are reduced within the bound)
    local code, _, err = run("convert " .. q(fox) .. " -o fox.anim --exact")
    assert.are.equal(0, code, err)
    assert.are.same({ "fox.Run.anim", "fox.Survey.anim", "fox.Walk.anim" }, H.ls(tmp))
    local r = assert(anim.import_gltf(fox))
    local run_clip = assert(anim.load(tmp .. "/fox.Run.anim"))
    assert.is_true(run_clip.absolute)
    assert.are.equal(0, sample_diff(r.clips.Run, run_clip))
    -- and back: one .glb of the three, exact
    code, _, err = run("convert fox.Run.anim -o run.glb --exact")
    assert.are.equal(0, code, err)
    assert.are.equal("anim convert: fox.Run.anim -> run.glb\n", err)
    local back = assert(anim.import_gltf(tmp .. "/run.glb"))
    assert.is_true(sample_diff(r.clips.Run, back.clips["fox.Run"]) <= 1e-6)
    -- a clip with no skeleton goes on the player rig; what is baked is said
    code, _, err = run("convert " .. q(WALK) .. " -o walk.gltf")
    assert.are.equal(0, code, err)
    assert.matches("anim convert: walk.gltf: clip " .. WALK:gsub("%p", "%%%0") ..
      ", joint leftArm, rotation: approximated within [%d.e-]+ radians\n", err)
    local w = assert(anim.import_gltf(tmp .. "/walk.gltf"))
    assert.are.same({ "leftArm", "leftLeg", "rightArm", "rightLeg", "torso" }, w.clips.walk:joints())
    assert.is_truthy(w.rig:has("head"))
  end)

  it("turns a version 1 clip into version 3", function()
    local path = write_clip("old.anim", [=[{ "looped": true, "keyframes": [
      { "time": 0, "poses": { "rightLeg": { "angles": [30, 0, 0], "easing": "sine" } } },
      { "time": 1, "poses": { "rightLeg": { "angles": [-30, 0, 0] } } } ] }]=])
    local code = run("convert old.anim -o new.anim")
    assert.are.equal(0, code)
    local a, b = assert(anim.load(path)), assert(anim.load(tmp .. "/new.anim"))
    assert.are.equal(1, a.version)
    assert.are.equal(3, b.version)
    assert.is_true(sample_diff(a, b) < 1e-12)
  end)

  it("writes the JSON to stdout with -o -", function()
    local code, out = run("convert " .. q(WALK) .. " -o -")
    assert.are.equal(0, code)
    local b = assert(anim.decode(out))
    assert.are.equal(0, sample_diff(assert(anim.load(WALK)), b))
  end)

  it("fails with status 1 when version 3 cannot hold the clip", function()
    write_clip("w.anim", [=[{ "keyframes": [
      { "time": 0, "poses": { "a": { "position": [0, 0, 0], "weight": 1 } } },
      { "time": 1, "poses": { "a": { "position": [0, 1, 0], "weight": 0.5 } } } ] }]=])
    local code, _, err = run("convert w.anim -o out.anim")
    assert.are.equal(1, code)
    assert.are.equal("anim convert: w.anim: cannot be written as version 3: the pose weight of joint 'a' varies over time"
      .. " (1 at keyframe 1, 0.5 at keyframe 2), and version 3 has no animated joint weight\n", err)
    assert.are.same({ "w.anim" }, H.ls(tmp))
  end)

  it("fails with status 1 when the output cannot be written", function()
    local code, _, err = run("convert " .. q(WALK) .. " -o no/such/dir/out.anim")
    -- the missing folders are made; a folder that cannot be made is a failure
    assert.are.equal(0, code, err)
    assert.is_truthy(anim.load(tmp .. "/no/such/dir/out.anim"))
    H.write(tmp .. "/file", "x")
    code, _, err = run("convert " .. q(WALK) .. " -o file/sub/out.anim")
    assert.are.equal(1, code)
    assert.are.equal("anim convert: cannot write file/sub/out.anim: cannot make the folder file/sub\n", err)
  end)

  it("needs -o", function()
    local code, _, err = run("convert " .. q(WALK))
    assert.are.equal(2, code)
    assert.are.equal("anim convert: missing -o OUT.anim (see anim convert --help)\n", err)
  end)

  it("reports an input that does not load with status 1", function()
    local code, _, err = run("convert missing.anim -o out.anim")
    assert.are.equal(1, code)
    assert.are.equal("anim convert: missing.anim: cannot open file: No such file or directory\n", err)
  end)

  it("prints an importer's approximation note on stderr", function()
    if not pcall(require, "anim.import.xml") then pending("anim.xml does not load here") return end
    local xml = SHARED .. "/data/xml/Minecraft-Skin-Viewer/sneak.xml"
    local c = assert(anim.import_xml(xml))
    local _, approx = anim.encode(c)
    assert.truthy(approx, "sneak.xml is expected to need an approximation")
    local code, _, err = run("convert " .. q(xml) .. " -o sneak.anim")
    assert.are.equal(0, code)
    assert.truthy(has_line(err, string.format("anim convert: sneak.anim: approximated within %.3g: %s", approx.bound, approx.note)), err)
    local b = assert(anim.load(tmp .. "/sneak.anim"))
    assert.is_true(sample_diff(c, b) < 1e-3)
  end)

  -- A Blockbench file holds several animations.  The importer is another
  -- module (anim.import_blockbench); here a stand-in returning two clips
  -- checks the command's own rule for naming the outputs.
  local function run_with_importer(args, importer)
    local script = tmp .. "/with_importer.lua"
    H.write(script, string.format([==[
      package.path = %q .. "/lua/?.lua;" .. %q .. "/lua/?/init.lua;" .. package.path
      package.cpath = %q .. "/]==] .. H.build .. [==[/?.so;" .. package.cpath
      local anim = require "anim"
      anim.import_blockbench = function(path)
        local walk = assert(anim.load(%q))
        local other = assert(anim.decode('{"joints": {"head": {"position": [[0, [0, 0, 0]], [1, [0, 1, 0]]]}}}'))
        return { walk = walk, ["idle/2 x"] = other }
      end
      %s
      os.exit(require("anim.tool.cli").main({ ... }))
    ]==], ROOT, ROOT, ROOT, WALK, importer or ""))
    local errf = tmp .. "/.err"
    local out, code = H.popen(string.format("cd %s && %s %s %s 2>%s", q(tmp), H.lua, q(script), args, q(errf)))
    return code, out, H.read(errf)
  end

  it("writes one file per animation of a Blockbench file, the name inserted before .anim", function()
    H.write(tmp .. "/knight.bbmodel", "{}")
    local code, _, err = run_with_importer("convert knight.bbmodel -o out/knight.anim") -- (out/ is made)
    assert.are.equal(0, code, err)
    assert.are.same({ "knight.idle_2_x.anim", "knight.walk.anim" }, H.ls(tmp .. "/out"))
    assert.are.equal(0, sample_diff(assert(anim.load(WALK)), assert(anim.load(tmp .. "/out/knight.walk.anim"))))
  end)

  it("writes only the animation --animation names, to OUT itself", function()
    H.write(tmp .. "/knight.bbmodel", "{}")
    local code = run_with_importer("convert knight.bbmodel -o one.anim --animation walk")
    assert.are.equal(0, code)
    assert.truthy(anim.load(tmp .. "/one.anim"))
    local err, out
    code, out, err = run_with_importer("convert knight.bbmodel -o one.anim --animation run")
    assert.are.equal(2, code)
    assert.are.equal("", out)
    assert.are.equal("anim convert: knight.bbmodel: no animation 'run' (it has: idle/2 x, walk) (see anim convert --help)\n", err)
  end)

  it("writes one animation of several to stdout only with --animation", function()
    H.write(tmp .. "/knight.bbmodel", "{}")
    local code, out, err = run_with_importer("convert knight.bbmodel -o -")
    assert.are.equal(2, code)
    assert.are.equal("", out)
    assert.are.equal("anim convert: knight.bbmodel holds 2 animations (idle/2 x, walk): pick one with --animation NAME"
      .. " (see anim convert --help)\n", err)
    code, out = run_with_importer("convert knight.bbmodel -o - --animation walk")
    assert.are.equal(0, code)
    assert.are.equal(0, sample_diff(assert(anim.load(WALK)), assert(anim.decode(out))))
  end)

  it("says when a Blockbench file holds no animations, or there is no importer", function()
    H.write(tmp .. "/knight.bbmodel", "{}")
    local code, out, err = run_with_importer("convert knight.bbmodel -o k.anim",
      "anim.import_blockbench = function() return {} end")
    assert.are.equal(1, code)
    assert.are.equal("", out)
    assert.are.equal("anim convert: knight.bbmodel: no animations in the file\n", err)
    code, out, err = run_with_importer("info knight.bbmodel", "anim.import_blockbench = nil")
    assert.are.equal(1, code)
    assert.are.equal("", out)
    assert.are.equal("anim info: knight.bbmodel: cannot read Blockbench files: this anim has no anim.import_blockbench\n", err)
    -- and a folder walk passes over such files
    os.execute("mkdir " .. q(tmp .. "/d") .. " && cp " .. q(tmp .. "/knight.bbmodel") .. " " .. q(tmp .. "/d/"))
    code, out, err = run_with_importer("validate d", "anim.import_blockbench = nil")
    assert.are.equal(0, code)
    assert.are.equal("", out)
    assert.are.equal("anim validate: d: no clip files in it\nanim validate: skipped d/knight.bbmodel: a Blockbench file,"
      .. " and this anim cannot import them\nanim validate: 0 files checked, all good, 1 file skipped\n", err)
  end)

  it("shows every animation of a file in info, or the one --animation names", function()
    H.write(tmp .. "/knight.bbmodel", "{}")
    local code, out = run_with_importer("info knight.bbmodel")
    assert.are.equal(0, code)
    assert.truthy(has_line(out, "knight.bbmodel  animation idle/2 x"), out)
    assert.truthy(has_line(out, "knight.bbmodel  animation walk"), out)
    code, out = run_with_importer("info knight.bbmodel --animation walk")
    assert.are.equal(0, code)
    assert.is_nil(out:find("idle/2 x", 1, true))
    assert.truthy(has_line(out, "knight.bbmodel  animation walk"), out)
    local err
    code, out, err = run_with_importer("info knight.bbmodel --animation run")
    assert.are.equal(2, code)
    assert.are.equal("", out)
    assert.are.equal("anim info: knight.bbmodel: no animation 'run' (it has: idle/2 x, walk) (see anim info --help)\n", err)
  end)

  it("asks for --animation where one clip is needed from a file of several", function()
    H.write(tmp .. "/knight.bbmodel", "{}")
    local code, _, err = run_with_importer("sample knight.bbmodel --at 0")
    assert.are.equal(2, code)
    assert.are.equal("anim sample: knight.bbmodel holds 2 animations (idle/2 x, walk): pick one with --animation NAME"
      .. " (see anim sample --help)\n", err)
    local out
    code, out = run_with_importer("sample knight.bbmodel --at 0 --animation walk")
    assert.are.equal(0, code)
    assert.truthy(out:find("\nrightLeg ", 1, true))
  end)

  it("never writes two animations to one file: names that sanitise alike get -2, -3, ...", function()
    if not anim.import_blockbench then pending("no anim.import_blockbench here") return end
    -- byte order of the names: "Walk_fast" < "walk fast" < "walk/fast" < "walk_fast" < "walk_fast-2";
    -- "walk_fast-2" is an animation's own file name, so the others skip it
    local names = { "walk fast", "walk_fast", "walk/fast", "Walk_fast", "walk_fast-2" }
    local anims = {}
    for i, n in ipairs(names) do
      anims[n] = { animation_length = 1, bones = { b = { position = { ["0.0"] = { 0, 0, 0 }, ["1.0"] = { 0, i, 0 } } } } }
    end
    H.write(tmp .. "/walks.animation.json", require("cjson").encode { format_version = "1.8.0", animations = anims })
    local code, _, err = run("convert walks.animation.json -o k.anim")
    assert.are.equal(0, code, err)
    local want = {
      ["Walk_fast"] = "k.Walk_fast.anim", ["walk fast"] = "k.walk_fast-3.anim", ["walk/fast"] = "k.walk_fast-4.anim",
      ["walk_fast"] = "k.walk_fast-5.anim", ["walk_fast-2"] = "k.walk_fast-2.anim",
    }
    local files = {}
    for _, f in pairs(want) do files[#files + 1] = f end
    table.sort(files)
    assert.are.same(files, H.ls(tmp, "^k%."))
    local clips = assert(anim.import_blockbench(tmp .. "/walks.animation.json"))
    for name, file in pairs(want) do
      assert.is_true(sample_diff(clips[name], assert(anim.load(tmp .. "/" .. file))) < 1e-12, name)
      assert.truthy(has_line(err, "anim convert: walks.animation.json -> " .. file), err)
    end
    assert.are.same({ "k.a_b.anim", "k.a_b-2.anim" }, require("anim.tool.cli").output_names("k.anim", { "a b", "a/b" }))
  end)

  it("reads a real Blockbench file, one output per animation", function()
    if not anim.import_blockbench then pending("no anim.import_blockbench here") return end
    local src = SHARED .. "/data/blockbench/hephaestus-engine/geometry.bbmodel"
    local clips = assert(anim.import_blockbench(src))
    local code, _, err = run("convert " .. q(src) .. " -o k.anim")
    assert.are.equal(0, code, err)
    local names = {}
    for name, c in pairs(clips) do
      local out = require("anim.tool.cli").output_name("k.anim", name)
      names[#names + 1] = out
      assert.is_true(sample_diff(c, assert(anim.load(tmp .. "/" .. out))) < 1e-3, name)
    end
    table.sort(names)
    assert.are.same({ "k.crate.anim", "k.test.anim" }, names)
  end)
end)

describe("anim sample", function()
  -- rows of the table by joint name: the columns as numbers (or "-")
  local function table_of(out)
    local ls = lines(out)
    assert.truthy(ls[1]:find("^# "))
    local header = {}
    for w in ls[2]:gmatch("%S+") do header[#header + 1] = w end
    local rows = {}
    for i = 3, #ls do
      local cells = {}
      for w in ls[i]:gmatch("%S+") do cells[#cells + 1] = w end
      local row = {}
      for k = 2, #header do row[header[k]] = tonumber(cells[k]) or cells[k] end
      rows[cells[1]] = row
    end
    return rows, header
  end

  it("prints every joint's offsets at a time, as the clip samples them", function()
    local code, out, err = run("sample " .. q(WALK) .. " --at 0.1")
    assert.are.equal(0, code, err)
    local rows, header = table_of(out)
    assert.are.same({ "joint", "pos.x", "pos.y", "pos.z", "rot.x", "rot.y", "rot.z", "rot.w",
      "euler.x", "euler.y", "euler.z", "scale.x", "scale.y", "scale.z" }, header)
    local clip = assert(anim.load(WALK))
    local pose = clip:sample(0.1)
    for _, j in ipairs(clip:joints()) do
      local row = assert(rows[j], j)
      local p = pose[j]
      for a, ax in ipairs { "x", "y", "z" } do
        if p.position then assert.is_true(H.near(row["pos." .. ax], p.position[a], 1e-6)) else assert.are.equal("-", row["pos." .. ax]) end
        assert.are.equal("-", row["scale." .. ax])
      end
      if p.rotation then
        for a, ax in ipairs { "x", "y", "z", "w" } do assert.is_true(H.near(row["rot." .. ax], p.rotation[a], 1e-6)) end
      end
    end
    -- rightLeg at 0.1 is a pure turn about x: its Euler x is the angle
    local r = rows.rightLeg
    assert.is_true(H.near(r["euler.x"], math.deg(2 * compat.atan2(r["rot.x"], r["rot.w"])), 1e-4))
    assert.are.equal(0, r["euler.y"])
    assert.truthy(out:find("Euler yxz degrees", 1, true))
  end)

  it("gives Euler angles in the clip's own order", function()
    write_clip("zyx.anim", '{"euler": "zyx", "joints": {"head": {"rotation": [[0, [10, 20, 30]], [1, [-40, 60, 170]]]}}}')
    for _, case in ipairs { { 0, { 10, 20, 30 } }, { 1, { -40, 60, 170 } } } do
      local code, out = run("sample zyx.anim --at " .. case[1])
      assert.are.equal(0, code)
      local row = table_of(out).head
      assert.is_true(H.near(row["euler.x"], case[2][1], 1e-5), out)
      assert.is_true(H.near(row["euler.y"], case[2][2], 1e-5), out)
      assert.is_true(H.near(row["euler.z"], case[2][3], 1e-5), out)
    end
  end)

  it("prints only --joint NAME", function()
    local code, out = run("sample " .. q(WALK) .. " --at 0.25 --joint torso")
    assert.are.equal(0, code)
    local rows = table_of(out)
    assert.are.same({ "torso" }, (function() local k = {} for n in pairs(rows) do k[#k + 1] = n end return k end)())
    assert.is_true(H.near(rows.torso["pos.y"], 0.06, 1e-9))
    assert.are.equal("-", rows.torso["rot.x"])
  end)

  it("refuses an unknown joint, a missing or non-numeric --at", function()
    local code, _, err = run("sample " .. q(WALK) .. " --at 0 --joint tail")
    assert.are.equal(2, code)
    assert.are.equal("anim sample: " .. WALK .. ": no joint 'tail' (its joints: leftArm, leftLeg, rightArm, rightLeg, torso)"
      .. " (see anim sample --help)\n", err)
    code, _, err = run("sample " .. q(WALK))
    assert.are.equal(2, code)
    assert.are.equal("anim sample: missing --at T (see anim sample --help)\n", err)
    code, _, err = run("sample " .. q(WALK) .. " --at soon")
    assert.are.equal(2, code)
    assert.are.equal("anim sample: --at needs a finite number, got 'soon' (see anim sample --help)\n", err)
    code, _, err = run("sample " .. q(WALK) .. " --at inf")
    assert.are.equal(2, code)
    assert.are.equal("anim sample: --at needs a finite number, got 'inf' (see anim sample --help)\n", err)
  end)

  it("converts quaternions to Euler angles for every order (round trip)", function()
    local cli = require "anim.tool.cli"
    local Q = require "anim.base.quat"
    local idx = { x = 1, y = 2, z = 3 }
    for _, order in ipairs { "xyz", "xzy", "yxz", "yzx", "zxy", "zyx" } do
      -- the middle angle within (-90, 90), the others within (-180, 180]
      for _, t in ipairs { { 10, 20, 30 }, { -170, 80, 45 }, { 0, -89, 120 }, { 33, 0, -5 } } do
        local e = {}
        e[idx[order:sub(1, 1)]], e[idx[order:sub(2, 2)]], e[idx[order:sub(3, 3)]] = t[1], t[2], t[3]
        local back = cli.euler_of(Q.from_euler(e, order), order)
        assert.is_true(H.maxdiff(back, e) < 1e-9, order .. " " .. table.concat(e, ",") .. " -> " .. table.concat(back, ","))
      end
      -- gimbal lock: the middle angle at 90 degrees still gives the same turn
      local e = { 0, 0, 0 }
      e[idx[order:sub(2, 2)]] = 90
      e[idx[order:sub(1, 1)]] = 25
      local qq = Q.from_euler(e, order)
      assert.is_true(H.quatdiff(qq, Q.from_euler(cli.euler_of(qq, order), order)) < 1e-6, order)
    end
  end)
end)

describe("anim plot", function()
  it("draws walk.anim as well-formed SVG with one path per animated axis", function()
    local code, out, err = run("plot " .. q(WALK) .. " -o curves.svg")
    assert.are.equal(0, code, err)
    assert.are.equal("", out .. err)
    local els = parse_xml(H.read(tmp .. "/curves.svg"))
    assert.are.equal("svg", els[1].name)
    assert.truthy(els[1].attrs.viewBox:match("^0 0 %d+ %d+$"))
    local paths = find_els(els, "path", "curve")
    local got = {}
    for _, p in ipairs(paths) do got[#got + 1] = p.attrs["data-joint"] .. " " .. p.attrs["data-channel"] .. " " .. p.attrs["data-axis"] end
    table.sort(got)
    local want = {}
    for _, j in ipairs { "leftArm", "leftLeg", "rightArm", "rightLeg" } do
      for _, a in ipairs { "x", "y", "z" } do want[#want + 1] = j .. " rotation " .. a end
    end
    for _, a in ipairs { "x", "y", "z" } do want[#want + 1] = "torso position " .. a end
    table.sort(want)
    assert.are.same(want, got)
    -- the axes have their colours
    for _, p in ipairs(paths) do
      assert.are.equal(({ x = "#d62728", y = "#2ca02c", z = "#1f77b4" })[p.attrs["data-axis"]], p.attrs.stroke)
    end
    -- a marker per key and axis, by interpolation: 4 joints x 3 keys x 3 axes + 5 keys x 3 axes
    local keys = find_els(els, nil, "key")
    assert.are.equal(4 * 3 * 3 + 5 * 3, #keys)
    local shapes = {}
    for _, k in ipairs(keys) do shapes[k.attrs["data-interp"]] = shapes[k.attrs["data-interp"]] or k.name end
    assert.are.same({ catmullrom = "polygon", sine = "polygon", bezier = "polygon", linear = "circle" }, shapes)
    -- bezier handles: torso's 4 bezier segments, an out and an in handle each, 3 axes
    assert.are.equal(4 * 2 * 3, #find_els(els, "line", "handle"))
    -- markers and events: a line in each of the 5 panels, and their labels
    assert.are.equal(2 * 5, #find_els(els, "line", "marker"))
    assert.are.equal(1 * 5, #find_els(els, "line", "event"))
    local labels = {}
    for _, t in ipairs(find_els(els, "text", "item-label")) do labels[#labels + 1] = t.text end
    table.sort(labels)
    assert.are.same({ "event dust", "step left", "step right" }, labels)
    -- a legend naming every marker shape
    local legend = {}
    for _, t in ipairs(find_els(els, "text", "legend")) do legend[t.text] = true end
    for _, name in ipairs { "x", "y", "z", "w", "linear", "step", "catmullrom", "bezier", "bezier handle" } do
      assert.truthy(legend[name], name)
    end
  end)

  it("draws each axis's handle at its own time when a handle has a time per axis", function()
    write_clip("dts.anim", [=[{"length": 1, "joints": {"a": {"position": [
      [0, [0, 0, 0], "bezier", {"out": [[0.1, 0.2, 0.3], 1]}], [1, [1, 1, 1], null, {"in": [-0.2, 1]}]]}}}]=])
    local code, _, err = run("plot dts.anim -o dts.svg")
    assert.are.equal(0, code, err)
    local hl = find_els(parse_xml(H.read(tmp .. "/dts.svg")), "line", "handle")
    assert.are.equal(2 * 3, #hl)
    -- the out handle's ends at 0.1, 0.2 and 0.3 s: evenly spaced, in order
    local x = {}
    for i = 1, 3 do x[hl[i].attrs["data-axis"]] = tonumber(hl[i].attrs.x2) end
    assert.is_true(x.x < x.y and x.y < x.z)
    assert.is_true(math.abs((x.y - x.x) - (x.z - x.y)) < 1e-6)
    -- the in handle's, all at 0.8 s
    assert.are.equal(hl[4].attrs.x2, hl[5].attrs.x2)
    assert.are.equal(hl[4].attrs.x2, hl[6].attrs.x2)
  end)

  it("draws quaternion keys as four component curves, and --joint picks one joint", function()
    write_clip("q.anim", [=[{"joints": {
      "head": {"rotation": [[0, [0, 0, 0, 1], "step"], [1, [0, 1, 0, 0], "bounce"], [2, [1, 0, 0, 0]]]},
      "torso": {"scale": [[0, [1, 1, 1]], [2, [2, 2, 2]]]}}}]=])
    local code, _, err = run("plot q.anim -o q.svg --joint head")
    assert.are.equal(0, code, err)
    local els = parse_xml(H.read(tmp .. "/q.svg"))
    local axes = {}
    for _, p in ipairs(find_els(els, "path", "curve")) do
      assert.are.equal("head", p.attrs["data-joint"])
      axes[#axes + 1] = p.attrs["data-axis"]
    end
    assert.are.same({ "x", "y", "z", "w" }, axes)
    assert.are.equal("#7f7f7f", find_els(els, "path", "curve")[4].attrs.stroke)
    local shapes = {}
    for _, k in ipairs(find_els(els, nil, "key")) do shapes[k.attrs["data-interp"]] = k.name end
    assert.are.same({ step = "rect", bounce = "polygon", linear = "circle" }, shapes)
    -- no handles on quaternion keys: bezier plays as linear there
    assert.are.equal(0, #find_els(els, "line", "handle"))
  end)

  it("plots Euler curves as angles, beyond half a turn and through modifiers", function()
    local plot = require "anim.tool.plot"
    local c = assert(anim.decode([=[{"length": 2, "joints": {"head": {
      "rotation": [[0, [0, 0, 0]], [1, [270, 0, -400]]],
      "modifiers": {"rotation": [{"type": "cycles", "after": "offset", "axis": 0}]}}}}]=]))
    local channels = assert(plot.curves(c))
    assert.are.equal(1, #channels)
    assert.are.equal("euler", channels[1].kind)
    local function at(axis, t)
      for _, p in ipairs(channels[1].curve[axis]) do if p[1] == t then return p[2] end end
    end
    assert.is_true(H.near(at(1, 0.5), 135, 1e-9))
    assert.is_true(H.near(at(1, 1), 270, 1e-9))
    assert.is_true(H.near(at(1, 1.5), 405, 1e-9)) -- the offset cycle climbs on
    assert.is_true(H.near(at(3, 1.5), -400, 1e-9)) -- z holds: the modifier is on x only
  end)

  it("keeps quaternion curves continuous across q / -q, the keys on them", function()
    local plot = require "anim.tool.plot"
    -- the key at 1 is stored with w < 0: playback slerps the short way and
    -- samples jump from -q to q at the key, the same turn
    local c = assert(anim.decode([=[{"joints": {"a": {"rotation":
      [[0, [0, 0, 0, 1]], [1, [0, 0, 0.7071067811865476, -0.7071067811865476]], [2, [0, 0, 1, 0]]]}}}]=]))
    local ch = assert(plot.curves(c))[1]
    assert.are.equal("quat", ch.kind)
    for a = 1, 4 do
      local pts = ch.curve[a]
      for i = 2, #pts do assert.is_true(math.abs(pts[i][2] - pts[i - 1][2]) < 0.02, "a jump on axis " .. a) end
    end
    for _, k in ipairs(ch.keys) do
      for i, p in ipairs(ch.curve[1]) do
        if p[1] == k.t then
          assert.is_true(H.maxdiff(k.shown, { p[2], ch.curve[2][i][2], ch.curve[3][i][2], ch.curve[4][i][2] }) < 1e-9)
        end
      end
    end
    assert.is_true(H.maxdiff(ch.keys[3].shown, { 0, 0, -1, 0 }) < 1e-12)
  end)

  it("draws a version 1 clip from its keyframes", function()
    write_clip("old.anim", [=[{ "keyframes": [
      { "time": 0, "poses": { "rightLeg": { "angles": [30, 0, 0], "easing": "constant" }, "torso": { "position": [0, 1, 0] } } },
      { "time": 1, "poses": { "rightLeg": { "angles": [-30, 0, 0] } } } ] }]=])
    local code, _, err = run("plot old.anim -o old.svg")
    assert.are.equal(0, code, err)
    local els = parse_xml(H.read(tmp .. "/old.svg"))
    assert.are.equal(4 + 3, #find_els(els, "path", "curve"))
    local interps = {}
    for _, k in ipairs(find_els(els, nil, "key")) do interps[#interps + 1] = k.attrs["data-interp"] end
    assert.truthy(table.concat(interps, " "):find("step", 1, true))
  end)

  it("escapes names in the SVG and writes to stdout with -o -", function()
    write_clip("odd.anim", [=[{"joints": {"a<&>\"'": {"position": [[0, [0, 0, 0]], [1, [1, 1, 1]]]}},
      "markers": [{"time": 0.5, "name": "<b>&amp;", "value": "\"x\""}]}]=])
    local code, out = run("plot odd.anim -o -")
    assert.are.equal(0, code)
    local els = parse_xml(out)
    assert.are.equal("a<&>\"'", find_els(els, "path", "curve")[1].attrs["data-joint"])
    assert.are.equal("<b>&amp; \"x\"", find_els(els, "text", "item-label")[1].text)
  end)

  it("writes well-formed XML whatever the names hold: bad UTF-8, U+FFFE, U+FFFF, control characters", function()
    local KEYS = '[[0, [0, 0, 0]], [1, [1, 1, 1]]]'
    write_clip("bad.anim", '{"joints": {' ..
      '"bad\255\195(": {"position": ' .. KEYS .. '}, ' ..        -- not UTF-8
      '"sur\237\160\128": {"position": ' .. KEYS .. '}, ' ..    -- an encoded surrogate
      '"long\192\175": {"position": ' .. KEYS .. '}, ' ..        -- an overlong "/"
      '"a\\ufffeb": {"position": ' .. KEYS .. '}, ' ..
      '"c\\u0001\\uffff\\u001f": {"position": ' .. KEYS .. '}, ' ..
      '"ok é \240\159\152\128": {"position": ' .. KEYS .. '}}, ' ..
      '"markers": [{"time": 0.5, "name": "m\\ufffe\255"}]}')
    local code, out = run("plot bad.anim -o -")
    assert.are.equal(0, code)
    local els = parse_xml(out)
    local joints = {}
    for _, e in ipairs(find_els(els, "path", "curve")) do joints[e.attrs["data-joint"]] = true end
    local R = "\239\191\189" -- U+FFFD
    for _, j in ipairs { "bad" .. R .. R .. "(", "sur" .. R .. R .. R, "long" .. R .. R, "a" .. R .. "b",
      "c" .. R .. R .. R, "ok é \240\159\152\128" } do
      assert.is_true(joints[j], j)
    end
    assert.are.equal("m" .. R .. R, find_els(els, "text", "item-label")[1].text)
    local svg = require "anim.tool.svg"
    assert.are.equal("x&lt;" .. R .. "\t\n\r" .. R .. "é", svg.escape("x<\0\t\n\r\239\191\191é"))
  end)

  it("draws a clip without keys as an empty picture", function()
    write_clip("none.anim", '{"joints": {}}')
    local code = run("plot none.anim -o none.svg")
    assert.are.equal(0, code)
    local els = parse_xml(H.read(tmp .. "/none.svg"))
    assert.are.equal(0, #find_els(els, "path", "curve"))
  end)

  it("refuses an unknown joint, a missing -o, and reports unreadable files", function()
    local code, _, err = run("plot " .. q(WALK) .. " -o x.svg --joint tail")
    assert.are.equal(2, code)
    assert.are.equal("anim plot: " .. WALK .. ": no joint 'tail' in the clip (its joints: leftArm, leftLeg, rightArm, rightLeg,"
      .. " torso) (see anim plot --help)\n", err)
    code, _, err = run("plot " .. q(WALK))
    assert.are.equal(2, code)
    assert.are.equal("anim plot: missing -o OUT.svg (see anim plot --help)\n", err)
    code, _, err = run("plot nope.anim -o x.svg")
    assert.are.equal(1, code)
    assert.are.equal("anim plot: nope.anim: cannot open file: No such file or directory\n", err)
    code, _, err = run("plot " .. q(WALK) .. " -o no/dir/x.svg")
    assert.are.equal(1, code)
    assert.truthy(err:find("^anim plot: cannot write no/dir/x.svg: "), err)
    assert.are.same({}, H.ls(tmp))
  end)

  it("made docs/img/walk-curves.svg (regenerate: see lua/anim/cli.lua)", function()
    local p = assert(io.popen(string.format("cd %s && %s bin/anim plot examples/clips/walk.anim -o -", q(ROOT), H.lua)))
    local now = p:read("*a")
    p:close()
    assert.are.equal(now, H.read(ROOT .. "/docs/img/walk-curves.svg"))
  end)
end)

describe("anim sheet", function()
  it("draws 8 frames of front and side views, labelled with their times", function()
    local code, out, err = run("sheet " .. q(WALK) .. " -o sheet.svg")
    assert.are.equal(0, code, err)
    assert.are.equal("", out .. err)
    local els = parse_xml(H.read(tmp .. "/sheet.svg"))
    assert.truthy(els[1].attrs.viewBox)
    local frames = find_els(els, "g", "frame")
    local times = {}
    for i, f in ipairs(frames) do times[i] = f.attrs["data-time"] end
    assert.are.same({ "0", "0.125", "0.25", "0.375", "0.5", "0.625", "0.75", "0.875" }, times)
    local labels = {}
    for i, t in ipairs(find_els(els, "text", "frame-label")) do labels[i] = t.text end
    assert.are.equal("t = 0.125 s", labels[2])
    local parts = find_els(els, "polygon", "part")
    assert.are.equal(8 * 6 * 2, #parts)
    local count = {}
    for _, p in ipairs(parts) do
      local k = p.attrs["data-view"] .. " " .. p.attrs["data-joint"]
      count[k] = (count[k] or 0) + 1
    end
    for _, j in ipairs { "head", "torso", "leftArm", "rightArm", "leftLeg", "rightLeg" } do
      assert.are.equal(8, count["front " .. j])
      assert.are.equal(8, count["side " .. j])
    end
  end)

  it("spaces --frames N over a clip that does not loop, the last at its end", function()
    write_clip("once.anim", '{"loop": "once", "length": 2, "joints": {"rightArm": {"rotation": [[0, [0, 0, 0]], [2, [90, 0, 0]]]}}}')
    local code = run("sheet once.anim --frames 3 -o s.svg")
    assert.are.equal(0, code)
    local times = {}
    for i, f in ipairs(find_els(parse_xml(H.read(tmp .. "/s.svg")), "g", "frame")) do times[i] = f.attrs["data-time"] end
    assert.are.same({ "0", "1", "2" }, times)
  end)

  it("places each part by its joint's world transform", function()
    local sheet = require "anim.tool.sheet"
    local c = assert(anim.decode('{"length": 1, "joints": {"rightArm": {"rotation": [[0, [0, 0, 0]], [1, [90, 0, 0]]]},'
      .. ' "root": {"position": [[0, [0, 0, 0]], [1, [0, 1, 0]]]}}}'))
    local function part(views, view, joint)
      for _, p in ipairs(views[view]) do if p.joint == joint then return p end end
    end
    local function bounds(p)
      local b = { math.huge, math.huge, -math.huge, -math.huge }
      for _, pt in ipairs(p.points) do
        b[1], b[2] = math.min(b[1], pt[1]), math.min(b[2], pt[2])
        b[3], b[4] = math.max(b[3], pt[1]), math.max(b[4], pt[2])
      end
      return b
    end
    local rest = sheet.outlines(c, 0)
    -- at rest: the right arm hangs at x -0.5..-0.25 from the shoulder (1.5) down to 0.75
    local b = bounds(part(rest, "front", "rightArm"))
    assert.is_true(H.maxdiff(b, { -0.5, 0.75, -0.25, 1.5 }) < 1e-9, table.concat(b, " "))
    assert.are.equal(4, #part(rest, "front", "rightArm").points)
    b = bounds(part(rest, "front", "head"))
    assert.is_true(H.maxdiff(b, { -0.25, 1.5, 0.25, 2 }) < 1e-9)
    b = bounds(part(rest, "side", "torso"))
    assert.is_true(H.maxdiff(b, { -0.125, 0.75, 0.125, 1.5 }) < 1e-9)
    -- at 1: the whole body 1 block up, the arm turned 90 degrees about x
    -- (pointing back, -z), seen from the side
    local up = sheet.outlines(c, 1)
    b = bounds(part(up, "side", "rightArm"))
    assert.is_true(H.maxdiff(b, { -0.625, 2.25, 0.125, 2.5 }) < 1e-9, table.concat(b, " "))
    b = bounds(part(up, "front", "leftLeg"))
    assert.is_true(H.maxdiff(b, { 0, 1, 0.25, 1.75 }) < 1e-9)
    -- the nearer parts paint last: from the side (-x) the right arm over the torso
    local order = {}
    for i, p in ipairs(up.side) do order[p.joint] = i end
    assert.is_true(order.rightArm > order.torso and order.torso > order.leftArm)
  end)

  it("computes convex outlines", function()
    local hull = require("anim.tool.sheet").hull
    local h = hull { { 0, 0 }, { 1, 0 }, { 1, 1 }, { 0, 1 }, { 0.5, 0.5 }, { 0.5, 0 } }
    assert.are.same({ { 0, 0 }, { 1, 0 }, { 1, 1 }, { 0, 1 } }, h)
  end)

  it("refuses an unknown rig, a bad --frames and a missing -o", function()
    local code, _, err = run("sheet " .. q(WALK) .. " --rig dragon -o s.svg")
    assert.are.equal(2, code)
    assert.are.equal("anim sheet: unknown rig 'dragon' (the rigs: player, skeleton) (see anim sheet --help)\n", err)
    for _, n in ipairs { "0", "2.5", "many", "201" } do
      code, _, err = run("sheet " .. q(WALK) .. " --frames " .. n .. " -o s.svg")
      assert.are.equal(2, code)
      assert.are.equal("anim sheet: --frames needs a whole number from 1 to 200, got '" .. n .. "' (see anim sheet --help)\n", err)
    end
    code, _, err = run("sheet " .. q(WALK))
    assert.are.equal(2, code)
    assert.are.equal("anim sheet: missing -o OUT.svg (see anim sheet --help)\n", err)
  end)

  it("notes when none of the clip's joints is on the rig", function()
    write_clip("tail.anim", '{"joints": {"tail": {"rotation": [[0, [0, 0, 0]], [1, [0, 90, 0]]]}}}')
    local code, _, err = run("sheet tail.anim -o s.svg")
    assert.are.equal(0, code)
    assert.are.equal("anim sheet: note: none of the joints of tail.anim (tail) plays on the player rig;"
      .. " the sheet shows its rest pose\n", err)
  end)

  it("plays view clips too", function()
    write_clip("view.anim", '{"space": "view", "joints": {"rightArm": {"rotation": [[0, [0, 0, 0]], [1, [0, 90, 0]]]}}}')
    local code, _, err = run("sheet view.anim -o s.svg --frames 2")
    assert.are.equal(0, code, err)
  end)

  it("made docs/img/walk-sheet.svg (regenerate: see lua/anim/cli.lua)", function()
    local p = assert(io.popen(string.format("cd %s && %s bin/anim sheet examples/clips/walk.anim -o -", q(ROOT), H.lua)))
    local now = p:read("*a")
    p:close()
    assert.are.equal(now, H.read(ROOT .. "/docs/img/walk-sheet.svg"))
  end)
end)

describe("anim output", function()
  it("carries no colour codes when it is not a terminal", function()
    for _, args in ipairs { "info " .. q(WALK), "sample " .. q(WALK) .. " --at 0", "validate " .. q(WALK), "--help" } do
      local _, out, err = run(args)
      assert.is_nil(out:find("\27", 1, true), args)
      assert.is_nil(err:find("\27", 1, true), args)
    end
  end)

  it("uses colour on a terminal, unless NO_COLOR is set", function()
    if not compat.execute("command -v script >/dev/null 2>&1") then pending("no script(1) to make a terminal") return end
    local function on_tty(env)
      local p = assert(io.popen(string.format("cd %s && %s script -qec %s /dev/null", q(tmp), env,
        q(H.lua .. " " .. q(BIN) .. " info " .. q(WALK)))))
      local out = p:read("*a")
      p:close()
      return out
    end
    assert.truthy(on_tty(""):find("\27[1mjoints (5)\27[0m", 1, true))
    assert.is_nil(on_tty("NO_COLOR=1"):find("\27", 1, true))
  end)

  it("is installed as a command by the rockspec", function()
    local tree = tmp .. "/tree"
    local log, status = H.popen(string.format("cd %s && luarocks --lua-version=5.4 --tree=%s make --deps-mode=none anim-dev-1.rockspec 2>&1",
      q(ROOT), q(tree)))
    assert(status == 0, log)
    local code, out = (function()
      -- with no path of the tree's set: the command finds its own modules
      local o, c = H.popen(string.format("cd / && env %s %s info %s", NO_PATHS, q(tree .. "/bin/anim"), q(WALK)))
      return c, o
    end)()
    assert.are.equal(0, code, out)
    assert.truthy(has_line(out, "joints (5)"), out)
  end)
end)

describe("anim info on odd names", function()
  it("keeps one line per item: control characters in names are escaped", function()
    local dir = H.tmpdir()
    H.write(dir .. "/odd.anim", [==[{"joints": {"a\nb": {"position": [[0, [0, 0, 0]]]}},
      "markers": [{"time": 0, "name": "m\nx", "value": "v\ty"}]}]==])
    local p = assert(io.popen("cd " .. H.root .. " && " .. H.lua .. " bin/anim info '" .. dir .. "/odd.anim' 2>&1"))
    local text = p:read("*a")
    p:close()
    assert.truthy(text:find("  a\\nb  ", 1, true), text)
    assert.truthy(text:find("m\\nx  v\\ty", 1, true), text)
    for line in text:gmatch("[^\n]+") do assert.is_nil(line:find("^b ")) end
  end)
end)

-- Issue 17: the command catches typos, says what it skipped, shows maps,
-- makes the folders it writes to and draws a file's own skeleton.
describe("anim and typos", function()
  it("suggests the command or option meant", function()
    local code, _, err = run("infoo " .. q(WALK))
    assert.are.equal(2, code)
    assert.are.equal("anim: unknown command 'infoo'; did you mean 'info'? (the commands: info, validate, convert, compress,"
      .. " sample, plot, sheet, graph; see anim --help)\n", err)
    code, _, err = run("sheet " .. q(WALK) .. " --rigg player -o x.svg")
    assert.are.equal(2, code)
    assert.are.equal("anim sheet: unknown option '--rigg'; did you mean '--rig'? (see anim sheet --help)\n", err)
    _, _, err = run("validate " .. q(WALK) .. " --strcit")
    assert.are.equal("anim validate: unknown option '--strcit'; did you mean '--strict'? (see anim validate --help)\n", err)
    _, _, err = run("help sampel")
    assert.are.equal("anim: unknown command 'sampel'; did you mean 'sample'? (the commands: info, validate, convert, compress,"
      .. " sample, plot, sheet, graph)\n", err)
    -- nothing close: no suggestion
    _, _, err = run("frobnicate")
    assert.are.equal("anim: unknown command 'frobnicate' (the commands: info, validate, convert, compress, sample, plot, sheet, graph;"
      .. " see anim --help)\n", err)
  end)

  it("validate reports the fields a file's format does not know, with their paths; --strict fails on them", function()
    H.write(tmp .. "/walk.anim", [==[{"lenght": 2, "joints": {"rightArm": {"rotaton": [[0, [0, 0, 0]]]}},
      "markers": [{"time": 0, "name": "m", "note": "x"}]}]==])
    H.write(tmp .. "/m.retarget", '{"version": 1, "joints": {"a": "b"}, "sacle": 2}')
    local code, out, err = run("validate walk.anim m.retarget")
    assert.are.equal(0, code, err)
    assert.are.same({
      "walk.anim: joints.rightArm.rotaton: unknown field (did you mean 'rotation'?)",
      "walk.anim: lenght: unknown field (did you mean 'length'?)",
      "walk.anim: markers[1].note: unknown field",
      "m.retarget: sacle: unknown field (did you mean 'scale'?)",
    }, lines(out))
    assert.are.equal("anim validate: 2 files checked, all good (4 warnings)\n", err)
    code, out, err = run("validate --strict walk.anim m.retarget")
    assert.are.equal(1, code)
    assert.are.equal(4, #lines(out))
    assert.are.equal("anim validate: 2 files checked, 2 files with problems (4 warnings)\n", err)
  end)

  it("validate reports the fields a Bedrock, Blockbench or XML file's format does not know; --strict fails", function()
    H.write(tmp .. "/w.animation.json", [==[{"format_version": "1.8.0", "animations": {"a": {"animation_lenght": 1,
      "bones": {"b": {"rotation": [0, 0, 0]}}}}}]==])
    H.write(tmp .. "/m.bbmodel", [==[{"meta": {"format_version": "5.0"}, "animations": [{"name": "walk", "loop": "loop",
      "lenght": 2, "animators": {}}]}]==])
    H.write(tmp .. "/x.xml", '<animation length="1">\n<right-arm><rol><keyframe>1</keyframe></rol></right-arm></animation>')
    local code, out, err = run("validate w.animation.json m.bbmodel x.xml")
    assert.are.equal(0, code, err)
    assert.are.same({
      "w.animation.json: animations.a.animation_lenght: unknown field (did you mean 'animation_length'?)",
      "m.bbmodel: animations[1].lenght: unknown field (did you mean 'length'?)",
      "x.xml: animation/right-arm/rol (line 2): unknown element (did you mean 'roll'?)",
    }, lines(out))
    assert.are.equal("anim validate: 3 files checked, all good (3 warnings)\n", err)
    code, out, err = run("validate --strict w.animation.json m.bbmodel x.xml")
    assert.are.equal(1, code)
    assert.are.equal(3, #lines(out))
    assert.are.equal("anim validate: 3 files checked, 3 files with problems (3 warnings)\n", err)
  end)

  it("validate --rig lists the joints that play on no joint of the rig", function()
    H.write(tmp .. "/c.anim", '{"joints": {"rightarm": {}, "hed": {}, "tail": {}, "head": {}}}')
    local code, out, err = run("validate c.anim --rig player")
    assert.are.equal(0, code, err)
    assert.are.same({
      "c.anim: joints.hed: plays on no joint of rig 'player' (did you mean 'head'?)",
      "c.anim: joints.tail: plays on no joint of rig 'player'",
    }, lines(out))
    code = run("validate c.anim --rig player --strict")
    assert.are.equal(1, code)
    -- silence when everything binds
    code, out = run("validate " .. q(WALK) .. " --rig player")
    assert.are.equal(0, code)
    assert.are.equal("", out)
    code, out, err = run("validate c.anim --rig goblin")
    assert.are.equal("", out)
    assert.are.equal(2, code)
    assert.truthy(err:find("--rig: 'goblin' is neither player nor a file whose clips have a skeleton", 1, true), err)
  end)

  it("validate DIR covers every file of ../shared/data: each checked or skipped with why", function()
    local code, out, err = run("validate " .. q(SHARED .. "/data"))
    local p = assert(io.popen("find -L " .. q(SHARED .. "/data") .. " -type f | wc -l"))
    local total = tonumber(p:read("*a"))
    p:close()
    local checked, skipped = err:match("(%d+) files? checked, .-(%d+) files? skipped")
    assert(checked and skipped, err)
    assert.are.equal(total, tonumber(checked) + tonumber(skipped), err)
    local reasons = 0
    for l in err:gmatch("[^\n]+") do
      if l:find("^anim validate: skipped ") then
        assert.truthy(l:find(": [^:]+$"), l) -- each with why
        reasons = reasons + 1
      end
    end
    assert.are.equal(tonumber(skipped), reasons)
    assert.is_true(tonumber(checked) >= 60, err)
    assert.are.equal(0, code, out)
  end)

  it("info of a .retarget shows the map", function()
    H.write(tmp .. "/g.retarget", [[{"version": 1, "scale": 1.5, "joints": {"rightArm": {"to": "arm_r",
      "target": [0, 0, 80]}, "leftLeg": "", "head": "skull"}}]])
    local code, out, err = run("info g.retarget")
    assert.are.equal(0, code, err)
    assert.truthy(has_line(out, "  scale      1.5"), out)
    assert.truthy(has_line(out, "  head      -> skull"), out)
    assert.truthy(has_line(out, "  leftLeg   -> (kept off the rig)"), out)
    assert.truthy(out:find("  rightArm  -> arm_r  target rest ", 1, true), out)
    -- a map with a name that is not .retarget is a map all the same (by content)
    H.write(tmp .. "/g.json", H.read(tmp .. "/g.retarget"))
    code, out = run("info g.json")
    assert.are.equal(0, code)
    assert.truthy(out:find("(retarget map)", 1, true), out)
    -- and not a clip for the verbs that need one
    code, out, err = run("sample g.retarget --at 0")
    assert.are.equal("", out)
    assert.are.equal(1, code)
    assert.are.equal("anim sample: g.retarget: a retarget map, not a clip (anim info shows it)\n", err)
  end)

  it("sheet draws a .bbmodel's own skeleton, and a clip's skeleton field", function()
    local file = SHARED .. "/data/blockbench/BetterModel/steve.bbmodel"
    local code, _, err = run("sheet " .. q(file) .. " -o s.svg")
    assert.are.equal(0, code, err)
    local svgtext = H.read(tmp .. "/s.svg")
    assert.truthy(svgtext:find("on the clip&apos;s own rig", 1, true))
    local joints = {}
    for j in svgtext:gmatch('data%-joint="([^"]+)"') do joints[j] = true end
    assert.is_nil(joints.rightArm) -- not the player's parts
    assert.is_true(next(joints) ~= nil)
    -- --rig player draws the player instead
    code = run("sheet " .. q(file) .. " --rig player -o p.svg")
    assert.are.equal(0, code)
    assert.truthy(H.read(tmp .. "/p.svg"):find("on the player rig", 1, true))
    -- a clip's skeleton field
    H.write(tmp .. "/k.anim", [==[{"length": 1, "skeleton": {"base": {}, "arm": {"parent": "base", "position": [0, 1, 0]},
      "hand": {"parent": "arm", "position": [1, 1, 0]}},
      "joints": {"arm": {"rotation": [[0, [0, 0, 0]], [1, [0, 0, 90]]]}}}]==])
    code, _, err = run("sheet k.anim -o k.svg --frames 2")
    assert.are.equal(0, code, err)
    local k = H.read(tmp .. "/k.svg")
    assert.truthy(k:find('data-joint="arm"', 1, true))
    assert.truthy(k:find("on the clip&apos;s own rig", 1, true))
    code, _, err = run("sheet " .. q(WALK) .. " --rig skeleton -o w.svg")
    assert.are.equal(1, code)
    assert.truthy(err:find("--rig skeleton: the clip has no skeleton", 1, true), err)
  end)
end)
