-- scripts/sizes.lua: the sizes make lint holds the sources to (issue 36):
-- no source file over MAX_FILE lines, no function over MAX_FUNCTION lines
-- (from the line of its header to the line of its end, the functions it
-- holds included).  Lua functions are found by luac (-p -l lists each
-- one's first and last line), C functions by their braces at file level
-- (comments, strings, character constants and preprocessor lines left
-- out).  Prints each file or function over its bound, named, and exits
-- non-zero when there is one; --list prints every function's size.
--   lua5.4 scripts/sizes.lua [--list] FILE...
local MAX_FILE, MAX_FUNCTION = 700, 120
local LUAC = os.getenv("LUAC") or "luac5.4"

local list = false
local files = {}
for _, a in ipairs(arg) do
  if a == "--list" then list = true else files[#files + 1] = a end
end

local function read(path)
  local f = assert(io.open(path, "rb"))
  local text = f:read("a")
  f:close()
  return text
end

local function lines_of(text)
  local out = {}
  for l in (text .. "\n"):gmatch("([^\n]*)\n") do out[#out + 1] = l end
  if text:sub(-1) == "\n" then out[#out] = nil end
  return out
end

-- The name a Lua function's first line gives it, or "function".
local function lua_name(line)
  return line:match("function%s+([%w_.:]+)%s*%(") or line:match("([%w_.:%[%]\"']+)%s*=%s*function")
    or "function"
end

-- { { name, first, last }, ... } of a Lua file.
local function lua_functions(path, src)
  local p = assert(io.popen(string.format("%s -p -l %q 2>&1", LUAC, path)))
  local out = {}
  for l in p:lines() do
    local a, b = l:match("^function <[^>]-:(%d+),(%d+)>")
    if a then
      a, b = tonumber(a), tonumber(b)
      out[#out + 1] = { lua_name(src[a] or ""), a, b }
    elseif l:match("^" .. LUAC .. ":") or l:match("^luac") then
      io.stderr:write("sizes: " .. l .. "\n")
      os.exit(2)
    end
  end
  p:close()
  return out
end

-- The text of a C file with comments, strings, character constants and
-- preprocessor lines blanked (newlines kept, so that lines still count).
local function c_code(text)
  local out, i, n = {}, 1, #text
  local at_line_start = true
  while i <= n do
    local c = text:sub(i, i)
    if at_line_start and text:match("^[ \t]*#", i) then
      -- a preprocessor line, with its continuations
      local j = i
      repeat
        local e = text:find("\n", j, true) or n + 1
        local cont = text:sub(e - 1, e - 1) == "\\"
        out[#out + 1] = (text:sub(j, e - 1):gsub("[^\n]", " "))
        if e <= n then out[#out + 1] = "\n" end
        j = e + 1
      until not cont or j > n
      i = j
    elseif c == "/" and text:sub(i + 1, i + 1) == "*" then
      local e = text:find("*/", i + 2, true) or n - 1
      out[#out + 1] = (text:sub(i, e + 1):gsub("[^\n]", " "))
      i = e + 2
      at_line_start = false
    elseif c == "/" and text:sub(i + 1, i + 1) == "/" then
      local e = text:find("\n", i, true) or n + 1
      out[#out + 1] = string.rep(" ", e - i)
      i = e
    elseif c == '"' or c == "'" then
      local j = i + 1
      while j <= n do
        local d = text:sub(j, j)
        if d == "\\" then j = j + 2
        elseif d == c or d == "\n" then break
        else j = j + 1 end
      end
      out[#out + 1] = c .. (text:sub(i + 1, j - 1):gsub("[^\n]", " ")) .. c
      i = j + 1
      at_line_start = false
    else
      out[#out + 1] = c
      at_line_start = c == "\n" or (at_line_start and (c == " " or c == "\t"))
      i = i + 1
    end
  end
  return table.concat(out)
end

-- { { name, first, last }, ... } of a C file: each brace block at file
-- level whose head (the text since the last ';' or '}' at file level)
-- has a parenthesis and no '=' before it (a function, not an
-- initializer, a struct or an enum).
local function c_functions(text)
  local code = c_code(text)
  local out, depth, line = {}, 0, 1
  local head_start, head_line, open_line, name = 1, 1, nil, nil
  local i, n = 1, #code
  while i <= n do
    local c = code:sub(i, i)
    if c == "\n" then
      line = line + 1
    elseif depth == 0 and (c == ";" or c == "}") then
      head_start = i + 1
    elseif c == "{" then
      if depth == 0 then
        local head = code:sub(head_start, i - 1)
        local before = head:match("^(.-)%(")
        name = nil
        if before and not before:find("=", 1, true) and not head:match("^%s*$") then
          name = before:match("([%a_][%w_]*)%s*$")
          -- the line of the head's first character
          local lead = head:match("^%s*")
          local _, nl = code:sub(1, head_start + #lead - 1):gsub("\n", "")
          head_line = nl + 1
        end
        open_line = line
      end
      depth = depth + 1
    elseif c == "}" then
      depth = depth - 1
      if depth == 0 then
        if name then out[#out + 1] = { name, head_line, line } end
        name = nil
        head_start = i + 1
      end
    end
    i = i + 1
  end
  local _ = open_line
  return out
end

local bad = 0
for _, path in ipairs(files) do
  local text = read(path)
  local src = lines_of(text)
  if #src > MAX_FILE then
    bad = bad + 1
    print(string.format("%s: %d lines (at most %d)", path, #src, MAX_FILE))
  end
  local fns
  if path:match("%.lua$") or not path:match("%.[ch]$") then fns = lua_functions(path, src)
  else fns = c_functions(text) end
  for _, f in ipairs(fns) do
    local size = f[3] - f[2] + 1
    if list then print(string.format("%5d %s:%d %s", size, path, f[2], f[1])) end
    if size > MAX_FUNCTION then
      bad = bad + 1
      if not list then
        print(string.format("%s:%d: function %s: %d lines (at most %d)", path, f[2], f[1], size, MAX_FUNCTION))
      end
    end
  end
end
if bad > 0 then
  io.stderr:write(string.format("sizes: %d over the bounds (files %d lines, functions %d)\n", bad, MAX_FILE,
    MAX_FUNCTION))
  os.exit(1)
end
