-- import/gltf/accessor.lua: the elements of a glTF 2.0 accessor, as the
-- specification lays them out (specification/2.0/Specification.adoc,
-- "Accessors", "Sparse Accessors", "Data Alignment"): every component
-- type, normalized integers decoded as it says, byte strides, matrix
-- columns padded to 4 bytes, sparse substitution over the data or over
-- zeros.  Nothing is trusted: every offset, length, stride and count is
-- checked against the data before it is read, and min / max are not read
-- at all.  The bytes themselves are decoded in C (core.gltf_unpack).
local compat = require "anim.base.compat"
local core = require "anim.core"
local E = require "anim.base.errors"
local codes = require "anim.base.codes"
local F = require "anim.import.gltf.file"

local M = {}
local fail, at, count = E.fail, F.at, F.count

-- componentType -> bytes (Specification.adoc, "Accessor Data Types").
M.SIZES = { [5120] = 1, [5121] = 1, [5122] = 2, [5123] = 2, [5125] = 4, [5126] = 4 }
M.FLOAT = 5126
-- type -> rows, columns
M.TYPES = { SCALAR = { 1, 1 }, VEC2 = { 2, 1 }, VEC3 = { 3, 1 }, VEC4 = { 4, 1 },
  MAT2 = { 2, 2 }, MAT3 = { 3, 3 }, MAT4 = { 4, 4 } }
local TYPE_NAMES = "SCALAR, VEC2, VEC3, VEC4, MAT2, MAT3, MAT4"
local INDEX_TYPES = { [5121] = true, [5123] = true, [5125] = true }

-- The most elements an accessor may have (three per key: a cubic spline's
-- tangents and values), whatever its data: no count makes the module
-- allocate more (anim.limits.keys bounds the keys of the clip after).
M.MAX_COUNT = 3 * codes.const.max_curve_keys

local function component_type(v, path)
  if not M.SIZES[v] then
    fail(path, "unknown componentType %s (expected 5120, 5121, 5122, 5123, 5125 or 5126)",
      type(v) == "number" and E.num(v) or E.describe(v))
  end
  return v
end

-- The layout of an element: bytes from one column to the next, and the
-- bytes an element takes when tightly packed (each column of a matrix of
-- 1- or 2-byte components starts on a 4-byte boundary).
local function layout(rows, cols, size)
  local colstride = cols > 1 and math.floor((rows * size + 3) / 4) * 4 or rows * size
  return colstride, colstride * cols
end

-- Buffer view v (0-based): its buffer's bytes, offset and length in them,
-- and its byteStride (or nil), each checked.
local function view(ctx, v)
  local doc = ctx.doc
  local bv = doc.bufferViews and doc.bufferViews[v + 1]
  if type(bv) ~= "table" then E.object(bv, at("bufferViews", v), "buffer view") end
  local b = F.index(doc, bv.buffer, function() return at("bufferViews", v, "buffer") end, "buffers")
  local off = bv.byteOffset == nil and 0 or F.whole(bv.byteOffset, 0)
    or count(bv.byteOffset, at("bufferViews", v, "byteOffset"), "byteOffset", 0, 0)
  local len = F.whole(bv.byteLength, 1) or count(bv.byteLength, at("bufferViews", v, "byteLength"), "byteLength", 1)
  local stride = not E.absent(bv.byteStride) and count(bv.byteStride, at("bufferViews", v, "byteStride"), "byteStride", 1) or nil
  if stride and stride > 252 then
    fail(at("bufferViews", v, "byteStride"), "byteStride must be at most 252, got %d", stride)
  end
  local data = F.buffer(ctx, b)
  local blen = compat.tointeger(doc.buffers[b + 1].byteLength)
  if off + len > blen then
    fail(at("bufferViews", v, "byteLength"), "bytes %d to %d run past the end of buffers[%d] (%d bytes)",
      off, off + len, b, blen)
  end
  return data, off, len, stride, bv
end
M.view = view

-- Where count elements of (rows, cols) components of type ct lie in
-- buffer view v, from byte offset off in it, with byte stride `stride`
-- (nil: tightly packed), checked against its bytes before anything is
-- read: the buffer's bytes, their first byte and the stride.  `what`
-- names them in messages (accessors[2]).
local function span(ctx, v, off, n, ct, rows, cols, what, use_stride)
  local data, voff, vlen, vstride = view(ctx, v)
  local size = M.SIZES[ct]
  local colstride, packed = layout(rows, cols, size)
  local stride = packed
  if use_stride and vstride then
    if vstride < packed then
      fail(at("bufferViews", v, "byteStride"), "byteStride %d is less than an element of %s (%d bytes)",
        vstride, what, packed)
    end
    stride = vstride
  end
  local need = off + stride * (n - 1) + colstride * (cols - 1) + rows * size
  if need > vlen then
    fail(at(what, "count"), "%d elements of %d bytes from byte %d of bufferViews[%d] need %d bytes, it has %d",
      n, packed, off, v, need, vlen)
  end
  return data, voff + off, stride
end

-- Reads those elements (span): their numbers, and the 1-based index of the
-- first that is not finite, or nil.
local function elements(ctx, v, off, n, ct, rows, cols, normalized, what, use_stride)
  local data, first, stride = span(ctx, v, off, n, ct, rows, cols, what, use_stride)
  return core.gltf_unpack(data, first, n, ct, rows, cols, stride, normalized)
end

local function not_finite(values, k, ncomp, what)
  local e = math.floor((k - 1) / ncomp)
  fail(what, "element %d holds %s (glTF data must be finite numbers)", e, E.describe(values[k]))
end

-- What accessor i (0-based) says of itself, every field checked and
-- nothing read, once per import: { count, ncomp, rows, cols, type,
-- componentType, normalized, offset, view (0-based, or nil), sparse (its
-- count, 0 without), given, path }.
-- `given` is how many of its elements the file's bytes hold: all of them
-- with a bufferView, else the sparse ones.  The specification
-- (Specification.adoc, "Accessors", accessor.bufferView): "When undefined,
-- the accessor MUST be initialized with zeros; sparse property or
-- extensions MAY override zeros with actual values."  So `count` alone may
-- claim any number of zeros: it sizes nothing until a caller has bounded
-- it by elements that are in the file (M.read's `most`).
function M.shape(ctx, i)
  ctx.shapes = ctx.shapes or {}
  local got = ctx.shapes[i]
  if got then return got end
  local doc = ctx.doc
  local what = at("accessors", i)
  local def = doc.accessors[i + 1]
  E.object(def, what, "accessor")
  local ct = def.componentType
  if not M.SIZES[ct] then component_type(ct, at(what, "componentType")) end
  local ty = def.type
  local shape = M.TYPES[ty]
  if not shape then
    fail(at(what, "type"), "unknown type %s (expected %s)",
      type(ty) == "string" and string.format("'%s'", ty) or E.describe(ty), TYPE_NAMES)
  end
  local n = F.whole(def.count, 1) or count(def.count, at(what, "count"), "count", 1)
  if n > M.MAX_COUNT then
    fail(at(what, "count"), "too many elements (%d; at most %d)", n, M.MAX_COUNT)
  end
  local normalized = false
  if not E.absent(def.normalized) then normalized = E.boolean(def.normalized, at(what, "normalized"), "normalized") end
  if normalized and (ct == 5126 or ct == 5125) then
    fail(at(what, "normalized"), "only byte and short components can be normalized, not componentType %d", ct)
  end
  local off = def.byteOffset == nil and 0 or F.whole(def.byteOffset, 0) or count(def.byteOffset, at(what, "byteOffset"), "byteOffset", 0, 0)
  local v
  if not E.absent(def.bufferView) then
    v = F.index(doc, def.bufferView, function() return at(what, "bufferView") end, "bufferViews")
    span(ctx, v, off, n, ct, shape[1], shape[2], what, true)
  end
  local sn = 0
  if not E.absent(def.sparse) then
    local sp = at(what, "sparse")
    local s = E.object(def.sparse, sp, "sparse")
    sn = count(s.count, at(sp, "count"), "count", 1)
    if sn > n then fail(at(sp, "count"), "%d elements replaced, the accessor has %d", sn, n) end
  end
  got = { count = n, ncomp = shape[1] * shape[2], rows = shape[1], cols = shape[2], type = ty, componentType = ct,
    normalized = normalized, offset = off, view = v, sparse = sn, given = v and n or sn, path = what }
  ctx.shapes[i] = got
  return got
end

-- The sparse substitution of accessor i (`a`, its shape) over values;
-- returns the 1-based index of the first value not finite after it, or nil.
local function substitute(ctx, i, a, values, bad)
  local doc, what, n, ncomp, sn = ctx.doc, a.path, a.count, a.ncomp, a.sparse
  local sp = at(what, "sparse")
  local s = doc.accessors[i + 1].sparse
  local ip, vp = at(sp, "indices"), at(sp, "values")
  E.object(s.indices, ip, "sparse indices")
  E.object(s.values, vp, "sparse values")
  local ict = component_type(s.indices.componentType, at(ip, "componentType"))
  if not INDEX_TYPES[ict] then
    fail(at(ip, "componentType"), "sparse indices must be unsigned (5121, 5123 or 5125), got %d", ict)
  end
  local iv = F.index(doc, s.indices.bufferView, at(ip, "bufferView"), "bufferViews")
  local ioff = count(s.indices.byteOffset, at(ip, "byteOffset"), "byteOffset", 0, 0)
  local idx = elements(ctx, iv, ioff, sn, ict, 1, 1, false, ip, false)
  local vv = F.index(doc, s.values.bufferView, at(vp, "bufferView"), "bufferViews")
  local voff = count(s.values.byteOffset, at(vp, "byteOffset"), "byteOffset", 0, 0)
  local sv, sbad = elements(ctx, vv, voff, sn, a.componentType, a.rows, a.cols, a.normalized, vp, false)
  if sbad then not_finite(sv, sbad, ncomp, vp) end
  local prev = -1
  for k = 1, sn do
    local e = compat.tointeger(idx[k])
    if e >= n then fail(ip, "index %d (entry %d) is out of range: the accessor has %d elements", e, k - 1, n) end
    if e <= prev then
      fail(ip, "indices must increase: %d (entry %d) comes after %d", e, k - 1, prev)
    end
    prev = e
    for c = 1, ncomp do values[e * ncomp + c] = sv[(k - 1) * ncomp + c] end
  end
  -- a value the substitution replaced no longer counts
  if bad then
    bad = nil
    for k = 1, #values do
      local x = values[k]
      if x ~= x or x == math.huge or x == -math.huge then bad = k break end
    end
  end
  return bad
end

-- The elements of accessor i (0-based), read once per import: its shape
-- (M.shape) with `values` (count * ncomp numbers, element after element).
-- `most`: how many elements the caller accepts where the file's bytes give
-- fewer (the rest are zeros), a bound it took from elements that are in
-- the file; by default none beyond those given.
function M.read(ctx, i, most)
  ctx.accessors = ctx.accessors or {}
  local got = ctx.accessors[i]
  if got then return got end
  local a = M.shape(ctx, i)
  local n, ncomp = a.count, a.ncomp
  if n > a.given and n > (most or a.given) then
    fail(at(a.path, "count"), "%d elements, of which the file's bytes give %d (without a bufferView the others are zeros):"
      .. " at most %d can be read here", n, a.given, most or a.given)
  end
  local values, bad
  if a.view then
    values, bad = elements(ctx, a.view, a.offset, n, a.componentType, a.rows, a.cols, a.normalized, a.path, true)
  else
    -- no data: zeros (the sparse substitution, if any, goes over them)
    values = {}
    for k = 1, n * ncomp do values[k] = 0 end
  end
  if a.sparse > 0 then bad = substitute(ctx, i, a, values, bad) end
  if bad then not_finite(values, bad, ncomp, a.path) end
  got = { values = values, count = n, ncomp = ncomp, type = a.type, componentType = a.componentType,
    normalized = a.normalized, path = a.path, given = a.given }
  ctx.accessors[i] = got
  return got
end

return M
