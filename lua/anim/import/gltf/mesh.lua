-- import/gltf/mesh.lua: the mesh primitives of a glTF 2.0 asset, for
-- anim.import_gltf(path, { meshes = true }) (docs/api.md, docs/formats.md
-- "glTF meshes").  One entry per primitive of every node with a mesh, in
-- node order: its attributes as module buffers (POSITION, NORMAL,
-- TEXCOORD_0, JOINTS_0, WEIGHTS_0 normalised, indices), its morph targets'
-- deltas, the rig of the node's skin, the node's world matrix and the
-- material's base colour.  The rules are the specification's
-- (Specification.adoc, "Meshes", "Skins", "Materials"; KHR_mesh_quantization's
-- README for the quantized types).  What breaks a MUST of the
-- specification (attribute counts that differ, an index or a joint out of
-- range, an accessor of a type the attribute cannot have) fails with its
-- JSON path; a primitive the module does not draw (not triangles, no
-- POSITION) is skipped with a warning, the rest imported.
require("anim.base.luajit").no_traversal_traces()
local compat = require "anim.base.compat"
local core = require "anim.core"
local E = require "anim.base.errors"
local limits = require "anim.base.limits"
local mat4 = require "anim.base.mat4"
local F = require "anim.import.gltf.file"
local A = require "anim.import.gltf.accessor"

local M = {}
local fail, at = E.fail, F.at
local L = limits.current

local MODES = { [0] = "POINTS", "LINES", "LINE_LOOP", "LINE_STRIP", "TRIANGLES", "TRIANGLE_STRIP", "TRIANGLE_FAN" }

-- componentType names, for messages
local CT = { [5120] = "BYTE", [5121] = "UNSIGNED_BYTE", [5122] = "SHORT", [5123] = "UNSIGNED_SHORT",
  [5125] = "UNSIGNED_INT", [5126] = "FLOAT" }

-- The accessor types and component types each attribute may have: the
-- core specification's ("Meshes", "Overview", the attribute table; n: only
-- normalized) and KHR_mesh_quantization's (its README: POSITION byte and
-- short, normalized or not; NORMAL byte and short normalized; TEXCOORD
-- byte and short, normalized or not).  true: either, "n": normalized only,
-- "i": not normalized only.
local RULES = {
  POSITION = { "VEC3", { [5126] = "i", [5120] = true, [5121] = true, [5122] = true, [5123] = true } },
  NORMAL = { "VEC3", { [5126] = "i", [5120] = "n", [5122] = "n" } },
  TEXCOORD_0 = { "VEC2", { [5126] = "i", [5120] = true, [5121] = true, [5122] = true, [5123] = true } },
  JOINTS_0 = { "VEC4", { [5121] = "i", [5123] = "i" } },
  WEIGHTS_0 = { "VEC4", { [5126] = "i", [5121] = "n", [5123] = "n" } },
  indices = { "SCALAR", { [5121] = "i", [5123] = "i", [5125] = "i" } },
  -- morph targets' deltas (KHR_mesh_quantization: byte and short, normalized or not)
  target = { "VEC3", { [5126] = "i", [5120] = true, [5122] = true } },
}

-- Checks accessor i's shape for an attribute (rule: a RULES key); path
-- names the attribute (meshes[0].primitives[0].attributes.NORMAL).
local function check_shape(ctx, i, rule, path)
  local a = A.shape(ctx, i)
  local r = RULES[rule]
  if a.type ~= r[1] then
    fail(path, "%s is %s, %s must be %s", a.path, a.type, rule == "target" and "a morph target's delta" or rule, r[1])
  end
  local ok = r[2][a.componentType]
  if not ok or (ok == "n" and not a.normalized) or (ok == "i" and a.normalized) then
    fail(path, "%s has componentType %d (%s%s), which %s cannot have", a.path, a.componentType,
      a.normalized and "normalized " or "", CT[a.componentType] or "?", rule == "target" and "a morph target" or rule)
  end
  return a
end

-- The budget: the numbers in the buffers of one import's meshes together,
-- at most anim.limits.bytes (a file's accessors may be named by many
-- primitives: each new buffer counts).
local function spend(ctx, n, path)
  ctx.mesh_numbers = (ctx.mesh_numbers or 0) + n
  if ctx.mesh_numbers > L.bytes then
    fail(path, "too much mesh data: the meshes' buffers would hold %d numbers (at most %d, anim.limits.bytes)",
      ctx.mesh_numbers, L.bytes)
  end
end

-- The specification's MUST: every attribute of a primitive has POSITION's count.
local function same_count(a, count, path)
  if a.count ~= count then
    fail(path, "%s has %d elements, the primitive's POSITION has %d (all attributes of a primitive have the same count)",
      a.path, a.count, count)
  end
end

-- WEIGHTS_0 made to sum to 1 for each vertex, in place (Specification.adoc,
-- "Skinned Mesh Attributes": the weights of a vertex sum to 1; exporters
-- round): the vertices whose weights sum to 0 are left at 0, and counted.
local function normalise(v, a, path)
  local zero = 0
  for e = 0, a.count - 1 do
    local b = 4 * e
    local w1, w2, w3, w4 = v[b + 1], v[b + 2], v[b + 3], v[b + 4]
    if w1 < 0 or w2 < 0 or w3 < 0 or w4 < 0 then
      fail(path, "%s element %d holds a negative weight", a.path, e)
    end
    local s = w1 + w2 + w3 + w4
    if s > 0 then
      v[b + 1], v[b + 2], v[b + 3], v[b + 4] = w1 / s, w2 / s, w3 / s, w4 / s
    else
      zero = zero + 1
    end
  end
  return zero
end

-- The largest of the numbers and its 1-based place (-1, 0 for none).
local function largest(v)
  local most, place = -1, 0
  for k = 1, #v do
    if v[k] > most then most, place = v[k], k end
  end
  return most, place
end

-- The buffer of accessor i read as an attribute (one per accessor and
-- role: primitives that name the same accessor share it), and what was
-- found reading it: { count, max and at (joints, indices: the largest
-- and its place), zero (weights: the vertices whose weights sum to 0) }.
-- most: the elements it may have beyond the file's bytes (zeros), nil
-- for none; count: the primitive's vertices, which it must have.
local function attribute(ctx, i, rule, path, most, count)
  local key = rule .. ":" .. i
  local got = ctx.mesh_buffers[key]
  if got then return got, ctx.mesh_info[key] end
  local a = check_shape(ctx, i, rule, path)
  if count then same_count(a, count, path) end
  spend(ctx, a.count * a.ncomp, path)
  local values = A.read(ctx, i, most).values
  -- (the table left to the collector: the buffer holds the numbers, and
  -- one table at a time is alive whatever the meshes)
  ctx.accessors[i] = nil
  local info = { count = a.count }
  if rule == "JOINTS_0" or rule == "indices" then info.max, info.at = largest(values) end
  if rule == "WEIGHTS_0" then info.zero = normalise(values, a, path) end
  got = core.buffer_from(values, rule == "indices")
  ctx.mesh_buffers[key], ctx.mesh_info[key] = got, info
  return got, info
end

-- Fails when the largest number of an attribute (info) is not below n;
-- per: numbers an element.
local function below(info, n, path, per, what)
  if info.max >= n then
    local k = info.at - 1
    fail(path, "element %d holds %d: out of range of the %d %s", (k - k % per) / per, compat.tointeger(info.max), n, what)
  end
end

-- Matrices ----------------------------------------------------------------------------------

-- A node's local matrix: its matrix as the file gives it, else T * R * S
-- (Specification.adoc, "Transformations").
local function local_matrix(ctx, i)
  local def = ctx.nodes[i + 1]
  if type(def.matrix) == "table" and not E.absent(def.matrix) then
    local m = {}
    for k = 1, 16 do m[k] = def.matrix[k] end
    return m
  end
  local r = ctx.rest[i]
  return mat4.trs(r.t, r.r, r.s)
end

-- A node's world matrix: the local matrices of its ancestors composed as
-- matrices, parent first (not as translation, rotation and scale: a
-- non-uniform scale under a rotation shears), memoised.
function M.world(ctx, i)
  ctx.worlds = ctx.worlds or {}
  local w = ctx.worlds[i]
  if w then return w end
  local p = ctx.parent[i]
  w = local_matrix(ctx, i)
  if p then w = mat4.mul(M.world(ctx, p), w) end
  ctx.worlds[i] = w
  return w
end

-- Materials ---------------------------------------------------------------------------------

-- The image of texture ti: { path = } for a file beside the model, {
-- bytes =, mime = } for a data: URI or a buffer view; nil (with a
-- warning) for what is not read.
local function texture(ctx, ti, path, warn)
  local doc = ctx.doc
  local tex = type(doc.textures) == "table" and doc.textures[ti + 1]
  if type(tex) ~= "table" then fail(path, "index %d out of range: the file has %d textures", ti,
    type(doc.textures) == "table" and #doc.textures or 0) end
  if E.absent(tex.source) then
    warn(ctx, at("textures", ti), "no source image (an extension's image is not read): texture left out")
    return nil
  end
  local ii = F.index(doc, tex.source, at("textures", ti, "source"), "images")
  local img = doc.images[ii + 1]
  local ip = at("images", ii)
  E.object(img, ip, "image")
  if not E.absent(img.bufferView) then
    local v = F.index(doc, img.bufferView, at(ip, "bufferView"), "bufferViews")
    local data, off, len = A.view(ctx, v)
    local mime = not E.absent(img.mimeType) and E.string(img.mimeType, at(ip, "mimeType"), "mimeType") or nil
    return { bytes = data:sub(off + 1, off + len), mime = mime }
  end
  local uri = E.string(img.uri, at(ip, "uri"), "uri")
  if uri:match("^[dD][aA][tT][aA]:") then
    local mime = uri:match("^....:([^;,]+)")
    return { bytes = F.data_uri(ctx, uri, at(ip, "uri")), mime = mime }
  end
  if uri:match("^(%a[%w+.-]*):") then
    warn(ctx, at(ip, "uri"), "only relative paths and data: URIs are read, not '%s': texture left out", E.shown(uri))
    return nil
  end
  local rel = F.decode_uri(uri, at(ip, "uri"))
  if rel:sub(1, 1) == "/" or ("/" .. rel .. "/"):find("/../", 1, true) then
    warn(ctx, at(ip, "uri"), "the path '%s' leaves the model's folder: texture left out", E.shown(rel))
    return nil
  end
  return { path = (ctx.dir == "." and "" or ctx.dir .. "/") .. rel }
end

-- The material of a primitive: base_color (the factor, default white)
-- and texture (nil when none); the default material when it names none.
local function material(ctx, mi, warn)
  ctx.materials = ctx.materials or {}
  if mi and ctx.materials[mi] then return ctx.materials[mi] end
  local out = { base_color = { 1, 1, 1, 1 } }
  if mi == nil then return out end
  local mp = at("materials", mi)
  local def = ctx.doc.materials[mi + 1]
  E.object(def, mp, "material")
  local pbr = def.pbrMetallicRoughness
  if not E.absent(pbr) then
    local pp = at(mp, "pbrMetallicRoughness")
    E.object(pbr, pp, "pbrMetallicRoughness")
    if not E.absent(pbr.baseColorFactor) then
      local f = E.array(pbr.baseColorFactor, at(pp, "baseColorFactor"), "baseColorFactor")
      if #f ~= 4 then fail(at(pp, "baseColorFactor"), "baseColorFactor must be 4 numbers, got %d", #f) end
      for k = 1, 4 do out.base_color[k] = E.number(f[k], at(pp, "baseColorFactor", k - 1), "baseColorFactor component") end
    end
    if not E.absent(pbr.baseColorTexture) then
      local tp = at(pp, "baseColorTexture")
      E.object(pbr.baseColorTexture, tp, "baseColorTexture")
      local ti = F.count(pbr.baseColorTexture.index, at(tp, "index"), "index")
      out.texture = texture(ctx, ti, at(tp, "index"), warn)
    end
  end
  ctx.materials[mi] = out
  return out
end

-- Primitives --------------------------------------------------------------------------------

-- The morph targets of a primitive: { { positions =, normals = }, ... }
-- (deltas; a target without one of them has nil there).
local function targets(ctx, prim, pp, count)
  local list = E.array(prim.targets, at(pp, "targets"), "targets")
  local out = {}
  for k, t in ipairs(list) do
    local tp = at(pp, "targets", k - 1)
    E.object(t, tp, "morph target")
    local e = {}
    for attr, field in pairs { POSITION = "positions", NORMAL = "normals" } do
      if not E.absent(t[attr]) then
        local i = F.index(ctx.doc, t[attr], at(tp, attr), "accessors")
        e[field] = attribute(ctx, i, "target", at(tp, attr), count, count)
      end
    end
    out[k] = e
  end
  return out
end

-- One primitive of mesh mi on node ni, or nil (with a warning) when it is
-- skipped.
local function primitive(ctx, ni, mi, k, prim, warn)
  local doc = ctx.doc
  local pp = at("meshes", mi, "primitives", k)
  E.object(prim, pp, "primitive")
  local mode = prim.mode
  if not E.absent(mode) then mode = F.count(mode, at(pp, "mode"), "mode") else mode = 4 end
  if mode ~= 4 then
    warn(ctx, pp, "mode %d (%s) is not triangles (4): primitive skipped", mode, MODES[mode] or "unknown")
    return nil
  end
  local attrs = prim.attributes
  E.object(attrs, at(pp, "attributes"), "attributes")
  if E.absent(attrs.POSITION) then
    warn(ctx, at(pp, "attributes"), "no POSITION: primitive skipped")
    return nil
  end
  local ap = at(pp, "attributes")
  local function acc(name) return F.index(doc, attrs[name], at(ap, name), "accessors") end
  local out = { node = ctx.node_names[ni], mesh = ctx.mesh_names[mi], path = pp }
  local info
  out.positions, info = attribute(ctx, acc("POSITION"), "POSITION", at(ap, "POSITION"))
  local count = info.count
  out.count = count
  if not E.absent(attrs.NORMAL) then out.normals = attribute(ctx, acc("NORMAL"), "NORMAL", at(ap, "NORMAL"), count, count) end
  if not E.absent(attrs.TEXCOORD_0) then
    out.uvs = attribute(ctx, acc("TEXCOORD_0"), "TEXCOORD_0", at(ap, "TEXCOORD_0"), count, count)
  end
  local skin = ctx.nodes[ni + 1].skin
  local skin_i = not E.absent(skin) and F.index(doc, skin, at("nodes", ni, "skin"), "skins") or nil
  if not E.absent(attrs.JOINTS_0) then
    out.joints, info = attribute(ctx, acc("JOINTS_0"), "JOINTS_0", at(ap, "JOINTS_0"), count, count)
    if skin_i then
      below(info, #doc.skins[skin_i + 1].joints, at(ap, "JOINTS_0"), 4, string.format("joints of skins[%d]", skin_i))
    end
  end
  if not E.absent(attrs.WEIGHTS_0) then
    out.weights, info = attribute(ctx, acc("WEIGHTS_0"), "WEIGHTS_0", at(ap, "WEIGHTS_0"), count, count)
    if info.zero > 0 then warn(ctx, at(ap, "WEIGHTS_0"), "%d vertices have weights that sum to 0 (left at 0)", info.zero) end
  end
  if not E.absent(attrs.JOINTS_1) or not E.absent(attrs.WEIGHTS_1) then
    warn(ctx, ap, "JOINTS_1 and WEIGHTS_1 are not read: 4 influences a vertex at most")
  end
  if not E.absent(prim.indices) then
    local ip = at(pp, "indices")
    out.indices, info = attribute(ctx, F.index(doc, prim.indices, ip, "accessors"), "indices", ip)
    below(info, count, ip, 1, "vertices of the primitive")
  end
  if skin_i then out.skin = ctx.skin_rigs[skin_i] end
  out.transform = M.world(ctx, ni)
  local mat = prim.material
  out.material = material(ctx, not E.absent(mat) and F.index(doc, mat, at(pp, "material"), "materials") or nil, warn)
  if not E.absent(prim.targets) then
    out.targets = targets(ctx, prim, pp, count)
    local w = ctx.nodes[ni + 1].weights
    local wp = at("nodes", ni, "weights")
    if E.absent(w) then w, wp = doc.meshes[mi + 1].weights, at("meshes", mi, "weights") end
    local tw = {}
    if not E.absent(w) then
      E.array(w, wp, "weights")
      if #w ~= #out.targets then
        fail(wp, "%d weights for %d morph targets", #w, #out.targets)
      end
      for t = 1, #w do tw[t] = E.number(w[t], at(wp, t - 1), "weight") end
    else
      for t = 1, #out.targets do tw[t] = 0 end
    end
    out.target_weights = tw
  end
  return out
end

-- result.meshes: every primitive of every node with a mesh, in node order.
-- ctx: the importer's (nodes read, skin_rigs: skin index -> rig or nil).
function M.read(ctx, warn)
  local doc = ctx.doc
  ctx.mesh_buffers, ctx.mesh_info = {}, {}
  local meshes = not E.absent(doc.meshes) and E.array(doc.meshes, "meshes", "meshes") or {}
  ctx.mesh_names = {}
  for i, m in ipairs(meshes) do
    local n = type(m) == "table" and m.name
    ctx.mesh_names[i - 1] = type(n) == "string" and n ~= "" and n or "mesh" .. (i - 1)
  end
  local out = {}
  for ni, node in ipairs(ctx.nodes) do
    if not E.absent(node.mesh) then
      local mi = F.index(doc, node.mesh, at("nodes", ni - 1, "mesh"), "meshes")
      local mesh = meshes[mi + 1]
      E.object(mesh, at("meshes", mi), "mesh")
      local prims = E.array(mesh.primitives, at("meshes", mi, "primitives"), "primitives")
      for k, prim in ipairs(prims) do
        out[#out + 1] = primitive(ctx, ni - 1, mi, k - 1, prim, warn)
      end
    end
  end
  return out
end

return M
