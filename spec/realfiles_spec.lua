-- Every real file of ../shared/data/realfiles and ../shared/data/blockbench
-- (Blockbench projects, Animated Java projects, Figura avatars, Bedrock
-- add-ons, GeckoLib files; sources in their READMEs) imports without a Lua
-- error: at least 90% of their animations are imported, and every one
-- that is not has a warning that names it and says why.  Each file
-- imports in under 1 s (issue 18).
require("anim.base.luajit").no_traversal_traces()
local anim = require "anim"
local json = require "anim.base.json"
local H = require "spec.helper"

local ROOTS = { H.shared .. "/data/realfiles", H.shared .. "/data/blockbench" }

local function files_under(dir)
  local p = assert(io.popen("find " .. string.format("%q", dir) .. " -type f \\( -name '*.json' -o -name '*.bbmodel'"
    .. " -o -name '*.ajblueprint' -o -name '*.ajmodel' \\) | sort"))
  local out = {}
  for line in p:lines() do out[#out + 1] = line end
  p:close()
  return out
end

-- The kind of each realfiles file (MANIFEST.tsv); the older folder's are
-- .bbmodel projects and GeckoLib files.
local function kinds()
  local out = {}
  local first = true
  for line in H.read(H.shared .. "/data/realfiles/MANIFEST.tsv"):gmatch("[^\n]+") do
    if first then first = false else
      local cols = {}
      for c in (line .. "\t"):gmatch("([^\t]*)\t") do cols[#cols + 1] = c end
      out[H.shared .. "/data/realfiles/" .. cols[1]] = cols[6]
    end
  end
  return out
end

describe("real files", function()
  it("imports every real file: no Lua error, at least 90% of the animations, a warning for each other one", function()
    local kind_of = kinds()
    local by_kind, present, imported, slowest, slow_file = {}, 0, 0, 0, nil
    local n_files = 0
    for _, root in ipairs(ROOTS) do
      for _, path in ipairs(files_under(root)) do
        local doc = json.decode_lenient(H.read(path))
        if type(doc) == "table" and type(doc.animations) == "table" then
          n_files = n_files + 1
          local names = {}
          if doc.animations[1] ~= nil then
            for i, a in ipairs(doc.animations) do names[i] = a.name end
          else
            for n in pairs(doc.animations) do names[#names + 1] = n end
          end
          local t0 = os.clock()
          local ok, clips, warnings = pcall(anim.import_blockbench, path)
          local dt = os.clock() - t0
          assert(ok, path .. ": " .. tostring(clips))
          assert(clips, path .. ": " .. tostring(warnings))
          if dt > slowest then slowest, slow_file = dt, path end
          local kind = kind_of[path] or (path:match("%.bbmodel$") and "bbmodel" or "geckolib")
          local k = by_kind[kind] or { imported = 0, present = 0 }
          by_kind[kind] = k
          for _, name in ipairs(names) do
            present, k.present = present + 1, k.present + 1
            if clips[name] then
              imported, k.imported = imported + 1, k.imported + 1
              assert.is_true(anim.is_clip(clips[name]))
              for i = 0, 10 do
                for _, j in pairs(clips[name]:sample(clips[name].length * i / 10)) do
                  for _, v in pairs(j) do
                    for _, x in ipairs(v) do assert(x == x and math.abs(x) < 1e9, path .. " " .. name) end
                  end
                end
              end
            else
              local why
              for _, w in ipairs(warnings) do
                if w.animation == name and w.message:match("^not imported: ") then why = w end
              end
              assert(why, path .. ": animation '" .. tostring(name) .. "' is not imported, and no warning says why")
            end
          end
        end
      end
    end
    assert.is_true(n_files >= 60, n_files .. " files")
    local lines = {}
    for kind, k in pairs(by_kind) do lines[#lines + 1] = string.format("%s %d/%d", kind, k.imported, k.present) end
    table.sort(lines)
    print(string.format("\n  real files: %d of %d animations imported (%s); slowest %s, %.3f s", imported, present,
      table.concat(lines, ", "), slow_file:match("[^/]+$"), slowest))
    assert.is_true(imported >= 0.9 * present, imported .. " of " .. present)
    assert.is_true(slowest < H.seconds(1), string.format("%s took %.2f s", slow_file, slowest))
  end)
end)
