-- .animgraph files (issue 38): format/graph.lua reads a state machine
-- into the normalized description the runtime plays.  Every rule of the
-- file with its message (JSON path, suggestion or list), the shape of the
-- description (parameter indices, states per machine, transitions in
-- evaluation order, conditions as indices and codes), the mix table's
-- precedence, the warnings of lint and the clip check.
require("anim.base.luajit").no_traversal_traces()
local H = require "spec.helper"
local graph = require "anim.format.graph"
local json = require "anim.base.json"

local NAME = "hero.animgraph"

-- A small valid graph: a blend space, a clip, a sub-machine that exits.
local function base()
  return {
    version = 1,
    parameters = { speed = { type = "float", default = 0 }, grounded = { type = "bool", default = true },
      jump = { type = "trigger" }, weapon = { type = "int", default = 0 } },
    mix = { ["*"] = 0.2 },
    layers = { {
      name = "base", entry = "move",
      states = {
        move = { space = { parameters = { "speed" }, points = { { 0, "idle" }, { 1.5, "walk" } } } },
        jump = { clip = "jump", loop = "once" },
        air = { machine = { entry = "fall", states = { fall = { clip = "fall" }, land = { clip = "land" } },
          transitions = { { from = "fall", to = "land", when = { { "grounded" } } },
            { from = "land", to = "exit", exit_time = 1 } } } },
      },
      transitions = {
        { from = "move", to = "jump", when = { { "jump" } } },
        { from = "jump", to = "air", exit_time = 0.9 },
        { from = "air", to = "move", when = { { "weapon", ">=", 0 } } },
      },
    } },
  }
end

local CASES = (function()
  return {
  { "a graph that is not an object", function() return { 1, 2 } end, "a graph must be an object, got array" },
    { "Lua's not-equal", function(g) g.layers[1].transitions[3].when[1] = { "weapon", "~=", 1 } end,
      "layers[1].transitions[3].when[1][2]: unknown operator '~='; did you mean '!='?" },
  { "an unknown top-level field", function(g) g.layer = g.layers end, "layer: unknown field; did you mean 'layers'?" },
  { "an unknown field, nothing close", function(g) g.zzzzzz = 1 end, "zzzzzz: unknown field (a graph has version, parameters, mix, layers)" },
  { "version missing", function(g) g.version = nil end, "version: a graph needs version (1)" },
  { "version 2", function(g) g.version = 2 end, "version: unknown version 2 (this reader reads version 1)" },
  { "parameter type misspelt", function(g) g.parameters.speed.type = "flaot" end, "parameters.speed.type: unknown parameter type 'flaot'; did you mean 'float'?" },
  { "parameter type nothing close", function(g) g.parameters.speed.type = "vector" end, "parameters.speed.type: unknown parameter type 'vector' (expected float, int, bool, trigger)" },
  { "parameter type missing", function(g) g.parameters.speed.type = nil end, "parameters.speed.type: a parameter needs a type (float, int, bool, trigger)" },
  { "parameter field misspelt", function(g) g.parameters.speed.defualt = 1 end, "parameters.speed.defualt: unknown field; did you mean 'default'?" },
  { "an int default that is not an integer", function(g) g.parameters.weapon.default = 1.5 end, "parameters.weapon.default: an int parameter's default must be an integer, got 1.5" },
  { "a float default that is not a number", function(g) g.parameters.speed.default = "fast" end, "parameters.speed.default: a float parameter's default must be a finite number, got string" },
  { "a bool default that is a number", function(g) g.parameters.grounded.default = 1 end, "parameters.grounded.default: a bool parameter's default must be true or false, got number" },
  { "a trigger with a default", function(g) g.parameters.jump.default = true end, "parameters.jump.default: a trigger has no default (it is fired, then consumed)" },
  { "an empty parameter name", function(g) g.parameters[""] = { type = "bool" } end, 'parameters[""]: a parameter name must not be empty' },
  { "layers missing", function(g) g.layers = nil end, "layers: a graph needs layers (an array of at least one layer)" },
  { "no layers", function(g) g.layers = {} end, "layers: a graph needs at least one layer" },
  { "a layer field misspelt", function(g) g.layers[1].wieght = 1 end, "layers[1].wieght: unknown field; did you mean 'weight'?" },
  { "two layers of one name", function(g) g.layers[2] = { name = "base", entry = "a", states = { a = { empty = true } } } end, "layers[2].name: layers[1] is called 'base' too: layer names are unique" },
  { "a layer without a name", function(g) g.layers[1].name = nil end, "layers[1].name: a layer's name must be a string, got nil" },
  { "blend misspelt", function(g) g.layers[1].blend = "additiv" end, "layers[1].blend: unknown blend 'additiv'; did you mean 'additive'?" },
  { "a negative weight", function(g) g.layers[1].weight = -1 end, "layers[1].weight: weight must be >= 0, got -1" },
  { "an infinite weight", function(g) g.layers[1].weight = math.huge end, "layers[1].weight: weight must be a finite number, got inf" },
  { "a mask that is not a list of names", function(g) g.layers[1].mask = { "spine", 3 } end, "layers[1].mask[2]: a mask's joint name must be a string, got number" },
  { "an entry that is not a state", function(g) g.layers[1].entry = "mvoe" end, "layers[1].entry: unknown entry state 'mvoe'; did you mean 'move'?" },
  { "an entry missing", function(g) g.layers[1].entry = nil end, "layers[1].entry: a machine needs entry (the state it starts in)" },
  { "states missing", function(g) g.layers[1].states = nil end, "layers[1].states: a machine needs states (an object of name: state)" },
  { "no state", function(g) g.layers[1].states = {} end, "layers[1].states: a machine needs at least one state" },
  { "a state of two kinds", function(g) g.layers[1].states.jump.empty = true end, "layers[1].states.jump: a state is one of clip, space, machine or empty, not both clip and empty" },
  { "a state of no kind", function(g) g.layers[1].states.jump.clip = nil end, "layers[1].states.jump: a state needs one of clip, space, machine or empty" },
  { "a state field misspelt", function(g) g.layers[1].states.jump.lop = "once" end, "layers[1].states.jump.lop: unknown field; did you mean 'loop'?" },
  { "a loop mode misspelt", function(g) g.layers[1].states.jump.loop = "onse" end, "layers[1].states.jump.loop: unknown loop mode 'onse'; did you mean 'once'?" },
  { "a loop mode nothing close", function(g) g.layers[1].states.jump.loop = "forever" end, "layers[1].states.jump.loop: unknown loop mode 'forever' (expected once, loop, hold, pingpong)" },
  { "a speed that is not finite", function(g) g.layers[1].states.jump.speed = "x" end, "layers[1].states.jump.speed: speed must be a finite number, got string" },
  { "a speed_parameter not declared", function(g) g.layers[1].states.jump.speed_parameter = "sped" end, "layers[1].states.jump.speed_parameter: unknown parameter 'sped'; did you mean 'speed'?" },
  { "a speed_parameter not a float", function(g) g.layers[1].states.jump.speed_parameter = "weapon" end, "layers[1].states.jump.speed_parameter: speed_parameter 'weapon' must be a float parameter, it is an int" },
  { "empty that is not true", function(g) g.layers[1].states.jump = { empty = false } end, "layers[1].states.jump.empty: empty must be true, got boolean" },
  { "a loop on an empty state", function(g) g.layers[1].states.jump = { empty = true, loop = "once" } end, "layers[1].states.jump.loop: loop applies to clip and space states, not to an empty state" },
  { "an empty clip name", function(g) g.layers[1].states.jump.clip = "" end, "layers[1].states.jump.clip: clip name must not be empty" },
  { "a state named any", function(g) g.layers[1].states.any = { empty = true } end, "layers[1].states.any: 'any' is not a state name (it is a word of a transition's from)" },
  { "a state name with a slash", function(g) g.layers[1].states["a/b"] = { empty = true } end, 'layers[1].states["a/b"]: a state name cannot hold \'/\' (it separates the states of sub-machines: air/fall)' },
  { "a state name with an arrow", function(g) g.layers[1].states["a->b"] = { empty = true } end, 'layers[1].states["a->b"]: a state name cannot hold \'->\' (it separates the two states of a mix key)' },
  { "a space of 3 parameters", function(g) g.layers[1].states.move.space.parameters = { "speed", "speed", "speed" } end, "layers[1].states.move.space.parameters: a space has 1 or 2 parameters (1D, 2D), got 3" },
  { "a space over a bool", function(g) g.layers[1].states.move.space.parameters = { "grounded" } end, "layers[1].states.move.space.parameters[1]: space parameter 'grounded' must be a float parameter, it is a bool" },
  { "a space field misspelt", function(g) g.layers[1].states.move.space.snyc = true end, "layers[1].states.move.space.snyc: unknown field; did you mean 'sync'?" },
  { "a 1D point with a 2D place", function(g) g.layers[1].states.move.space.points[2] = { { 1, 2 }, "walk" } end, "layers[1].states.move.space.points[2][1]: a point of a 1D space is [at, clip], at a finite number, got array" },
  { "a point of one element", function(g) g.layers[1].states.move.space.points[2] = { 1 } end, "layers[1].states.move.space.points[2]: a point is [at, clip], got array" },
  { "two points at one place", function(g) g.layers[1].states.move.space.points[2][1] = 0 end, "layers[1].states.move.space.points[2][1]: points[1] is at the same place: each point needs a place of its own" },
  { "a space without points", function(g) g.layers[1].states.move.space.points = {} end, "layers[1].states.move.space.points: a space has 1 to 64 points, got 0" },
  { "a 2D space over one parameter twice", function(g) g.layers[1].states.move.space.parameters = { "speed", "speed" } end, "layers[1].states.move.space.parameters[2]: a 2D space needs two different parameters, got 'speed' twice" },
  { "sync not a boolean", function(g) g.layers[1].states.move.space.sync = "yes" end, "layers[1].states.move.space.sync: sync must be true or false, got string" },
  { "a machine field misspelt", function(g) g.layers[1].states.air.machine.entyr = "fall" end, "layers[1].states.air.machine.entyr: unknown field; did you mean 'entry'?" },
  { "a sub-machine's entry elsewhere", function(g) g.layers[1].states.air.machine.entry = "move" end, "layers[1].states.air.machine.entry: unknown entry state 'move' (the states of machine 'air': fall, land)" },
  { "a sub-machine transition to a parent's state", function(g) g.layers[1].states.air.machine.transitions[2].to = "move" end, "layers[1].states.air.machine.transitions[2].to: unknown state 'move' (the states of machine 'air': fall, land)" },
  { "exit from the layer's machine", function(g) g.layers[1].transitions[1].to = "exit" end, "layers[1].transitions[1].to: \"exit\" leaves a sub-machine; this is the layer's own machine" },
  { "a transition field misspelt", function(g) g.layers[1].transitions[1].exittime = 1 end, "layers[1].transitions[1].exittime: unknown field; did you mean 'exit_time'?" },
  { "a transition without from", function(g) g.layers[1].transitions[1].from = nil end, "layers[1].transitions[1].from: a transition needs from (a state or \"any\")" },
  { "a transition without to", function(g) g.layers[1].transitions[1].to = nil end, "layers[1].transitions[1].to: a transition needs to (a state)" },
  { "a from misspelt", function(g) g.layers[1].transitions[1].from = "mvoe" end, "layers[1].transitions[1].from: unknown state 'mvoe'; did you mean 'move'?" },
  { "a to nothing close", function(g) g.layers[1].transitions[1].to = "hit" end, "layers[1].transitions[1].to: unknown state 'hit' (the states: air, jump, move)" },
  { "an operator misspelt", function(g) g.layers[1].transitions[3].when[1] = { "speed", "=<", 1 } end, "layers[1].transitions[3].when[1][2]: unknown operator '=<'; did you mean '<='?" },
  { "an operator nothing close", function(g) g.layers[1].transitions[3].when[1] = { "speed", "~~~", 1 } end, "layers[1].transitions[3].when[1][2]: unknown operator '~~~' (expected ==, !=, <, <=, >, >=)" },
  { "a condition of two elements", function(g) g.layers[1].transitions[3].when[1] = { "speed", ">" } end, "layers[1].transitions[3].when[1]: a condition is [name] or [name, op, value], got an array of 2" },
  { "a condition's parameter misspelt", function(g) g.layers[1].transitions[3].when[1] = { "wepon", "==", 1 } end, "layers[1].transitions[3].when[1][1]: unknown parameter 'wepon'; did you mean 'weapon'?" },
  { "a float tested as [name]", function(g) g.layers[1].transitions[3].when[1] = { "speed" } end, "layers[1].transitions[3].when[1]: [name] tests a bool or a trigger; 'speed' is a float parameter: compare it, as [\"speed\", \">\", 0]" },
  { "a trigger compared", function(g) g.layers[1].transitions[3].when[1] = { "jump", "==", true } end, "layers[1].transitions[3].when[1]: 'jump' is a trigger: it is tested as [\"jump\"], without an operator and a value" },
  { "an int compared with a fraction", function(g) g.layers[1].transitions[3].when[1] = { "weapon", "==", 1.5 } end, "layers[1].transitions[3].when[1][3]: 'weapon' is an int parameter: the value must be an integer, got 1.5" },
  { "a float compared with a boolean", function(g) g.layers[1].transitions[3].when[1] = { "speed", ">", true } end, "layers[1].transitions[3].when[1][3]: 'speed' is a float parameter: the value must be a finite number, got boolean" },
  { "a bool compared with a number", function(g) g.layers[1].transitions[3].when[1] = { "grounded", "==", 1 } end, "layers[1].transitions[3].when[1][3]: 'grounded' is a bool parameter: the value must be true or false, got number" },
  { "a bool compared with <", function(g) g.layers[1].transitions[3].when[1] = { "grounded", "<", true } end, "layers[1].transitions[3].when[1][2]: 'grounded' is a bool parameter: it compares with == or !=, not <" },
  { "when not a list", function(g) g.layers[1].transitions[3].when = "jump" end, "layers[1].transitions[3].when: when must be an array, got string" },
  { "a negative exit_time", function(g) g.layers[1].transitions[2].exit_time = -0.5 end, "layers[1].transitions[2].exit_time: exit_time must be >= 0, got -0.5" },
  { "a negative duration", function(g) g.layers[1].transitions[2].duration = -1 end, "layers[1].transitions[2].duration: duration must be >= 0, got -1" },
  { "a curve misspelt", function(g) g.layers[1].transitions[2].curve = "sineinuot" end, "layers[1].transitions[2].curve: unknown curve 'sineinuot'; did you mean 'sineinout'?" },
  { "an offset above 1", function(g) g.layers[1].transitions[2].offset = 1.5 end, "layers[1].transitions[2].offset: offset must be between 0 and 1, got 1.5" },
  { "offset and sync", function(g) g.layers[1].transitions[2].offset = 0.5; g.layers[1].transitions[2].sync = true end, "layers[1].transitions[2].offset: offset and sync both say where the destination starts: give one" },
  { "sync not a boolean", function(g) g.layers[1].transitions[2].sync = 1 end, "layers[1].transitions[2].sync: sync must be true or false, got number" },
  { "an interrupt misspelt", function(g) g.layers[1].transitions[2].interrupt = "sorce" end, "layers[1].transitions[2].interrupt: unknown interrupt value 'sorce'; did you mean 'source'?" },
  { "an interrupt nothing close", function(g) g.layers[1].transitions[2].interrupt = "always" end, "layers[1].transitions[2].interrupt: unknown interrupt value 'always' (expected none, source, destination, source_then_destination, destination_then_source)" },
  { "can_self not a boolean", function(g) g.layers[1].transitions[2].can_self = "no" end, "layers[1].transitions[2].can_self: can_self must be true or false, got string" },
  { "a mix key of a state no layer has", function(g) g.mix["run->*"] = 0.3 end, 'mix["run->*"]: unknown state \'run\' (the states: air, air/fall, air/land, jump, move)' },
  { "a mix key misspelt", function(g) g.mix["*->jmup"] = 0.3 end, 'mix["*->jmup"]: unknown state \'jmup\'; did you mean \'jump\'?' },
  { "a mix key without an arrow", function(g) g.mix.jump = 0.3 end, 'mix.jump: a mix key is "from->to", "from->*", "*->to" or "*", got \'jump\'' },
  { "a mix key *->*", function(g) g.mix["*->*"] = 0.3 end, 'mix["*->*"]: write "*" for every pair' },
  { "a negative mix duration", function(g) g.mix["*"] = -0.2 end, 'mix["*"]: a mix duration must be >= 0, got -0.2' },
  { "parameters not an object", function(g) g.parameters = { 1, 2 } end, "parameters: parameters must be an object, got array" },
  { "a parameter not an object", function(g) g.parameters.speed = "float" end, "parameters.speed: a parameter must be an object, got string" },
  { "a parameter name that is a number (a Lua table)", function(g) g.parameters[7] = { type = "bool" } end, "parameters: the names of parameters must be strings, got 7" },
  { "a field name that is a number (a Lua table)", function(g) g.layers[1].states.jump[3] = true end, "layers[1].states.jump: the keys of a state must be strings, got 3" },
  { "layers not an array", function(g) g.layers = { base = g.layers[1] } end, "layers: layers must be an array, got object" },
  { "a layer not an object", function(g) g.layers[1] = "base" end, "layers[1]: a layer must be an object, got string" },
  { "a state not an object", function(g) g.layers[1].states.jump = "jump" end, "layers[1].states.jump: a state must be an object, got string" },
  { "states not an object", function(g) g.layers[1].states = { "move" } end, "layers[1].states: states must be an object, got array" },
  { "a machine not an object", function(g) g.layers[1].states.air.machine = true end, "layers[1].states.air.machine: a machine must be an object, got boolean" },
  { "a sub-machine without states", function(g) g.layers[1].states.air.machine.states = nil end, "layers[1].states.air.machine.states: a machine needs states (an object of name: state)" },
  { "a sub-machine's entry misspelt", function(g) g.layers[1].states.air.machine.entry = "fal" end, "layers[1].states.air.machine.entry: unknown entry state 'fal'; did you mean 'fall'?" },
  { "a transition not an object", function(g) g.layers[1].transitions[1] = { "move", "jump" } end, "layers[1].transitions[1]: a transition must be an object, got array" },
  { "transitions not an array", function(g) g.layers[1].transitions = { x = 1 } end, "layers[1].transitions: transitions must be an array, got object" },
  { "a from that is not a string", function(g) g.layers[1].transitions[1].from = 1 end, "layers[1].transitions[1].from: state must be a string, got number" },
  { "a condition that is not an array", function(g) g.layers[1].transitions[3].when[1] = "jump" end, "layers[1].transitions[3].when[1]: condition must be an array, got string" },
  { "a condition's name that is not a string", function(g) g.layers[1].transitions[3].when[1] = { 1, "==", 1 } end, "layers[1].transitions[3].when[1][1]: parameter must be a string, got number" },
  { "an operator that is not a string", function(g) g.layers[1].transitions[3].when[1] = { "weapon", 1, 1 } end, "layers[1].transitions[3].when[1][2]: operator must be one of ==, !=, <, <=, >, >=, got number" },
  { "a condition on a graph without parameters", function(g) g.parameters = nil; g.layers[1].states.move = { clip = "m" } end, "layers[1].transitions[1].when[1][1]: unknown parameter 'jump' (the parameters: none)" },
  { "a space not an object", function(g) g.layers[1].states.move.space = { "speed" } end, "layers[1].states.move.space: space must be an object, got array" },
  { "a 2D point with a 1D place", function(g) g.parameters.dir = { type = "float" }; g.layers[1].states.move.space.parameters = { "speed", "dir" } end, "layers[1].states.move.space.points[1][1]: a point of a 2D space is [[x, y], clip], x and y finite numbers, got number" },
  { "a point's clip that is not a string", function(g) g.layers[1].states.move.space.points[2][2] = 3 end, "layers[1].states.move.space.points[2][2]: clip name must be a string, got number" },
  { "an offset that is not a number", function(g) g.layers[1].transitions[2].offset = "half" end, "layers[1].transitions[2].offset: offset must be a finite number, got string" },
  { "a curve that is not a string", function(g) g.layers[1].transitions[2].curve = 2 end, "layers[1].transitions[2].curve: curve must be one of " .. table.concat(require("anim.format.graph_names").CURVES, ", ") .. ", got number" },
  { "an exit_time that is not finite", function(g) g.layers[1].transitions[2].exit_time = 0 / 0 end, "layers[1].transitions[2].exit_time: exit_time must be a finite number, got nan" },
  { "a mask that is not an array", function(g) g.layers[1].mask = "spine" end, "layers[1].mask: mask must be an array, got string" },
  { "an empty layer name", function(g) g.layers[1].name = "" end, "layers[1].name: a layer's name must not be empty" },
  { "a speed on a machine state", function(g) g.layers[1].states.air.speed = 2 end, "layers[1].states.air.speed: speed applies to clip and space states, not to a machine state" },
  { "mix not an object", function(g) g.mix = { 0.2 } end, "mix: mix must be an object, got array" },
  { "a mix duration that is not a number", function(g) g.mix["*"] = "0.2" end, 'mix["*"]: a mix duration must be a finite number, got string' },
}
end)()

describe(".animgraph: every rule with its message", function()
  it("reads the base graph", function()
    local desc, warnings = graph.decode(base(), NAME)
    assert.is_table(desc, warnings)
  end)
  for _, c in ipairs(CASES) do
    it(c[1], function()
      local g = base()
      g = c[2](g) or g
      local desc, err = graph.decode(g, NAME)
      assert.is_nil(desc)
      assert.are.equal(NAME .. ": " .. c[3], err)
    end)
  end

  it("reads JSON text through the module's decoder, naming the file", function()
    local text = '{"version": 1, "layers": [{"name": "a", "entry": "x", "states": {"x": {"empty": true}}, }]}'
    local desc, err = graph.decode(text, NAME)
    assert.is_nil(desc)
    assert.are.equal(NAME .. ": not valid JSON: Expected object key string but found T_OBJ_END at character 89", err)
    assert.is_table(graph.decode(
      '{"version": 1, "layers": [{"name": "a", "entry": "x", "states": {"x": {"empty": true}}}]}', NAME))
  end)

  it("names a source that is neither text nor a table", function()
    assert.are.same({ nil, "graph: a graph is JSON text or a table, got boolean" }, { graph.decode(true) })
  end)

  it("refuses a table that holds itself, without looping", function()
    local g = base()
    g.layers[1].states.jump.self = g.layers[1].states.jump
    local desc, err = graph.decode(g, NAME)
    assert.is_nil(desc)
    assert.truthy(err:find("the table holds itself", 1, true), err)
  end)

  it("reads a file by path through json.read_file, and says why one cannot be read", function()
    local desc = graph.read(H.root .. "/spec/data/graphs/hero.animgraph")
    assert.is_table(desc)
    local none, err = graph.read("/nonexistent/x.animgraph")
    assert.is_nil(none)
    assert.are.equal("/nonexistent/x.animgraph: cannot open file: No such file or directory", err)
  end)

  it("says of the issue's own example that anim_speed, then hit are not defined", function()
    local path = H.root .. "/spec/data/graphs/issue.animgraph"
    local _, err = graph.read(path)
    assert.are.equal(path .. ": layers[1].states.fall.speed_parameter: unknown parameter 'anim_speed' (the parameters:"
      .. " grounded, jump, speed, weapon)", err)
    local g = json.decode(H.read(path))
    g.parameters.anim_speed = { type = "float", default = 1 }
    _, err = graph.decode(g, "issue.animgraph")
    assert.are.equal("issue.animgraph: layers[1].transitions[4].to: unknown state 'hit' (the states: fall, jump, move)", err)
  end)
end)

describe(".animgraph: the normalized description", function()
  local desc = assert(graph.decode(base(), NAME))

  it("lists the parameters sorted by name, with index, type and default", function()
    local got = {}
    for i, p in ipairs(desc.parameters) do
      assert.are.equal(i, p.index)
      got[i] = { p.name, p.type, p.default }
      assert.are.equal(i, desc.parameter_index[p.name])
    end
    assert.are.same({ { "grounded", "bool", true }, { "jump", "trigger", nil }, { "speed", "float", 0 },
      { "weapon", "int", 0 } }, got)
    assert.is_true(math.type == nil or math.type(desc.parameters[4].default) == "integer")
    assert.are.equal(0, desc.parameters[4].default % 1)
  end)

  it("flattens the states per machine, by name, sub-machines after their parent", function()
    local layer = desc.layers[1]
    assert.are.equal(1, desc.layer_index.base)
    local got = {}
    for i, s in ipairs(layer.states) do
      assert.are.equal(i, s.index)
      assert.are.equal(i, layer.by_path[s.path])
      got[i] = { s.path, s.kind, s.machine }
    end
    assert.are.same({ { "air", "machine", 1 }, { "jump", "clip", 1 }, { "move", "space", 1 }, { "air/fall", "clip", 2 },
      { "air/land", "clip", 2 } }, got)
    assert.are.equal(2, layer.states[1].child)
    assert.are.same({ 4, 5 }, layer.machines[2].states)
    assert.are.equal(1, layer.machines[2].parent)
    assert.are.equal("air", layer.machines[2].path)
    assert.are.equal(4, layer.machines[2].entry)
    assert.are.equal(3, layer.entry)
    assert.are.equal("once", layer.states[2].loop)
    assert.are.equal(0, layer.states[2].loop_code)
    assert.are.same({ dimensions = 1, parameters = { 3 }, sync = true,
      points = { { at = 0, clip = "idle" }, { at = 1.5, clip = "walk" } } }, layer.states[3].space)
    assert.are.equal("normal", layer.blend)
    assert.are.equal(1, layer.weight)
    assert.is_nil(layer.mask)
  end)

  it("orders the transitions any-state first, then by source state, each in file order", function()
    local g = base()
    g.layers[1].transitions = {
      { from = "move", to = "jump", when = { { "jump" } } },
      { from = "jump", to = "air", exit_time = 0.9 },
      { from = "any", to = "move", when = { { "speed", "<", 0.5 } } },
      { from = "move", to = "air", when = { { "grounded", "==", false } } },
      { from = "any", to = "jump", when = { { "weapon", "!=", 2 } }, can_self = true },
    }
    local d = assert(graph.decode(g, NAME))
    local m = d.layers[1].machines[1]
    local order = {}
    for i, t in ipairs(m.transitions) do
      assert.are.equal(i, t.index)
      order[i] = t.file_index
    end
    -- any (3, 5), then air (none), jump (2), move (1, 4)
    assert.are.same({ 3, 5, 2, 1, 4 }, order)
    assert.are.equal(2, m.any)
    assert.are.same({ 4, 5 }, d.layers[1].states[3].transitions)
    assert.are.same({ 3 }, d.layers[1].states[2].transitions)
    local t = m.transitions[1]
    assert.is_true(t.any)
    assert.is_nil(t.from)
    assert.are.equal(3, t.to)
    assert.are.same({ { param = 3, op = 2, value = 0.5, json = "layers[1].transitions[3].when[1]" } }, t.conditions)
    assert.are.same({ param = 1, op = 0, value = false, json = "layers[1].transitions[4].when[1]" },
      m.transitions[5].conditions[1])
    assert.are.same({ param = 2, op = 6, json = "layers[1].transitions[1].when[1]" }, m.transitions[4].conditions[1])
    assert.is_true(m.transitions[2].can_self)
    assert.is_true(math.type == nil or math.type(m.transitions[2].conditions[1].value) == "integer")
  end)

  it("gives each transition its defaults and the codes of its names", function()
    local t = desc.layers[1].machines[1].transitions[2] -- jump -> air
    assert.are.equal("layers[1].transitions[2]", t.json)
    assert.are.equal(0.9, t.exit_time)
    assert.is_nil(t.duration)
    assert.are.equal("linear", t.curve)
    assert.are.equal(0, t.offset)
    assert.is_false(t.sync)
    assert.are.equal("none", t.interrupt)
    assert.are.equal(0, t.interrupt_code)
    assert.is_false(t.can_self)
    local exit = desc.layers[1].machines[2].transitions[2]
    assert.is_true(exit.exit)
    assert.is_nil(exit.to)
    local g = base()
    local t2 = g.layers[1].transitions[2]
    t2.curve, t2.interrupt, t2.duration, t2.offset = "backinout", "destination_then_source", 0.25, 0.5
    local d = assert(graph.decode(g, NAME))
    t = d.layers[1].machines[1].transitions[2]
    local codes = require "anim.base.codes"
    assert.are.same({ "backinout", codes.interp.back, codes.ease.inOut, 4, 0.25, 0.5 },
      { t.curve, t.curve_interp, t.curve_ease, t.interrupt_code, t.duration, t.offset })
    -- an easing alone takes its default direction, as a .anim key's
    g.layers[1].transitions[2].curve = "bounce"
    t = assert(graph.decode(g, NAME)).layers[1].machines[1].transitions[2]
    assert.are.equal(codes.ease.out, t.curve_ease)
  end)

  it("lists every clip name with its JSON path, resolving none", function()
    local got = {}
    for i, c in ipairs(desc.clips) do got[i] = c.name .. " " .. c.json end
    assert.are.same({ "jump layers[1].states.jump.clip", "idle layers[1].states.move.space.points[1][2]",
      "walk layers[1].states.move.space.points[2][2]", "fall layers[1].states.air.machine.states.fall.clip",
      "land layers[1].states.air.machine.states.land.clip" }, got)
  end)
end)

describe(".animgraph: the mix table", function()
  local function with_mix(mix)
    local g = base()
    g.mix = mix
    return assert(graph.decode(g, NAME))
  end

  it("reads keys padded with 100,000 spaces in linear time (trimmed: 31 s, quadratic, before)", function()
    local pad = string.rep(" ", 100000)
    -- ("%s+$" was tried at every space of a run that something else follows)
    local d = H.quick(0.5, "a padded mix key", with_mix, { [pad .. "jump" .. pad .. "->" .. pad .. "air" .. pad] = 0.3 })
    assert.are.equal(0.3, d.mix_duration(1, "jump", "air"))
    local g = base()
    g.mix = { ["jump" .. pad .. "x->air"] = 0.3 }
    local _, err = H.quick(0.5, "a padded key of no state", graph.decode, g, NAME)
    assert.truthy(err:find('^hero.animgraph: mix%["jump      .-"%.%.%. %(100010 bytes%)%]: unknown state \'jump      .-'
      .. '%.%.%. %(100005 bytes%)\' %(the states: air, air/fall, air/land, jump, move%)$'), err)
  end)

  it("takes the exact pair, then from->*, then *->to, then *, else 0", function()
    local all = { ["jump->air"] = 1, ["jump->*"] = 2, ["*->air"] = 3, ["*"] = 4 }
    local d = with_mix(all)
    assert.are.equal(1, d.mix_duration(1, "jump", "air"))
    all["jump->air"] = nil
    assert.are.equal(2, with_mix(all).mix_duration(1, "jump", "air"))
    all["jump->*"] = nil
    assert.are.equal(3, with_mix(all).mix_duration("base", "jump", "air"))
    all["*->air"] = nil
    assert.are.equal(4, with_mix(all).mix_duration(1, "jump", "air"))
    assert.are.equal(0, with_mix(nil).mix_duration(1, "jump", "air"))
    -- from->* before *->to whichever is shorter
    d = with_mix({ ["move->*"] = 0.5, ["*->jump"] = 0.05 })
    assert.are.equal(0.5, d.mix_duration(1, "move", "jump"))
    assert.are.equal(0.05, d.mix_duration(1, "air", "jump"))
    -- states of sub-machines by path; spaces around the arrow read past
    d = with_mix({ ["air/fall -> air/land"] = 0.7 })
    assert.are.equal(0.7, d.mix_duration(1, "air/fall", "air/land"))
    assert.are.equal(0, d.mix_duration(1, "air/land", "air/fall"))
  end)

  it("puts a transition's own duration first, and an any-state one's pair is current -> destination", function()
    local g = base()
    g.mix = { ["move->jump"] = 0.3, ["*"] = 0.2 }
    g.layers[1].transitions[1].duration = 0.1
    g.layers[1].transitions[4] = { from = "any", to = "jump", when = { { "grounded" } } }
    local d = assert(graph.decode(g, NAME))
    local m = d.layers[1].machines[1]
    local own, any = m.transitions[4], m.transitions[1] -- move -> jump (0.1), any -> jump
    assert.are.equal(0.1, d.duration(1, own, "move"))
    assert.are.equal(0.3, d.duration(1, any, "move"))
    assert.are.equal(0.2, d.duration(1, any, "air"))
  end)

  it("resolves the table on each layer's own states", function()
    local g = base()
    g.layers[2] = { name = "upper", entry = "jump", states = { jump = { empty = true }, wave = { clip = "wave" } } }
    g.mix = { ["*->wave"] = 0.4, ["move->jump"] = 0.3 }
    local d = assert(graph.decode(g, NAME))
    assert.are.equal(0.4, d.mix_duration("upper", "jump", "wave"))
    assert.are.equal(0.3, d.mix_duration("base", "move", "jump"))
    assert.are.same({}, d.layers[2].mix.pair)
    assert.has_error(function() d.mix_duration("legs", "a", "b") end)
  end)
end)

describe(".animgraph: lint", function()
  local function warnings(g)
    local desc, w = graph.decode(g, NAME)
    assert.is_table(desc, w)
    assert.are.same(w, graph.lint(desc))
    return w
  end

  it("has nothing to say of the base graph", function()
    assert.are.same({}, warnings(base()))
  end)

  it("names states no transition reaches, other than entries", function()
    local g = base()
    g.layers[1].states.idle = { clip = "idle" }
    g.layers[1].states.air.machine.states.dive = { clip = "dive" }
    assert.are.same({ "layers[1].states.idle: no transition reaches this state (only a machine's entry is entered"
      .. " without one)", "layers[1].states.air.machine.states.dive: no transition reaches this state (only a"
      .. " machine's entry is entered without one)" }, warnings(g))
  end)

  it("names a transition from a named state that fires at once, and those it hides", function()
    local g = base()
    g.layers[1].transitions[2].exit_time = nil
    g.layers[1].transitions[4] = { from = "jump", to = "move", when = { { "jump" } } }
    assert.are.same({ "layers[1].transitions[2]: a transition from 'jump' with neither conditions (when) nor exit_time:"
      .. " it fires as soon as 'jump' is current", "layers[1].transitions[4]: never fires: layers[1].transitions[2], from"
      .. " the same state before it, has neither conditions nor exit_time" }, warnings(g))
  end)

  it("names triggers no transition consumes and parameters nothing uses", function()
    local g = base()
    g.parameters.hit = { type = "trigger" }
    g.parameters.aim = { type = "float" }
    g.layers[1].states.jump.speed_parameter = "aim" -- (used)
    g.parameters.unused = { type = "bool" }
    assert.are.same({ "parameters.hit: a trigger no transition consumes (firing it does nothing)",
      "parameters.unused: a parameter no transition, state or space uses" }, warnings(g))
  end)

  it("names an any-state transition to its own target without can_self; can_self where it changes nothing", function()
    local g = base()
    g.layers[1].transitions[4] = { from = "any", to = "jump", when = { { "jump" } } }
    g.layers[1].transitions[5] = { from = "any", to = "move", when = { { "weapon", "==", 1 } }, can_self = false }
    g.layers[1].transitions[1].can_self = true
    assert.are.same({ "layers[1].transitions[4]: an any-state transition to 'jump' does not fire while 'jump' is current"
      .. " (can_self is false: write it, true to restart 'jump', false to keep this)",
      "layers[1].transitions[1].can_self: can_self applies to any-state transitions: it changes nothing here" },
      warnings(g))
    g.layers[1].transitions[6] = { from = "any", to = "air", can_self = true }
    local w = warnings(g)
    assert.are.equal("layers[1].transitions[6]: an any-state transition with neither conditions (when) nor exit_time: it"
      .. " fires at once from every state", w[2])
  end)

  it("names a cycle of zero-duration transitions without conditions or exit time", function()
    local g = base()
    g.mix = nil
    g.layers[1].states.hop = { clip = "hop" }
    g.layers[1].transitions = { { from = "move", to = "jump" }, { from = "jump", to = "hop" }, { from = "hop", to = "move" },
      { from = "jump", to = "air", when = { { "jump" } } }, { from = "air", to = "move", when = { { "weapon", "==", 1 } } } }
    local ts = g.layers[1].transitions
    local w = warnings(g)
    assert.are.equal("layers[1].transitions[3]: zero-duration transitions with neither conditions nor exit_time form a"
      .. " cycle (hop -> move -> jump -> hop): the runtime stops it at 8 transitions per layer and update", w[#w])
    -- a duration (the transition's own, or the mix table's) breaks it
    g.mix = { ["*"] = 0.1 }
    w = warnings(g)
    assert.falsy(w[#w]:find("cycle", 1, true))
    g.mix = nil
    ts[1].duration = 0.2
    w = warnings(g)
    assert.falsy(w[#w]:find("cycle", 1, true))
    -- a machine state's transitions wait for its exit: no cycle through it
    g = base()
    g.mix = nil
    g.layers[1].transitions = { { from = "move", to = "air" }, { from = "air", to = "move" }, { from = "move", to = "jump",
      when = { { "jump" } } }, { from = "jump", to = "move", when = { { "weapon", "==", 1 } } } }
    for _, x in ipairs(warnings(g)) do assert.falsy(x:find("cycle", 1, true), x) end
    -- a state to itself
    g = base()
    g.mix = nil
    g.layers[1].transitions = { { from = "move", to = "move" }, { from = "move", to = "jump" }, { from = "jump", to = "air",
      exit_time = 1 }, { from = "air", to = "move", when = { { "jump" } } } }
    w = warnings(g)
    assert.are.equal("layers[1].transitions[1]: zero-duration transitions with neither conditions nor exit_time form a"
      .. " cycle (move -> move): the runtime stops it at 8 transitions per layer and update", w[#w])
  end)

  it("stays linear: a chain of 20,000 instant transitions and a cycle through them", function()
    local states, ts = {}, {}
    local n = 20000
    for i = 1, n do
      states["s" .. i] = { empty = true }
      ts[i] = { from = "s" .. i, to = "s" .. (i % n + 1) }
    end
    local g = { version = 1, layers = { { name = "a", entry = "s1", states = states, transitions = ts } } }
    local w = H.bounded(200, function() return select(2, graph.decode(g, NAME)) end)
    assert.truthy(w[#w]:find("cycle (s1 -> s2 -> ", 1, true), w[#w])
    assert.truthy(w[#w]:find("... (20000 states)", 1, true), w[#w])
  end)
end)

describe("anim.graph of a file and no clips", function()
  it("says where its clips come from: given, or found beside it by library:graph", function()
    local anim = require "anim"
    local path = H.root .. "/examples/clips/hero.animgraph"
    local g, msg = anim.graph(path)
    assert.is_nil(g)
    assert.truthy(msg:find("^" .. path:gsub("%p", "%%%0") .. ": 7 clips not found: "), msg)
    assert.truthy(msg:find(" %(no clips given: pass them, or read the graph with library:graph%)$"), msg)
    -- (clips given, some missing: the message is the clips')
    g, msg = anim.graph(path, {})
    assert.is_nil(g)
    assert.is_nil(msg:find("no clips given", 1, true))
  end)
end)

describe(".animgraph: check_clips", function()
  local desc = assert(graph.decode(base(), NAME))

  it("is nil when every clip resolves, through a table or a function", function()
    assert.is_nil(graph.check_clips(desc, { jump = 1, idle = 1, walk = 1, fall = 1, land = 1 }))
    assert.is_nil(graph.check_clips(desc, function() return true end))
  end)

  it("names every clip not resolved with its JSON path and the closest known name", function()
    local msg, lines = graph.check_clips(desc, { jmup = 1, idle = 1, walk = 1, fall = 1 })
    assert.are.equal(NAME .. ": 2 clips not found: layers[1].states.jump.clip: unknown clip 'jump'; did you mean"
      .. " 'jmup'?; layers[1].states.air.machine.states.land.clip: unknown clip 'land'", msg)
    assert.are.equal(2, #lines)
    msg = graph.check_clips(desc, function(n) return n ~= "walk" end, { "walks" })
    assert.are.equal(NAME .. ": layers[1].states.move.space.points[2][2]: unknown clip 'walk'; did you mean 'walks'?", msg)
  end)

  it("lists at most 20 in its message, all in its lines, asking once per name", function()
    local g = base()
    for i = 1, 30 do g.layers[1].states["c" .. i] = { clip = "clip" .. i } end
    local d = assert(graph.decode(g, NAME))
    local asked = 0
    local msg, lines = graph.check_clips(d, function() asked = asked + 1 return false end)
    assert.are.equal(35, #lines)
    assert.are.equal(35, asked)
    assert.truthy(msg:find("35 clips not found", 1, true))
    assert.are.equal("; ... (35 in all)", msg:sub(-17))
  end)
end)

describe(".animgraph: check_clips is bounded", function()
  it("suggests for the first 20 names only: 20,000 unknown clips against 20,000 known ones", function()
    local states, known = {}, {}
    for i = 1, 20000 do
      states["s" .. i] = { clip = "clip" .. i }
      known[i] = "k" .. i
    end
    local d = assert(graph.decode({ version = 1, layers = { { name = "a", entry = "s1", states = states } } }, NAME))
    -- (each search looks at every known name for one that differs in
    -- letter case alone: a search per name took 12 s here)
    local msg, lines = H.quick(0.25, "check_clips", graph.check_clips, d, function() return false end, known)
    assert.are.equal(20000, #lines)
    assert.truthy(msg:find("20000 clips not found", 1, true))
  end)
end)

describe(".animgraph: lint of sub-machines", function()
  it("takes a machine state's unconditioned transition for the way out after exit; names those of a machine"
    .. " without exit", function()
    local g = base()
    g.layers[1].transitions[3].when = nil -- air -> move once air exits
    local UNUSED = "parameters.weapon: a parameter no transition, state or space uses"
    local desc, w = graph.decode(g, NAME)
    assert.is_table(desc)
    assert.are.same({ UNUSED }, w)
    g.layers[1].states.air.machine.transitions[2] = nil -- no exit
    w = select(2, graph.decode(g, NAME))
    assert.are.same({ UNUSED, "layers[1].transitions[3]: never fires: the machine of 'air' has no transition to \"exit\"" },
      w)
  end)
end)

describe(".animgraph: the format reference's example", function()
  it("reads, its warnings those of the states it leaves unreached", function()
    local doc = H.read(H.root .. "/docs/format-reference.md")
    local at = assert(doc:find("## The `.animgraph` file", 1, true))
    local text = doc:match("```json\n(.-)```", at)
    local desc, w = graph.decode(text, "example.animgraph")
    assert.is_table(desc, w)
    assert.are.same({ "layers[1].transitions[4]: an any-state transition to 'jump' does not fire while 'jump' is current"
      .. " (can_self is false: write it, true to restart 'jump', false to keep this)",
      "layers[2].states.wave: no transition reaches this state (only a machine's entry is entered without one)" }, w)
  end)
end)

describe(".animgraph: damaged graphs", function()
  -- Every value of a table, with the table and key that hold it.
  local function nodes(t, out)
    out = out or {}
    for k, v in pairs(t) do
      out[#out + 1] = { t, k }
      if type(v) == "table" then nodes(v, out) end
    end
    return out
  end
  local ODD = { "any", "exit", "*", "", "=<", 0 / 0, math.huge, -1, 1.5, 2 ^ 53, true, false, json.null, {}, { 1 },
    { x = 1 }, "move", "jump", "speed", "air/fall", string.rep("x", 300) }
  -- one of them, its tables new each time: a table of ODD put in a graph and
  -- later given one of its own fields made a cycle, which `nodes` walked
  -- until the stack overflowed (in the runs whose string hashes, seeded
  -- per process, put that field first)
  local function odd()
    local v = ODD[math.random(#ODD)]
    if type(v) ~= "table" or v == json.null then return v end
    local copy = {}
    for k, x in pairs(v) do copy[k] = x end
    return copy
  end

  it("returns a description or exactly nil and a message naming the file, whatever value is changed", function()
    math.randomseed(38)
    local text = H.read(H.root .. "/spec/data/graphs/nested.animgraph")
    for round = 1, 1500 do
      local g = base()
      if round % 2 == 0 then g = json.decode(text) end
      for _ = 1, math.random(1, 3) do
        local list = nodes(g)
        local at = list[math.random(#list)]
        local r = math.random(4)
        if r == 1 then at[1][at[2]] = nil
        elseif r == 2 then at[1][at[2]] = odd()
        elseif r == 3 then at[1]["x" .. math.random(3)] = odd()
        else at[1][at[2]] = base().layers[1] end
      end
      local ok, a, b = pcall(graph.decode, g, NAME)
      assert(ok, a)
      if a == nil then
        assert.are.equal("string", type(b))
        assert.are.equal(NAME .. ": ", b:sub(1, #NAME + 2))
        assert.falsy(b:find("\n", 1, true), b)
      else
        assert.are.equal("table", type(b))
      end
    end
  end)

  it("returns nil and a message for damaged text", function()
    math.randomseed(3838)
    local text = H.read(H.root .. "/spec/data/graphs/hero.animgraph")
    for _ = 1, 500 do
      local i = math.random(#text)
      local t = text:sub(1, i - 1) .. string.char(math.random(32, 126)) .. text:sub(i + 1)
      local ok, a, b = pcall(graph.decode, t, NAME)
      assert(ok, a)
      assert(a ~= nil or b:sub(1, #NAME + 2) == NAME .. ": ", b)
    end
  end)
end)
