-- A library loads .animgraph files (library:graph), finds their clips
-- beside them, and its reload moves the controllers running a graph onto
-- the new one; a saved state names a library's graph by its res:// path.
local anim = require "anim"
local H = require "spec.helper"

local rig = anim.rig("player")

local GRAPH = [==[{ "version": 1, "parameters": { "speed": { "type": "float" } },
  "layers": [ { "name": "base", "entry": "idle",
    "states": { "idle": { "clip": "idle" }, "walk": { "clip": "walk" } },
    "transitions": [ { "from": "idle", "to": "walk", "when": [["speed", ">", 0.5]], "duration": 0.2 } ] } ] }]==]

local function setup(graph)
  local dir = H.tmpdir()
  os.execute("mkdir -p " .. H.sq(dir .. "/hero"))
  for _, f in ipairs { "walk.anim", "idle.anim" } do
    H.write(dir .. "/hero/" .. f, H.read(H.root .. "/examples/clips/" .. f))
  end
  H.write(dir .. "/hero/hero.animgraph", graph or GRAPH)
  return dir, assert(anim.library(dir))
end

describe("a library's graphs", function()
  -- (found by fuzz_animator: the list of controllers is weak, and keeps a
  -- collected animator's until the cycle after its finalizer ran)
  it("reload passes over the controllers of animators collected since", function()
    local dir, lib = setup()
    local g = assert(lib:graph("res://hero/hero.animgraph"))
    do
      local a = anim.animator(rig, { library = lib })
      a:control(g)
      a:update(0.1)
    end
    collectgarbage()
    H.write(dir .. "/hero/hero.animgraph", (GRAPH:gsub('"duration": 0.2', '"duration": 0.3')))
    assert.is_true(anim.is_graph(lib:reload("res://hero/hero.animgraph")))
  end)

  -- (found by CI on LuaJIT, whose collector ran the finalizer there: the
  -- finalizer marks the controller detached, and that mark made the move's
  -- error be raised out of the reload)
  it("reload passes over an animator finalized while its controller is moved", function()
    local dir, lib = setup()
    local g = assert(lib:graph("res://hero/hero.animgraph"))
    local a = anim.animator(rig, { library = lib })
    local b = anim.animator(rig, { library = lib })
    a:control(g)
    b:control(g)
    a:update(0.1)
    b:update(0.1)
    H.write(dir .. "/hero/hero.animgraph", (GRAPH:gsub('"duration": 0.2', '"duration": 0.3')))
    local core = require "anim.core"
    local save, calls, victim = core.controller_save, 0, nil
    core.controller_save = function(x, ...)
      calls = calls + 1
      if calls == 1 then
        victim = x == a and a or b
        debug.getmetatable(victim).__gc(victim)
      end
      return save(x, ...)
    end
    local ok, g2 = pcall(lib.reload, lib, "res://hero/hero.animgraph")
    core.controller_save = save
    assert.is_true(ok, g2)
    assert.is_true(anim.is_graph(g2))
    assert.are.equal(2, calls)
    -- (the other one was moved onto the new graph and plays on)
    local other = victim == a and b or a
    other:update(0.1)
  end)

  it("loads once, naming the graph by its res:// path and finding its clips beside it", function()
    local _, lib = setup()
    local g = assert(lib:graph("res://hero/hero.animgraph"))
    assert.are.equal("res://hero/hero.animgraph", g.name)
    assert.are.equal(g, lib:graph("res://hero/hero.animgraph"))
    local a = anim.animator(rig, { library = lib })
    a:control(g)
    a:update(0.1)
    assert.are.equal(lib:clip("res://hero/idle.anim"), a:tracks()[1].clip)
  end)

  it("names each clip it cannot find, with the library's reason", function()
    local _, lib = setup((GRAPH:gsub('"clip": "walk"', '"clip": "wlak"')))
    local g, err = lib:graph("res://hero/hero.animgraph")
    assert.is_nil(g)
    assert.truthy(err:find("res://hero/hero.animgraph: layers[1].states.walk.clip: unknown clip 'wlak'", 1, true), err)
    assert.truthy(err:find("res://hero/wlak.anim: ", 1, true), err)
  end)

  it("reload moves the controllers onto the new graph: parameters and states kept, new ones played", function()
    local dir, lib = setup()
    local g = assert(lib:graph("res://hero/hero.animgraph"))
    local a = anim.animator(rig, { library = lib })
    local c = a:control(g)
    local log = {}
    c:on_transition(function(_, f, t) log[#log + 1] = f .. ">" .. t end)
    c:set("speed", 1)
    for _ = 1, 5 do a:update(0.1) end
    H.write(dir .. "/hero/hero.animgraph", (GRAPH:gsub('"speed": { "type": "float" }', '"speed": { "type": "float" }, "run": { "type": "bool" }')
      :gsub('"walk": { "clip": "walk" }', '"walk": { "clip": "walk" }, "dash": { "clip": "walk", "speed": 2 }')
      :gsub('"duration": 0.2 } %]', '"duration": 0.2 }, { "from": "walk", "to": "dash", "when": [["run"]] } ]')))
    assert.are.same({ "res://hero/hero.animgraph" }, lib:changed())
    local g2 = assert(lib:reload("res://hero/hero.animgraph"))
    assert.are_not.equal(g, g2)
    assert.are.equal(c, a.controller)
    assert.are.equal(g2, c.graph)
    assert.are.same({ "walk", 1 }, { (c:current()), c:get("speed") })
    c:set("run", true)
    a:update(0.1)
    assert.are.equal("dash", (c:current()))
    assert.are.same({ "idle>walk", "walk>dash" }, log)  -- (its callbacks stay)
    -- a state gone: the layer goes to its entry at the next update
    H.write(dir .. "/hero/hero.animgraph", (GRAPH:gsub('"walk": { "clip": "walk" }', '"walk": { "clip": "walk" }, "stroll": { "clip": "walk" }')))
    assert(lib:reload("res://hero/hero.animgraph"))
    a:update(0.1)
    -- (re-entered as a transition from the entry to itself, then, speed
    -- still 1, on to walk in the same update)
    assert.are.same({ "idle>walk", "walk>dash", "idle>idle", "idle>walk" }, log)
    assert.are.equal("walk", (c:current()))
    -- a file that fails leaves the graph as it was
    H.write(dir .. "/hero/hero.animgraph", "{")
    local bad, err = lib:reload("res://hero/hero.animgraph")
    assert.is_nil(bad)
    assert.truthy(err:find("^res://hero/hero.animgraph"), err)
  end)

  -- (found by fuzz_animator: a script held the graph from before a reload
  -- and gave it to animator:control; the next reload left that controller
  -- on the old graph)
  it("reload moves a controller of a graph the file made before the last reload too", function()
    local dir, lib = setup()
    local g0 = assert(lib:graph("res://hero/hero.animgraph"))
    local g1 = assert(lib:reload("res://hero/hero.animgraph"))
    assert.are_not.equal(g0, g1)
    local a, b = anim.animator(rig, { library = lib }), anim.animator(rig, { library = lib })
    local c, d = a:control(g0), b:control(g1)
    c:set("speed", 1)
    for _ = 1, 3 do a:update(0.1); b:update(0.1) end
    H.write(dir .. "/hero/hero.animgraph", (GRAPH:gsub('"duration": 0.2', '"duration": 0.3')))
    local g2 = assert(lib:reload("res://hero/hero.animgraph"))
    assert.are.equal(g2, c.graph)
    assert.are.equal(g2, d.graph)
    assert.are.same({ "walk", 1 }, { (c:current()), c:get("speed") })
  end)

  it("reload passes over the controllers of collected animators", function()
    local dir, lib = setup()
    local g = assert(lib:graph("res://hero/hero.animgraph"))
    do
      local a = anim.animator(rig, { library = lib })
      a:control(g)
      a:update(0.1)
    end
    collectgarbage()  -- (the animator finalized; its controller may stay known until the next cycle)
    H.write(dir .. "/hero/hero.animgraph", (GRAPH:gsub('"duration": 0.2', '"duration": 0.3')))
    assert(lib:reload("res://hero/hero.animgraph"))
  end)

  it("a saved state finds a library's graph by its res:// path", function()
    local _, lib = setup()
    local a = anim.animator(rig, { library = lib })
    local c = a:control(assert(lib:graph("res://hero/hero.animgraph")))
    c:set("speed", 1)
    for _ = 1, 3 do a:update(0.1) end
    local s = require("cjson").decode(require("cjson").encode(a:state()))
    assert.are.equal("res://hero/hero.animgraph", s.controller.graph)
    local b = anim.animator(rig, { library = lib })
    assert(b:restore(s))
    for _ = 1, 5 do
      a:update(0.1)
      b:update(0.1)
      assert.are.same({ a:get("rightArm") }, { b:get("rightArm") })
    end
    assert.are.equal("walk", (b.controller:current()))
  end)
  it("an animator with no library, driven by a library's graph: its res:// names go to resolve", function()
    local _, lib = setup()
    local a = anim.animator(rig)
    a:control(assert(lib:graph("res://hero/hero.animgraph"))):set("speed", 1)
    for _ = 1, 2 do a:update(0.05) end -- (idle fading out, walk in)
    local s = a:state()
    assert.are.equal("res://hero/hero.animgraph", s.controller.graph)
    local asked = {}
    local function resolve(name, kind)
      asked[#asked + 1] = kind .. " " .. name
      if kind == "graph" then return lib:graph(name) end
      return lib:clip(name)
    end
    local b = anim.animator(rig)
    assert(b:restore(s, resolve))
    table.sort(asked)
    assert.are.same({ "clip res://hero/idle.anim", "clip res://hero/walk.anim", "graph res://hero/hero.animgraph" }, asked)
    a:update(0.1)
    b:update(0.1)
    assert.are.same({ a:get("rightArm") }, { b:get("rightArm") })
    -- without the game's clips: refused, naming the path and the name
    local ok, err = anim.animator(rig):restore(s, function(name, kind)
      if kind == "graph" then return lib:graph(name) end
    end)
    assert.is_nil(ok)
    assert.truthy(err:find("resolve('res://hero/", 1, true), err)
    assert.truthy(err:find("gave no clip (got nil)", 1, true), err)
  end)
end)
