-- Reading files (issue 35): every reader of the module reads a whole file
-- through one helper (json.read_file over core.read_file, or
-- core.read_beneath for res:// paths: csrc/io/fs.c), which opens it
-- without blocking and fstat()s what it opened before reading anything.
-- So a FIFO (open(2) used to wait for a writer: anim.load, anim.reload,
-- the XML, Blockbench and Aseprite importers, retarget maps and the CLI
-- hung), a directory, a device (/dev/zero used to be read up to
-- anim.limits.bytes) or a socket is refused at once with `nil, message`
-- naming the path and what it is, and nothing is changed.
local anim = require "anim"
local core = require "anim.core"
local H = require "spec.helper"
local compat = require "anim.base.compat"

local load_text = rawget(_G, "loadstring") or load

local q = H.sq

local function have(tool)
  return compat.execute("command -v " .. tool .. " >/dev/null 2>&1")
end

-- Every reader of a file, as name -> function(path) returning what the
-- reader returns.  The library's readers take the file's name under the
-- library root (the folder of path).
local READERS = [[
local anim = require "anim"
local function lib_of(path)
  return assert(anim.library((path:match("^(.*)/[^/]*$"))))
end
local function base(path) return "res://" .. path:match("[^/]*$") end
return {
  { "anim.load", function(p) return anim.load(p) end },
  { "anim.reload", function(p)
    local c = assert(anim.decode('{"length": 2, "joints": {}}', "c"))
    local r, err = anim.reload(c, p)
    assert(c.length == 2, "the clip changed")
    return r, err
  end },
  { "anim.load_retarget", function(p) return anim.load_retarget(p) end },
  { "anim.import_xml", function(p) return anim.import_xml(p) end },
  { "anim.import_blockbench", function(p) return anim.import_blockbench(p) end },
  { "anim.import_aseprite", function(p) return anim.import_aseprite(p) end },
  { "anim.import_gltf", function(p) return anim.import_gltf(p) end },
  { "library:clip", function(p) return lib_of(p):clip(base(p)) end },
  { "library:retarget", function(p) return lib_of(p):retarget(base(p)) end },
  { "library:reload", function(p) return lib_of(p):reload(base(p)) end },
}
]]

-- What each reader says of path, "reader: result" a line, in a process of
-- its own killed after 5 s: a reader that blocks fails the spec (its line
-- is missing) rather than hanging the suite.  The CLI last.
local function run_all(dir, path)
  local script = dir .. "/readers.lua"
  H.write(script, [[
local readers = (loadstring or load)(]] .. string.format("%q", READERS) .. [[)()
local path = arg[1]
for _, r in ipairs(readers) do
  local ok, v, err = pcall(r[2], path)
  io.stdout:write(r[1], ": ", tostring(ok and (v == nil and err or "read it") or "raised " .. tostring(v)), "\n")
  io.stdout:flush()
end
]])
  local out = H.popen(string.format("cd %s && timeout 5 %s %s %s 2>&1; timeout 5 %s bin/anim info %s 2>&1",
    q(H.root), H.lua, q(script), q(path), H.lua, q(path)))
  local got = {}
  for line in out:gmatch("[^\n]+") do got[#got + 1] = line end
  return got
end

local function expected(path, res, what)
  local shown = res and "res://" .. path:match("[^/]*$") or path
  return shown .. ": refused: not a regular file (" .. what .. ")"
end

local function every_reader_refuses(dir, path, what)
  local got = run_all(dir, path)
  local want = {}
  local readers = assert(load_text(READERS))()
  for _, r in ipairs(readers) do
    want[#want + 1] = r[1] .. ": " .. expected(path, r[1]:find("^library"), what)
  end
  -- (the glTF importer says so of the file it names)
  want[#want + 1] = "anim info: " .. expected(path, false, what)
  assert.are.same(want, got)
end

describe("reading files", function()
  local dir
  before_each(function() dir = H.tmpdir() end)
  after_each(function() os.execute("rm -rf " .. q(dir)) end)

  it("every reader refuses a FIFO at once, without waiting for a writer", function()
    if not have("mkfifo") or not have("timeout") then pending("no mkfifo or timeout here") return end
    local fifo = dir .. "/x.anim"
    assert(compat.execute("mkfifo " .. q(fifo)))
    every_reader_refuses(dir, fifo, "a FIFO")
  end)

  it("every reader refuses a socket", function()
    if not have("python3") or not have("timeout") then pending("no python3 here to make a socket") return end
    local sock = dir .. "/s.anim"
    assert(compat.execute("python3 -c 'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' " .. q(sock)))
    every_reader_refuses(dir, sock, "a socket")
  end)

  it("a character device is refused before anything is read from it", function()
    for _, dev in ipairs { "/dev/zero", "/dev/urandom", "/dev/null" } do
      for _, load in ipairs { anim.load, anim.load_retarget, anim.import_aseprite, anim.import_blockbench,
        anim.import_xml, anim.import_gltf } do
        local r = compat.pack(load(dev))
        assert.are.same({ n = 2, nil, dev .. ": refused: not a regular file (a character device)" }, r)
      end
    end
  end)

  it("a directory is refused, named as one", function()
    for _, load in ipairs { anim.load, anim.load_retarget, anim.import_aseprite, anim.import_blockbench,
      anim.import_xml } do
      local r = compat.pack(load(dir))
      assert.are.same({ n = 2, nil, dir .. ": cannot open file: it is a directory" }, r)
    end
  end)

  it("core.read_file reads a regular file whole, and never more than the limit + 1 bytes", function()
    local path = dir .. "/a.anim"
    H.write(path, string.rep("x", 100000))
    assert.are.equal(100000, #core.read_file(path, 100000))
    assert.are.same({ nil, "large", "100000" }, { core.read_file(path, 99999) })
    H.write(path, "")
    assert.are.equal("", core.read_file(path, 10))
    -- a file whose size fstat does not tell (0 here) is read up to the
    -- limit + 1 bytes (json.read_file then says it is too large:
    -- spec/limits_spec.lua)
    local f = io.open("/proc/self/status", "rb")
    if not f then pending("no /proc/self/status here") return end
    f:close()
    assert.are.equal(11, #core.read_file("/proc/self/status", 10))
  end)

  it("core.read_file says why it cannot open a file", function()
    assert.are.same({ nil, "open", "No such file or directory" }, { core.read_file(dir .. "/none", 10) })
    assert.are.same({ nil, "open", "the path holds a NUL byte" }, { core.read_file(dir .. "/a\0b", 10) })
    assert.are.same({ nil, "directory", "" }, { core.read_file(dir, 10) })
    assert.are.same({ nil, "other", "a character device" }, { core.read_file("/dev/zero", 10) })
  end)
end)
