-- Runs every case of every ../shared/conformance/*.json file: each clip is
-- built, sampled at the case's times and compared with the values the
-- independent implementations computed, within the file's tolerance
-- (rotations up to sign).  Missing data fails; nothing is skipped.
local anim = require "anim"
local cjson = require "cjson"
local H = require "spec.helper"

local dir = H.shared .. "/conformance"
local files = H.ls(dir, "%.json$")

describe("conformance vectors", function()
  it("are present beside the clone (" .. dir .. ")", function()
    assert.is_true(#files >= 3, "expected the conformance files in " .. dir)
  end)

  for _, file in ipairs(files) do
    local data = cjson.decode(H.read(dir .. "/" .. file))
    describe(file, function()
      for _, case in ipairs(data.cases) do
        it(case.id, function()
          local clip, err = anim.clip(case.clip, case.id)
          assert.is_nil(err)
          assert.is_truthy(clip)
          local worst, where = 0, nil
          for _, s in ipairs(case.samples) do
            local pose = clip:sample(s.t)
            local j = pose[s.joint]
            assert.is_truthy(j, "joint " .. s.joint .. " not animated")
            for _, ch in ipairs { "position", "rotation", "scale" } do
              if s[ch] then
                assert.is_truthy(j[ch], "channel " .. ch .. " missing at t=" .. s.t)
                local d = ch == "rotation" and H.quatdiff(j[ch], s[ch]) or H.maxdiff(j[ch], s[ch])
                if d > worst then
                  worst = d
                  where = string.format("%s %s at t=%.17g: got {%s}, want {%s}", s.joint, ch, s.t,
                    table.concat(j[ch], ", "), table.concat(s[ch], ", "))
                end
              end
            end
          end
          assert(worst <= data.tolerance, string.format("off by %.3g (tolerance %g): %s", worst, data.tolerance, tostring(where)))
        end)
      end
    end)
  end
end)
