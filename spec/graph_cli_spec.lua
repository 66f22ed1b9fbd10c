-- The command and .animgraph files (issue 38): anim validate (errors with
-- JSON paths, lint warnings, --strict, clips looked up beside the graph),
-- anim info (parameters, layers, states, transitions), anim graph (an SVG
-- picture: a box per state, sub-machines nested, an arrow per transition,
-- labels, entries marked), on the files of spec/data/graphs.
local H = require "spec.helper"

local q = H.sq
local ROOT = H.popen("cd " .. q(H.root) .. " && pwd"):gsub("\n$", "")
local BIN = ROOT .. "/bin/anim"
local GRAPHS = ROOT .. "/spec/data/graphs"
local WALK = ROOT .. "/examples/clips/walk.anim"

local tmp
before_each(function() tmp = H.tmpdir() end)
after_each(function() os.execute("rm -rf " .. q(tmp)) end)

-- `anim ARGS` in the temp dir: status, stdout, stderr.
local function run(args)
  local errf = tmp .. "/.stderr"
  local out, code = H.popen(string.format("cd %s && env -u LUA_PATH -u LUA_CPATH -u LUA_PATH_5_4 -u LUA_CPATH_5_4"
    .. " %s %s %s 2>%s", q(tmp), H.lua, q(BIN), args, q(errf)))
  local err = H.read(errf)
  os.remove(errf)
  return code, out, err
end

-- Copies a graph of spec/data/graphs into the temp dir, with .anim files
-- of these names beside it (each a copy of walk.anim).
local function setup(graph, clips)
  os.execute(string.format("cp %s %s", q(GRAPHS .. "/" .. graph), q(tmp)))
  for _, c in ipairs(clips or {}) do
    os.execute(string.format("mkdir -p %s && cp %s %s", q((tmp .. "/" .. c):match("^(.*)/")), q(WALK),
      q(tmp .. "/" .. c .. ".anim")))
  end
end

local HERO_CLIPS = { "idle", "walk", "run", "jump", "fall", "hit", "wave" }
local HERO_WARNINGS = {
  "hero.animgraph: parameters.weapon: a parameter no transition, state or space uses",
  "hero.animgraph: layers[1].transitions[4]: an any-state transition to 'hit' does not fire while 'hit' is current"
    .. " (can_self is false: write it, true to restart 'hit', false to keep this)",
  "hero.animgraph: layers[2].states.wave: no transition reaches this state (only a machine's entry is entered without one)",
}

describe("anim validate FILE.animgraph", function()
  it("prints the warnings and succeeds when every clip is beside the graph; --strict fails on them", function()
    setup("hero.animgraph", HERO_CLIPS)
    local code, out, err = run("validate hero.animgraph")
    assert.are.equal(0, code, out .. err)
    assert.are.equal(table.concat(HERO_WARNINGS, "\n") .. "\n", out)
    assert.are.equal("anim validate: 1 file checked, all good (3 warnings)\n", err)
    code = run("validate --strict hero.animgraph")
    assert.are.equal(1, code)
  end)

  it("names each clip not found with its JSON path and the closest .anim file", function()
    local clips = { "idle", "walk", "run", "jumps", "fall", "hit", "wave" }
    setup("hero.animgraph", clips)
    local code, out = run("validate hero.animgraph")
    assert.are.equal(1, code)
    assert.are.equal("hero.animgraph: layers[1].states.jump.clip: unknown clip 'jump'; did you mean 'jumps'?\n"
      .. table.concat(HERO_WARNINGS, "\n") .. "\n", out)
  end)

  it("looks up res:// names and names in folders relative to the graph's folder; says why a clip does not load", function()
    H.write(tmp .. "/g.animgraph", [=[{ "version": 1, "layers": [ { "name": "a", "entry": "x",
      "states": { "x": { "clip": "res://sub/walk.anim" }, "y": { "clip": "sub/run" }, "z": { "clip": "broken" } },
      "transitions": [ { "from": "x", "to": "y", "when": [["go"]] }, { "from": "y", "to": "z", "exit_time": 1 },
        { "from": "z", "to": "x", "exit_time": 1 } ] } ],
      "parameters": { "go": { "type": "trigger" } } }]=])
    setup("hero.animgraph", { "sub/walk", "sub/run" })
    H.write(tmp .. "/broken.anim", "{")
    local code, out = run("validate g.animgraph")
    assert.are.equal(1, code)
    assert.are.equal("g.animgraph: layers[1].states.z.clip: clip 'broken': res://broken.anim: not valid JSON: Expected"
      .. " object key string but found T_END at character 2\n", out)
    -- with a clip missing too (the folder then walked for suggestions)
    H.write(tmp .. "/g2.animgraph", (H.read(tmp .. "/g.animgraph"):gsub('"sub/run"', '"sub/rnu"')))
    code, out = run("validate g2.animgraph")
    assert.are.equal(1, code)
    assert.are.equal("g2.animgraph: layers[1].states.y.clip: unknown clip 'sub/rnu'; did you mean 'sub/run'?\n"
      .. "g2.animgraph: layers[1].states.z.clip: clip 'broken': res://broken.anim: not valid JSON: Expected"
      .. " object key string but found T_END at character 2\n", out)
    os.remove(tmp .. "/broken.anim")
    code, out = run("validate g.animgraph")
    assert.are.equal(1, code)
    assert.are.equal("g.animgraph: layers[1].states.z.clip: unknown clip 'broken'\n", out)
  end)

  it("gives the error of a graph that does not load, with its path and a suggestion", function()
    H.write(tmp .. "/t.animgraph", [=[{ "version": 1, "parameters": { "speed": { "type": "float" } },
      "layers": [ { "name": "a", "entry": "x", "states": { "x": { "empty": true }, "y": { "empty": true } },
      "transitions": [ { "from": "x", "to": "y", "when": [["speed", "=<", 1]] } ] } ] }]=])
    local code, out, err = run("validate t.animgraph")
    assert.are.equal(1, code)
    assert.are.equal("t.animgraph: layers[1].transitions[1].when[1][2]: unknown operator '=<'; did you mean '<='?\n", out)
    assert.are.equal("anim validate: 1 file checked, 1 file with problems\n", err)
  end)

  it("says of the issue's example that anim_speed is not defined", function()
    setup("issue.animgraph")
    local code, out = run("validate issue.animgraph")
    assert.are.equal(1, code)
    assert.are.equal("issue.animgraph: layers[1].states.fall.speed_parameter: unknown parameter 'anim_speed' (the"
      .. " parameters: grounded, jump, speed, weapon)\n", out)
  end)

  it("checks the .animgraph files of a folder", function()
    setup("hero.animgraph", HERO_CLIPS)
    setup("issue.animgraph")
    local code, out, err = run("validate .")
    assert.are.equal(1, code)
    assert.truthy(out:find("./issue.animgraph: layers[1].states.fall.speed_parameter", 1, true), out)
    assert.truthy(err:find("anim validate: 9 files checked, 1 file with problems (3 warnings)", 1, true), err)
  end)
end)

describe("anim info FILE.animgraph", function()
  it("lists the parameters, layers, states and transitions with their counts", function()
    setup("nested.animgraph")
    local code, out, err = run("info nested.animgraph")
    assert.are.equal(0, code, err)
    assert.are.equal(table.concat({
      "nested.animgraph",
      "  version    1 (state machine)",
      "parameters (3)",
      "  grounded     bool  default true",
      "  jump         trigger",
      "  speed        float  default 0",
      "layers (1, 5 states, 6 transitions)",
      "  base  blend normal, weight 1, all joints, entry ground",
      "    states (5)",
      "      air            machine, entry air/rise",
      "      ground         clip walk x speed",
      "      air/fall       clip walk",
      "      air/land       clip walk, once",
      "      air/rise       clip walk, once",
      "    transitions (6)",
      "      any -> ground  speed >= 100, 0.1 s (mix)",
      "      air -> ground  grounded == true & speed < 5, 0.25 s (mix)",
      "      ground -> air  jump, 0.1 s",
      "      air/fall -> air/land  grounded, 0.05 s",
      "      air/land -> air/exit  exit 0.8",
      "      air/rise -> air/fall  exit 1, 0.1 s (mix)",
    }, "\n") .. "\n", out)
    local code2, _, err2 = run("info nested.animgraph --animation x")
    assert.are.equal(2, code2)
    assert.are.equal("anim info: --animation: a state machine (.animgraph) has no animations (see anim info --help)\n", err2)
  end)

  it("gives an any-state transition's mix durations by the state it leaves", function()
    local f = assert(io.open(tmp .. "/any.animgraph", "w"))
    f:write([==[{ "version": 1, "parameters": { "hit": { "type": "trigger" } },
      "mix": { "run->*": 0.3, "walk->hit": 0.5, "*": 0.2 },
      "layers": [ { "name": "base", "entry": "idle",
        "states": { "idle": { "empty": true }, "walk": { "empty": true }, "run": { "empty": true },
                    "hit": { "empty": true } },
        "transitions": [ { "from": "any", "to": "hit", "when": [["hit"]] },
                         { "from": "hit", "to": "idle", "exit_time": 1 },
                         { "from": "idle", "to": "walk", "exit_time": 1 },
                         { "from": "walk", "to": "run", "exit_time": 1 } ] } ] }]==])
    f:close()
    local code, out, err = run("info any.animgraph")
    assert.are.equal(0, code, err)
    assert.truthy(out:find("      any -> hit  hit, 0.2 s (mix; 0.3 s from run; 0.5 s from walk)\n", 1, true), out)
  end)

  it("stops with the reader's message for a graph that does not load", function()
    setup("issue.animgraph")
    local code, out, err = run("info issue.animgraph")
    assert.are.equal(1, code)
    assert.are.equal("", out)
    assert.truthy(err:find("^anim info: issue.animgraph: layers%[1%].states.fall.speed_parameter: unknown parameter"), err)
  end)
end)

local parse = H.parse_xml

local function all(els, name, class)
  local out = {}
  for _, e in ipairs(els) do
    if e.name == name and (class == nil or e.attrs.class == class) then out[#out + 1] = e end
  end
  return out
end

local function texts(els)
  local set = {}
  for _, e in ipairs(all(els, "text")) do set[e.text] = true end
  return set
end

describe("anim graph FILE.animgraph -o OUT.svg", function()
  it("draws a box per state, an arrow per transition with its label, the entries, any and exit", function()
    setup("nested.animgraph")
    local code, out, err = run("graph nested.animgraph -o n.svg")
    assert.are.equal(0, code, out .. err)
    local els = parse(H.read(tmp .. "/n.svg"))
    local boxes = all(els, "rect", "state")
    local paths = {}
    for i, b in ipairs(boxes) do paths[i] = b.attrs["data-path"] end
    table.sort(paths)
    assert.are.same({ "air", "air/fall", "air/land", "air/rise", "ground" }, paths)
    assert.are.equal(6, #all(els, "path", "transition"))
    assert.are.equal(2, #all(els, "g", "entry")) -- the layer's machine and air's
    assert.are.equal(1, #all(els, "rect", "any"))
    assert.are.equal(1, #all(els, "rect", "exit"))
    local t = texts(els)
    for _, label in ipairs { "speed >= 100, 0.1 s (mix)", "grounded == true & speed < 5, 0.25 s (mix)", "jump, 0.1 s",
      "grounded, 0.05 s", "exit 0.8", "exit 1, 0.1 s (mix)", "layer base (normal, weight 1)" } do
      assert.truthy(t[label], label)
    end
    -- the sub-machine's states inside its box
    local box = {}
    for _, b in ipairs(boxes) do
      local a = b.attrs
      box[a["data-path"]] = { tonumber(a.x), tonumber(a.y), tonumber(a.x) + tonumber(a.width),
        tonumber(a.y) + tonumber(a.height) }
    end
    local air = box.air
    for _, p in ipairs { "air/fall", "air/land", "air/rise" } do
      local b = box[p]
      assert.is_true(b[1] > air[1] and b[2] > air[2] and b[3] < air[3] and b[4] < air[4], p)
    end
    -- no two boxes of one machine overlap
    local function apart(a, b) return a[3] <= b[1] or b[3] <= a[1] or a[4] <= b[2] or b[4] <= a[2] end
    assert.is_true(apart(box.air, box.ground))
    for _, a in ipairs { "air/fall", "air/land", "air/rise" } do
      for _, b in ipairs { "air/fall", "air/land", "air/rise" } do
        if a < b then assert.is_true(apart(box[a], box[b]), a .. " " .. b) end
      end
    end
    -- (compat.execute: true or nil on every runtime; 5.1's os.execute gives a number)
    local execute = require("anim.base.compat").execute
    if execute("command -v rsvg-convert >/dev/null 2>&1") then
      assert.is_true(execute(string.format("rsvg-convert %s -o %s", q(tmp .. "/n.svg"), q(tmp .. "/n.png"))))
    end
  end)

  it("draws each layer, one under the other, and a transition to its own state as a loop", function()
    H.write(tmp .. "/l.animgraph", [=[{ "version": 1, "parameters": { "again": { "type": "trigger" } },
      "layers": [ { "name": "a", "entry": "x", "states": { "x": { "empty": true } },
        "transitions": [ { "from": "x", "to": "x", "when": [["again"]] } ] },
      { "name": "b", "entry": "y", "states": { "y": { "empty": true } } } ] }]=])
    local code, _, err = run("graph l.animgraph -o -")
    assert.are.equal(0, code, err)
    local code2, svg = run("graph l.animgraph -o -")
    assert.are.equal(0, code2)
    local els = parse(svg)
    local layers = all(els, "g", "layer")
    assert.are.equal(2, #layers)
    assert.are.same({ "a", "b" }, { layers[1].attrs["data-name"], layers[2].attrs["data-name"] })
    local loop = all(els, "path", "transition")
    assert.are.equal(1, #loop)
    assert.truthy(loop[1].attrs.d:find("C", 1, true))
    assert.truthy(texts(els).again)
    local boxes = all(els, "rect", "state")
    assert.is_true(tonumber(boxes[2].attrs.y) > tonumber(boxes[1].attrs.y) + tonumber(boxes[1].attrs.height))
  end)

  it("writes nothing for a graph that does not load, and needs -o", function()
    setup("issue.animgraph")
    local code, _, err = run("graph issue.animgraph -o i.svg")
    assert.are.equal(1, code)
    assert.truthy(err:find("^anim graph: issue.animgraph: layers%[1%]"), err)
    assert.is_nil(io.open(tmp .. "/i.svg"))
    code, _, err = run("graph issue.animgraph")
    assert.are.equal(2, code)
    assert.are.equal("anim graph: missing -o OUT.svg (see anim graph --help)\n", err)
  end)
end)
