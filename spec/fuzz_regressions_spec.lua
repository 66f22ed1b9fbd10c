-- Every committed fuzz input, replayed through the same Lua drivers the
-- libFuzzer targets run (fuzz/README.md): each crash the fuzzers found is
-- kept in fuzz/regressions/<target>/, and the seed corpora in
-- fuzz/corpus/<target>/ keep the drivers in step with the API.  A driver
-- raises "BUG: ..." when the module breaks a contract; under the fuzzer that
-- is a crash, here a failed test.  (What only a sanitizer sees is caught by
-- `make asan` and `make memcheck`, which run this spec too.)
local H = require "spec.helper"

-- The targets are the Makefile's FUZZ_TARGETS: a new one is replayed here
-- as soon as make fuzz runs it.
local TARGETS = {}
for t in H.read(H.root .. "/Makefile"):match("\nFUZZ_TARGETS%s*=%s*([^\n]*)"):gmatch("%S+") do TARGETS[#TARGETS + 1] = t end

-- The drivers hold some inputs to a time budget of the plain build, times
-- FUZZ_SLOWDOWN (the fuzzer's harness sets it for its instrumented build):
-- here the margin every time bound of the specs takes (H.seconds: a
-- machine loaded by other work, Lua 5.1's slower interpreter), times the
-- slowdown of the sanitizers or valgrind when the suite runs under them.
-- The input kept as molang-budget-in-compiled-code spends both of its
-- file's budgets (40,000,000 Molang steps, 138,887 bake samples): 0.42 s
-- of CPU on Lua 5.4 alone, 0.58 s on 5.1 in CI; each blow-up these inputs
-- were kept for took 5 s or more before its fix.
rawset(_G, "FUZZ_SLOWDOWN", H.seconds(1))
-- (fuzz_decode compresses the clips of inputs up to 2 kB; replayed here,
-- those up to 256 bytes: the others took 4 s more of make test, and
-- spec/compress_spec.lua is compression's)
require("fuzz.decode").COMPRESS_BYTES = 256

for _, target in ipairs(TARGETS) do
  describe("fuzz_" .. target, function()
    local driver = require("fuzz." .. target)

    -- (under valgrind, make memcheck, the regressions only: make test,
    -- make asan and the fuzzers themselves replay the seed corpora)
    for _, kind in ipairs(H.valgrind and { "regressions" } or { "regressions", "corpus" }) do
      local dir = H.root .. "/fuzz/" .. kind .. "/" .. target
      for _, name in ipairs(H.ls(dir)) do
        it(string.format("replays fuzz/%s/%s/%s", kind, target, name), function()
          local data = H.read(dir .. "/" .. name)
          local ok, err = pcall(driver.run, data)
          assert(ok, tostring(err))
        end)
      end
    end
  end)
end

describe("fuzz drivers", function()
  it("have seed inputs for every target", function()
    assert.is_true(#TARGETS >= 5, "FUZZ_TARGETS read from the Makefile: " .. table.concat(TARGETS, " "))
    for _, target in ipairs(TARGETS) do
      assert.is_true(#H.ls(H.root .. "/fuzz/corpus/" .. target) > 0, target)
    end
  end)

  it("replay every folder of fuzz/regressions and fuzz/findings: each is a target's", function()
    local known = {}
    for _, target in ipairs(TARGETS) do known[target] = true end
    for _, kind in ipairs { "regressions", "findings" } do
      for _, name in ipairs(H.ls(H.root .. "/fuzz/" .. kind)) do
        if name ~= "README.md" then assert.is_true(known[name], "fuzz/" .. kind .. "/" .. name .. " is no target of FUZZ_TARGETS") end
      end
    end
  end)

  it("turn a loader that raises into an error starting BUG", function()
    local anim = require "anim"
    local old = anim.decode
    anim.decode = function() error("boom") end
    local ok, err = pcall(require("fuzz.decode").run, "{}")
    anim.decode = old
    assert.is_false(ok)
    assert.truthy(tostring(err):find("^BUG: anim.decode raised"), err)
  end)

  it("turn an update that accepts a NaN dt into an error starting BUG", function()
    local methods = require("anim.runtime.animator").methods
    local old = methods.update
    methods.update = function() end
    -- play walk on the first animator, then update(NaN)
    local ok, err = pcall(require("fuzz.animator").run, string.char(1, 0, 0, 2, 0, 0, 0, 2, 6, 0, 16))
    methods.update = old
    assert.is_false(ok)
    assert.truthy(tostring(err):find("^BUG: update%(%-?nan%) did not raise"), err)
  end)
end)
