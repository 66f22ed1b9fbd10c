-- import/blockbench/fields.lua: the fields Blockbench, Bedrock and the plugins that
-- write these files (GeckoLib, Animated Java, PlayerAnimationLibrary) give
-- each object of an animation, and the check that notes every other one
-- as a warning with the nearest known name (`animation_lenght`: did you
-- mean 'animation_length'?).  The readers pass over such a field, as
-- Blockbench does; only `anim validate` (and `--strict`) make it a problem.
--
-- The lists are the writers' (../shared/spec/import-notes.md: Blockbench's
-- Animation, GeneralAnimator and Keyframe getUndoCopy, bedrock_animation.js
-- and Bedrock's schema; GeckoLib's `vector`, `easing`, `easingArgs`;
-- Animated Java's animation fields; PlayerAnimationLibrary's `model`,
-- `bend`), editor-only fields included: those are known, never reported.
-- An object whose fields projects and plugins extend freely (a project's
-- top level, `meta`, a group) is checked only for near misses of the
-- fields the importer reads (M.near): a plugin's own setting is not a typo.
require("anim.base.luajit").no_traversal_traces()
local E = require "anim.base.errors"
local suggest = require "anim.base.suggest"
local byteorder = require "anim.base.order"

local M = {}

local function set(list)
  local s = { names = suggest.prepare(list), set = {} }
  for _, n in ipairs(list) do s.set[n] = true end
  return s
end

local CHANNEL_KEY = { "pre", "post", "lerp_mode", "vector", "easing", "easingArgs" }

M.KNOWN = {
  -- Bedrock (bedrock_animation.js, the add-on schema; PlayerAnimationLibrary's `model`)
  bedrock_animation = set { "loop", "animation_length", "override_previous_animation", "anim_time_update",
    "blend_weight", "start_delay", "loop_delay", "bones", "sound_effects", "particle_effects", "timeline", "model" },
  -- (PlayerAnimationLibrary's `bend`)
  bedrock_bone = set { "rotation", "position", "scale", "relative_to", "bend" },
  -- a key of a channel: {pre, post, lerp_mode}, GeckoLib's {vector, easing, easingArgs}
  bedrock_key = set(CHANNEL_KEY),
  sound_effect = set { "effect" },
  particle_effect = set { "effect", "locator", "pre_effect_script", "bind_to_actor" },
  -- .bbmodel (Animation.getUndoCopy and Animation.properties; Animated
  -- Java's excluded_nodes, and its older excluded_bones / affected_bones)
  animation = set { "uuid", "name", "loop", "override", "length", "snapping", "selected", "saved", "saved_name",
    "path", "anim_time_update", "blend_weight", "start_delay", "loop_delay", "animators", "bones", "markers",
    "group_name", "excluded_nodes", "excluded_bones", "affected_bones", "affected_bones_is_a_whitelist" },
  animator = set { "name", "type", "rotation_global", "quaternion_interpolation", "keyframes" },
  -- Keyframe.getUndoCopy (x, y, z, w and isQuaternion: before data_points);
  -- the GeckoLib and Animated Java plugins' easing and easingArgs
  keyframe = set { "channel", "time", "uuid", "color", "interpolation", "uniform", "data_points", "bezier_linked",
    "bezier_left_time", "bezier_left_value", "bezier_right_time", "bezier_right_value", "easing", "easingArgs",
    "x", "y", "z", "w", "isQuaternion" },
  data_point = set { "x", "y", "z" },
}

-- Objects extended freely: what the importer reads (the near misses
-- reported) and what the writers are known to put there besides.
M.NEAR = {
  project = { read = { "meta", "name", "outliner", "groups", "animations", "animation_variable_placeholders" },
    known = set { "meta", "name", "model_identifier", "parent", "geometry_name", "modded_entity_version",
      "modded_entity_entity_class", "modded_entity_flip_y", "ambientocclusion", "front_gui_light", "visible_box",
      "variable_placeholders", "variable_placeholder_buttons", "timeline_setups", "unhandled_root_fields",
      "resolution", "elements", "outliner", "groups", "textures", "texture_groups", "animations",
      "animation_controllers", "animation_variable_placeholders", "reference_images", "display", "overrides",
      "collections", "export_options", "blueprint_settings", "variants", "animated_java", "shadow_size" } },
  meta = { read = { "format_version", "model_format", "format" },
    known = set { "format_version", "model_format", "format", "box_uv", "creation_time", "uuid", "save_location",
      "last_used_export_namespace", "backup" } },
  group = { read = { "name", "uuid", "origin", "rotation", "children" },
    known = set { "name", "uuid", "origin", "rotation", "children", "color", "export", "mirror_uv", "isOpen", "locked",
      "visibility", "autouv", "selected", "shade", "reset", "primary_selected", "bedrock_binding", "cem_animations",
      "cem_attach", "cem_scale", "cem_model", "texture", "nbt", "configs", "onSummonFunction" } },
}

local function sorted_names(obj)
  local names = {}
  for name in pairs(obj) do
    if type(name) == "string" then names[#names + 1] = name end
  end
  byteorder.sort(names)
  return names
end

local function note(ctx, path, name, suggestion)
  ctx.note(E.key(path, name), "unknown field" .. (suggestion and string.format(" (did you mean '%s'?)",
    E.shown(suggestion)) or ""))
end

-- At most MAX_LISTED unknown fields of a file are listed, each with its
-- suggestion; past them one warning says that more are not (550,000 of
-- them in a 16.5 MB file took 1.6 s more to list, suggest and sort).
local MAX_LISTED = 64
local function listed(ctx)
  local n = (ctx.unknown_fields or 0) + 1
  ctx.unknown_fields = n
  if n == MAX_LISTED + 1 then
    ctx.note("", string.format("more unknown fields, not listed (the first %d are)", MAX_LISTED))
  end
  return n <= MAX_LISTED
end

-- Notes (ctx.note) each field of the object `obj` at `path` that objects
-- of `kind` (M.KNOWN) do not have.  Anything but an object: nothing (the
-- readers report a wrong type).
-- The first `most` names (in sorted order) of obj that `known` lacks: a
-- list kept sorted, so that an object of 550,000 unknown names is not
-- sorted whole for the 64 it lists.
local function first_unknown(obj, known, most)
  local out = {}
  for name in pairs(obj) do
    if type(name) == "string" and not known[name] and (#out < most or name < out[#out]) then
      local i = #out < most and #out + 1 or #out
      while i > 1 and out[i - 1] > name do out[i] = out[i - 1]; i = i - 1 end
      out[i] = name
    end
  end
  return out
end

function M.check(obj, path, kind, ctx)
  if type(obj) ~= "table" or (next(obj) ~= nil and E.is_array(obj)) then return end
  local k = M.KNOWN[kind]
  local left = MAX_LISTED + 1 - (ctx.unknown_fields or 0)
  if left <= 0 then return end
  for _, name in ipairs(first_unknown(obj, k.set, left)) do
    if not listed(ctx) then return end
    note(ctx, path, name, suggest.closest(name, k.names))
  end
end

-- Notes each field of `obj` that `kind` (M.NEAR) does not know and that
-- is a near miss of a field the importer reads.
function M.near(obj, path, kind, ctx)
  if type(obj) ~= "table" or (next(obj) ~= nil and E.is_array(obj)) then return end
  local k = M.NEAR[kind]
  for _, name in ipairs(sorted_names(obj)) do
    if not k.known.set[name] then
      local s = suggest.closest(name, k.read)
      if s then
        if not listed(ctx) then return end
        note(ctx, path, name, s)
      end
    end
  end
end

return M
