-- res:// paths (issue 9, SEMANTICS 10, docs/robustness.md): a library only
-- reads regular files under its root.  Every way out -- .., absolute paths
-- and drives, backslashes, NUL and other control bytes, percent-escapes,
-- symbolic links to files or directories outside -- is refused with
-- `nil, message`, the message naming the path (control bytes written
-- \ddd), before anything is read.
local anim = require "anim"
local H = require "spec.helper"
local compat = require "anim.base.compat"

local function sh(cmd)
  assert(compat.execute(cmd), cmd)
end

describe("res:// paths", function()
  -- dir/root       the library root, with sub/a.anim and sub/b.retarget
  -- dir/secret.anim, dir/outside/s.anim   files outside it
  -- links in root: out-file, out-dir, up (a relative link up and out),
  -- chain -> hop -> outside, in-file (a link that stays inside: allowed)
  local dir = H.tmpdir()
  sh("mkdir -p '" .. dir .. "/root/sub' '" .. dir .. "/outside'")
  local CLIP = '{"joints": {}}'
  H.write(dir .. "/root/sub/a.anim", CLIP)
  H.write(dir .. "/root/sub/b.retarget", '{"version": 1}')
  H.write(dir .. "/root/%2e%2e", CLIP) -- a file really named %2e%2e
  H.write(dir .. "/root/a\\b.anim", CLIP) -- and one whose name holds a backslash
  H.write(dir .. "/secret.anim", CLIP)
  H.write(dir .. "/outside/s.anim", CLIP)
  sh("ln -s '" .. dir .. "/secret.anim' '" .. dir .. "/root/out-file.anim'")
  sh("ln -s '" .. dir .. "/outside' '" .. dir .. "/root/out-dir'")
  sh("ln -s ../../secret.anim '" .. dir .. "/root/sub/up.anim'")
  sh("ln -s '" .. dir .. "/root/hop' '" .. dir .. "/root/chain.anim'")
  sh("ln -s ../secret.anim '" .. dir .. "/root/hop'")
  sh("ln -s sub/a.anim '" .. dir .. "/root/in-file.anim'")
  local lib = assert(anim.library(dir .. "/root"))

  local function refused(path, why, what)
    local r = compat.pack((what == "retarget" and lib.retarget or lib.clip)(lib, path))
    assert.are.equal(2, r.n)
    assert.is_nil(r[1])
    assert.are.equal(why, r[2])
  end

  it("loads a plain path, and a link that stays inside the root", function()
    assert.is_true(anim.is_clip(lib:clip("res://sub/a.anim")))
    assert.are.equal(lib:clip("res://sub/a.anim"), lib:clip("res://in-file.anim"))
    assert.is_truthy(lib:retarget("res://sub/b.retarget"))
  end)

  it("refuses .. anywhere", function()
    for _, p in ipairs { "res://../secret.anim", "res://sub/../../secret.anim", "res://sub/..", "res://..",
      "res://sub/./../../secret.anim", "res://sub//..//../secret.anim" } do
      refused(p, p .. ": refused: the path leaves the library root")
    end
    -- also when the path would come back inside
    refused("res://sub/../sub/a.anim", "res://sub/../sub/a.anim: refused: the path leaves the library root")
  end)

  it("refuses absolute paths and drives", function()
    for _, p in ipairs { "res:///etc/passwd", "res://" .. dir .. "/secret.anim", "res://C:/x.anim", "res://c:x.anim", "res://" } do
      refused(p, p .. ": refused: the path must be relative to the library root")
    end
  end)

  it("refuses backslashes (a separator elsewhere), even for a file whose name holds one", function()
    for _, p in ipairs { "res://..\\secret.anim", "res://sub\\..\\..\\secret.anim", "res://a\\b.anim" } do
      refused(p, p .. ": refused: backslashes are not path separators in res:// paths")
    end
  end)

  it("refuses NUL and other control bytes, and names the path with them spelled out", function()
    refused("res://sub/a.anim\0../../secret.anim",
      "res://sub/a.anim\\000../../secret.anim: refused: the path holds a control character")
    refused("res://sub/a.anim\0", "res://sub/a.anim\\000: refused: the path holds a control character")
    refused("res://sub/\na.anim", "res://sub/\\010a.anim: refused: the path holds a control character")
  end)

  it("refuses more than 64 '.' or empty segments, and finds the file through as many", function()
    -- (every spelling is read through by patterns: a spelling that loads
    -- is thus that of its file, give or take 128 bytes; issue 35)
    local a = lib:clip("res://sub/a.anim")
    assert.are.equal(a, lib:clip("res://" .. string.rep("./", 64) .. "sub/a.anim"))
    assert.are.equal(a, lib:clip("res://sub" .. string.rep("/", 65) .. "a.anim"))
    assert.are.equal(a, lib:clip("res://" .. string.rep(".//", 32) .. "sub/a.anim"))
    for _, p in ipairs { "res://" .. string.rep("./", 65) .. "sub/a.anim", "res://sub" .. string.rep("/", 66) .. "a.anim",
      "res://" .. string.rep(".//", 33) .. "sub/a.anim", "res://sub/" .. string.rep("./", 2000) .. "a.anim" } do
      local shown = #p > 200 and p:sub(1, 197) .. "... (" .. #p .. " bytes)" or p
      refused(p, shown .. ": refused: the path holds more than 64 '.' or empty segments")
    end
  end)

  it("refuses percent-escapes of any kind (they are not decoded)", function()
    for _, p in ipairs { "res://%2e%2e/secret.anim", "res://%2E%2E%2Fsecret.anim", "res://sub/%2e%2e%2f%2e%2e%2fsecret.anim",
      "res://%2e%2e", "res://sub/a%20b.anim", "res://100%.anim" } do
      refused(p, p .. ": refused: percent-escapes are not decoded in res:// paths")
    end
  end)

  it("refuses symbolic links that lead outside the root: to a file, a directory, up, through a chain", function()
    for _, p in ipairs { "res://out-file.anim", "res://out-dir/s.anim", "res://sub/up.anim", "res://chain.anim" } do
      refused(p, p .. ": refused: the path leaves the library root (through a link)")
    end
  end)

  it("the same rules for retarget maps", function()
    refused("res://../x.retarget", "res://../x.retarget: refused: the path leaves the library root", "retarget")
    refused("res://out-dir/x.retarget", "res://out-dir/x.retarget: cannot open file: No such file or directory", "retarget")
    sh("ln -s '" .. dir .. "/secret.anim' '" .. dir .. "/root/m.retarget'")
    refused("res://m.retarget", "res://m.retarget: refused: the path leaves the library root (through a link)", "retarget")
  end)

  it("refuses what is not a regular file, without blocking on it", function()
    refused("res://sub", "res://sub: cannot open file: it is a directory")
    -- a FIFO: reading it would wait for a writer.  The writer here gives
    -- up after 3 s, so a library that opened it would read "{}" instead.
    local fifo = dir .. "/root/pipe.anim"
    sh("mkfifo '" .. fifo .. "'")
    sh("(timeout 3 sh -c 'echo {} > \"" .. fifo .. "\"' >/dev/null 2>&1 &)")
    refused("res://pipe.anim", "res://pipe.anim: refused: not a regular file (a FIFO)")
  end)

  -- A path is resolved (realpath) then read: a directory or a file of it
  -- swapped for a link in between must not be followed out of the root,
  -- and one swapped for a directory, a FIFO or nothing is refused by the
  -- read itself.  The swap is made by core.realpath itself, right after it
  -- answers.
  local function with_swap_after_resolve(target, swap, fn)
    local core = require "anim.core"
    local original = core.realpath
    core.realpath = function(p)
      local r, e = original(p)
      if p:sub(-#target) == target then sh(swap) end
      return r, e
    end
    local ok, err = pcall(fn)
    core.realpath = original
    assert(ok, err)
  end

  it("refuses a link put on the path between resolving it and reading it", function()
    sh("mkdir -p '" .. dir .. "/root/race' && cp '" .. dir .. "/outside/s.anim' '" .. dir .. "/root/race/s.anim'")
    H.write(dir .. "/outside/s.anim", '{"joints": {"outside": {}}}')
    with_swap_after_resolve("race/s.anim", "mv '" .. dir .. "/root/race' '" .. dir .. "/root/race.gone' && ln -s '"
      .. dir .. "/outside' '" .. dir .. "/root/race'", function()
      refused("res://race/s.anim", "res://race/s.anim: refused: the path leaves the library root (through a link)")
    end)
    H.write(dir .. "/root/race2.anim", CLIP)
    with_swap_after_resolve("race2.anim", "rm '" .. dir .. "/root/race2.anim' && ln -s '" .. dir .. "/secret.anim' '"
      .. dir .. "/root/race2.anim'", function()
      refused("res://race2.anim", "res://race2.anim: refused: the path leaves the library root (through a link)")
    end)
  end)

  it("reads what it resolved, or says why not", function()
    -- a file swapped for a directory, or removed, in between
    H.write(dir .. "/root/race3.anim", CLIP)
    with_swap_after_resolve("race3.anim", "rm '" .. dir .. "/root/race3.anim' && mkdir '" .. dir .. "/root/race3.anim'",
      function() refused("res://race3.anim", "res://race3.anim: cannot open file: it is a directory") end)
    H.write(dir .. "/root/race4.anim", CLIP)
    with_swap_after_resolve("race4.anim", "rm '" .. dir .. "/root/race4.anim'",
      function() refused("res://race4.anim", "res://race4.anim: cannot open file: No such file or directory") end)
    sh("mkdir -p '" .. dir .. "/root/race6'")
    H.write(dir .. "/root/race6/x.anim", CLIP)
    with_swap_after_resolve("race6/x.anim", "rm -r '" .. dir .. "/root/race6' && echo > '" .. dir .. "/root/race6'",
      function() refused("res://race6/x.anim", "res://race6/x.anim: cannot open file: Not a directory") end)
    H.write(dir .. "/root/race5.anim", CLIP)
    with_swap_after_resolve("race5.anim", "rm '" .. dir .. "/root/race5.anim' && mkfifo '" .. dir .. "/root/race5.anim'",
      function() refused("res://race5.anim", "res://race5.anim: refused: not a regular file (a FIFO)") end)
    -- the size limit holds as for any file
    H.write(dir .. "/root/big.anim", CLIP)
    local old = anim.set_limits { bytes = 10 }
    local ok, err = pcall(refused, "res://big.anim", "res://big.anim: too large (14 bytes; at most 10, anim.limits.bytes)")
    anim.set_limits(old)
    assert(ok, err)
  end)

  it("reads through a directory that allows search but not listing, as a path lookup does", function()
    -- the read opens each directory on the way only to look a name up in
    -- it (O_PATH): no read permission needed.  Permissions bind only a
    -- user other than root, so the check runs as nobody (setpriv).
    local function as_nobody(cmd)
      return compat.execute("setpriv --reuid=65534 --regid=65534 --clear-groups " .. cmd .. " >/dev/null 2>&1")
    end
    sh("chmod 755 '" .. dir .. "'") -- mktemp -d made it 0700
    local whoami = io.popen("id -u"):read("*l")
    if whoami ~= "0" or not compat.execute("command -v setpriv >/dev/null 2>&1")
       or not as_nobody("test -r lua/anim/init.lua -a -r " .. H.build .. "/anim/core.so -a -r " .. dir .. "/root/sub/a.anim") then
      pending("needs root, setpriv, and a checkout that the user nobody can read")
      return
    end
    sh("mkdir -p '" .. dir .. "/root/hidden' && cp '" .. dir .. "/root/sub/a.anim' '" .. dir .. "/root/hidden/h.anim'")
    sh("chmod 711 '" .. dir .. "/root/hidden' && chmod 644 '" .. dir .. "/root/hidden/h.anim'")
    local script = dir .. "/nobody.lua"
    H.write(script, string.format([[
      local anim = require "anim"
      local lib = assert(anim.library(%q))
      local c, err = lib:clip("res://hidden/h.anim")
      assert(c, err)
      -- the listing really is refused to this user
      assert(not io.popen("ls %s/root/hidden 2>/dev/null"):read("*l"))
    ]], dir .. "/root", dir))
    sh("chmod 644 '" .. script .. "'")
    local out = io.popen("setpriv --reuid=65534 --regid=65534 --clear-groups env LUA_PATH='lua/?.lua;lua/?/init.lua;;' "
      .. "LUA_CPATH='" .. H.build .. "/?.so;;' " .. H.lua .. " '" .. script .. "' 2>&1"):read("*a")
    assert.are.equal("", out)
    assert.is_true(as_nobody("env LUA_PATH='lua/?.lua;lua/?/init.lua;;' LUA_CPATH='" .. H.build .. "/?.so;;' "
      .. H.lua .. " '" .. script .. "'"))
  end)

  it("cuts a long path short in messages, and refuses one beyond 4096 bytes", function()
    local long = "res://" .. string.rep("d/", 2100) .. "a.anim"
    local _, err = lib:clip(long)
    assert.are.equal(long:sub(1, 197) .. "... (" .. #long .. " bytes): refused: the path is longer than 4096 bytes", err)
  end)

  it("does not resolve a path as a plays item of a clip either", function()
    H.write(dir .. "/root/sub/p.anim", '{"length": 1, "joints": {}, "plays": [{"time": 0, "clip": "res://../secret.anim"}]}')
    local a = anim.animator(anim.rig("player"), { library = lib })
    a:play(assert(lib:clip("res://sub/p.anim")), { fade = 0 })
    local ok, err = pcall(a.update, a, 0.1)
    assert.is_false(ok)
    assert.are.equal("plays 'res://../secret.anim': res://../secret.anim: refused: the path leaves the library root", err)
  end)

  it("a root with a NUL byte is refused, not cut short", function()
    local l, err = anim.library(dir .. "/root\0/etc")
    assert.is_nil(l)
    assert.are.equal(dir .. "/root\\000/etc: cannot open library root: the path holds a NUL byte", err)
  end)

  it("(clean up)", function()
    sh("rm -rf '" .. dir .. "'")
  end)
end)
