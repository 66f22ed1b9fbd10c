-- docs/api.md opens with a quick reference (issue 37): every function of
-- `require "anim"` and every method of its objects, one a line, linked to
-- its section (spec/docs_refs_spec.lua checks that the links land).
require("anim.base.luajit").no_traversal_traces()
local H = require "spec.helper"
local anim = require "anim"

local doc = H.read(H.root .. "/docs/api.md")
local quick = doc:match("\n## Quick reference\n(.-)\n## ") or ""

-- name in the docs, the table of functions
local GROUPS = {
  { "anim.", anim },
  { "clip:", require("anim.format.clip").methods },
  { "rig:", require("anim.format.rig").methods },
  { "animator:", require("anim.runtime.animator").methods },
  { "track:", require("anim.runtime.animator").track_methods },
  { "space:", require("anim.runtime.blendspace").methods },
  { "handle:", require("anim.runtime.override").methods },
  { "c:", require("anim.runtime.ik").methods },
  { "library:", require("anim.runtime.library").methods },
}

describe("docs/api.md's quick reference", function()
  it("comes before the conventions", function()
    assert.truthy(quick ~= "", "no '## Quick reference' section")
    assert.is_true(doc:find("## Quick reference", 1, true) < doc:find("Conventions used throughout", 1, true))
  end)

  it("lists every function and method, each on a line of its own with a link", function()
    local n = 0
    for _, g in ipairs(GROUPS) do
      for name, f in pairs(g[2]) do
        if type(f) == "function" and not name:match("^_") then
          local full = g[1] .. name
          local line = quick:match("\n%- %[`" .. full:gsub("%p", "%%%0") .. "[^\n]*")
          assert(line, "docs/api.md's quick reference misses " .. full)
          assert.truthy(line:find("%]%(#[%w_%-]+%)$"), line)
          n = n + 1
        end
      end
    end
    assert.is_true(n > 70, n .. " functions")
  end)
end)
