-- scripts/callgraph.lua: the file-level call graph of the C core from its
-- objects' symbols.  A -> B when a symbol A's object uses (nm: U) is
-- defined (T, D, B, R) in B's object.  Prints the graph, one file per line
-- with the files it calls, and exits non-zero when it has a cycle, naming
-- the files of each one (its strongly connected components of more than
-- one file, Tarjan's algorithm).  docs/architecture.md draws the graph;
-- make lint runs this.
--   lua5.4 scripts/callgraph.lua build/obj/core/*.o
--   lua5.4 scripts/callgraph.lua --dot build/obj/core/*.o   (Graphviz's text)
local args, dot = {}, false
for _, a in ipairs(arg) do
  if a == "--dot" then dot = true else args[#args + 1] = a end
end
if #args == 0 then
  io.stderr:write("usage: lua5.4 scripts/callgraph.lua [--dot] OBJECT...\n")
  os.exit(2)
end

local function name_of(path) return (path:match("([^/]+)%.o$") or path) .. ".c" end

-- symbol -> the file that defines it; file -> { symbols it uses }
local defined, uses, files = {}, {}, {}
for _, path in ipairs(args) do
  local file = name_of(path)
  files[#files + 1] = file
  uses[file] = {}
  local nm = assert(io.popen("nm " .. string.format("%q", path)))
  for line in nm:lines() do
    local kind, sym = line:match("^%x*%s+(%a)%s+(%S+)$")
    if kind == "U" then
      uses[file][#uses[file] + 1] = sym
    elseif kind and kind:match("[TDBR]") then
      defined[sym] = file
    end
  end
  if not nm:close() then
    io.stderr:write("callgraph: nm failed on " .. path .. "\n")
    os.exit(2)
  end
end
table.sort(files)

local edges = {}
for _, f in ipairs(files) do
  local to, seen = {}, {}
  for _, sym in ipairs(uses[f]) do
    local g = defined[sym]
    if g and g ~= f and not seen[g] then seen[g] = true; to[#to + 1] = g end
  end
  table.sort(to)
  edges[f] = to
end

-- Tarjan's strongly connected components
local index, low, on, stack, n, cycles = {}, {}, {}, {}, 0, {}
local function visit(v)
  n = n + 1
  index[v], low[v] = n, n
  stack[#stack + 1], on[v] = v, true
  for _, w in ipairs(edges[v]) do
    if not index[w] then
      visit(w)
      low[v] = math.min(low[v], low[w])
    elseif on[w] then
      low[v] = math.min(low[v], index[w])
    end
  end
  if low[v] == index[v] then
    local comp = {}
    repeat
      local w = table.remove(stack)
      on[w] = nil
      comp[#comp + 1] = w
    until w == v
    if #comp > 1 then
      table.sort(comp)
      cycles[#cycles + 1] = comp
    end
  end
end
for _, f in ipairs(files) do if not index[f] then visit(f) end end

if dot then
  print("digraph core {")
  for _, f in ipairs(files) do
    for _, g in ipairs(edges[f]) do print(string.format('  "%s" -> "%s";', f, g)) end
  end
  print("}")
else
  for _, f in ipairs(files) do
    print(string.format("%-14s -> %s", f, #edges[f] > 0 and table.concat(edges[f], " ") or "(nothing)"))
  end
end
if #cycles > 0 then
  for _, c in ipairs(cycles) do
    io.stderr:write("callgraph: a cycle among " .. table.concat(c, ", ") .. "\n")
  end
  os.exit(1)
end
