/* codes.h - every code shared by the C core and the Lua side, defined once.
 *
 * Each list is an X-macro: X(identifier, "name", value).  The core gets its
 * enums from them (below); the binding (csrc/lua/lua_codes.c) exports every
 * list to Lua as the read-only table anim.core.codes[group][name] = value,
 * and lua/anim/base/codes.lua is where every Lua file takes its numbers
 * from.  spec/codes_spec.lua reads this file and checks that Lua sees the
 * same names and numbers.  To add a code: add it to its list here; nothing
 * else needs a number.  Plain C, no Lua. */
#ifndef ANIM_CODES_H
#define ANIM_CODES_H

/* Interpolation of a key (the segment that starts at it); the easings run
 * from ANIM_SINE to ANIM_ELASTIC (docs/format-reference.md has their
 * formulas); ANIM_CUBICSPLINE is glTF's cubic Hermite spline, with the
 * keys' tangents (this module's extension of .anim). */
#define ANIM_INTERP_CODES(X)                                              \
  X(ANIM_LINEAR, "linear", 0) X(ANIM_STEP, "step", 1)                     \
  X(ANIM_CATMULLROM, "catmullrom", 2) X(ANIM_BEZIER, "bezier", 3)         \
  X(ANIM_SINE, "sine", 4) X(ANIM_QUAD, "quad", 5) X(ANIM_CUBIC, "cubic", 6) \
  X(ANIM_QUART, "quart", 7) X(ANIM_QUINT, "quint", 8) X(ANIM_EXPO, "expo", 9) \
  X(ANIM_CIRC, "circ", 10) X(ANIM_BACK, "back", 11)                       \
  X(ANIM_BOUNCE, "bounce", 12) X(ANIM_ELASTIC, "elastic", 13)              \
  X(ANIM_CUBICSPLINE, "cubicspline", 14)

/* Easing directions. */
#define ANIM_EASE_CODES(X) \
  X(ANIM_EASE_IN, "in", 0) X(ANIM_EASE_OUT, "out", 1) X(ANIM_EASE_INOUT, "inOut", 2)

/* Euler orders: "abc" means R = R_a * R_b * R_c (three.js). */
#define ANIM_EULER_CODES(X)                                                \
  X(ANIM_XYZ, "xyz", 0) X(ANIM_XZY, "xzy", 1) X(ANIM_YXZ, "yxz", 2)        \
  X(ANIM_YZX, "yzx", 3) X(ANIM_ZXY, "zxy", 4) X(ANIM_ZYX, "zyx", 5)

/* Loop modes, blend modes and spaces of a clip. */
#define ANIM_LOOP_CODES(X) \
  X(ANIM_ONCE, "once", 0) X(ANIM_LOOP, "loop", 1) X(ANIM_HOLD, "hold", 2) X(ANIM_PINGPONG, "pingpong", 3)
#define ANIM_BLEND_CODES(X) X(ANIM_BLEND_NORMAL, "normal", 0) X(ANIM_BLEND_ADDITIVE, "additive", 1)
#define ANIM_SPACE_CODES(X) X(ANIM_SPACE_BODY, "body", 0) X(ANIM_SPACE_VIEW, "view", 1)
/* which points of a blend space fire their items (spaceplay.c) */
#define ANIM_MARKERS_CODES(X) \
  X(ANIM_MARKERS_DOMINANT, "dominant", 0) X(ANIM_MARKERS_ALL, "all", 1) X(ANIM_MARKERS_NONE, "none", 2)

/* Named priority levels (a priority may also be any finite number). */
#define ANIM_PRIORITY_CODES(X)                                             \
  X(ANIM_PRIO_CORE, "core", 0) X(ANIM_PRIO_IDLE, "idle", 1)                \
  X(ANIM_PRIO_MOVEMENT, "movement", 2) X(ANIM_PRIO_ACTION, "action", 3)    \
  X(ANIM_PRIO_ACTION2, "action2", 4) X(ANIM_PRIO_ACTION3, "action3", 5)    \
  X(ANIM_PRIO_ACTION4, "action4", 6)

/* Kinds of timed items, in the order they fire at equal times. */
#define ANIM_ITEM_CODES(X) \
  X(ANIM_ITEM_MARKER, "marker", 0) X(ANIM_ITEM_EVENT, "event", 1) \
  X(ANIM_ITEM_SOUND, "sound", 2) X(ANIM_ITEM_PLAY, "play", 3)

/* Sides (an event's `on`, an animator's side). */
#define ANIM_SIDE_CODES(X) \
  X(ANIM_SIDE_BOTH, "both", 0) X(ANIM_SIDE_SERVER, "server", 1) X(ANIM_SIDE_CLIENT, "client", 2)

/* Channel flags (what a joint animates; bits). */
#define ANIM_CHANNEL_CODES(X) \
  X(ANIM_CH_POS, "position", 1) X(ANIM_CH_ROT, "rotation", 2) X(ANIM_CH_SCL, "scale", 4)

/* A joint's key slots: position, rotation, scale, pose weight; a split
 * channel keeps its other axes in the slots after these (clip.h). */
#define ANIM_SLOT_CODES(X) \
  X(ANIM_K_POS, "position", 0) X(ANIM_K_ROT, "rotation", 1) X(ANIM_K_SCL, "scale", 2) X(ANIM_K_PW, "pose_weight", 3)

/* Curve modifiers (SEMANTICS 3) and the modes of `cycles`. */
#define ANIM_MODIFIER_CODES(X)                                             \
  X(ANIM_MOD_CYCLES, "cycles", 0) X(ANIM_MOD_STEPPED, "stepped", 1)        \
  X(ANIM_MOD_NOISE, "noise", 2) X(ANIM_MOD_LIMITS, "limits", 3) X(ANIM_MOD_ENVELOPE, "envelope", 4)
#define ANIM_CYCLE_CODES(X) \
  X(ANIM_CYC_NONE, "none", 0) X(ANIM_CYC_REPEAT, "repeat", 1) X(ANIM_CYC_OFFSET, "offset", 2) X(ANIM_CYC_MIRROR, "mirror", 3)

/* A key's interpolation byte (curve.h): the interpolation in the low bits,
 * the ease above it, and whether the file wrote each (for encoding). */
#define ANIM_KEYBYTE_CODES(X)                                              \
  X(ANIM_IE_INTERP, "interp_mask", 0x0f) X(ANIM_IE_EASE_SHIFT, "ease_shift", 4) \
  X(ANIM_IE_EASE, "ease_mask", 0x30) X(ANIM_IE_HAS_INTERP, "has_interp", 0x40) \
  X(ANIM_IE_HAS_EASE, "has_ease", 0x80)

/* A bezier handle record's form flags: a handle's dv written as one number;
 * its dt written as an array (one time per axis: curve.h). */
#define ANIM_HANDLE_CODES(X) X(ANIM_HFORM_OUT_ONE, "out_one", 1) X(ANIM_HFORM_IN_ONE, "in_one", 2) \
  X(ANIM_HFORM_OUT_DTS, "out_dts", 4) X(ANIM_HFORM_IN_DTS, "in_dts", 8)

/* What the queue of an update holds (anim_event.type). */
#define ANIM_EVENT_CODES(X) \
  X(ANIM_EV_ITEM, "item", 0) X(ANIM_EV_LOOPED, "looped", 1) X(ANIM_EV_STOPPED, "stopped", 2) X(ANIM_EV_ENDED, "ended", 3) \
  X(ANIM_EV_EXIT, "exit", 4) X(ANIM_EV_TRANSITION, "transition", 5) X(ANIM_EV_ENTER, "enter", 6)

/* State machines (graph.h): the types of parameters, the operators of
 * conditions (set: the one-element form), which transitions may interrupt
 * a transition under way. */
#define ANIM_GPARAM_CODES(X) \
  X(ANIM_GPARAM_FLOAT, "float", 0) X(ANIM_GPARAM_INT, "int", 1) X(ANIM_GPARAM_BOOL, "bool", 2) \
  X(ANIM_GPARAM_TRIGGER, "trigger", 3)
#define ANIM_GOP_CODES(X) \
  X(ANIM_GOP_EQ, "eq", 0) X(ANIM_GOP_NE, "ne", 1) X(ANIM_GOP_LT, "lt", 2) X(ANIM_GOP_LE, "le", 3) \
  X(ANIM_GOP_GT, "gt", 4) X(ANIM_GOP_GE, "ge", 5) X(ANIM_GOP_SET, "set", 6)
#define ANIM_GINT_CODES(X) \
  X(ANIM_GINT_NONE, "none", 0) X(ANIM_GINT_SOURCE, "source", 1) X(ANIM_GINT_DESTINATION, "destination", 2) \
  X(ANIM_GINT_SOURCE_THEN_DESTINATION, "source_then_destination", 3) \
  X(ANIM_GINT_DESTINATION_THEN_SOURCE, "destination_then_source", 4)

/* Who listens (anim_animator_hear, anim_track_hear): one bit per kind of
 * queue entry.  An entry whose bit neither its animator's mask nor its
 * track's has is not queued, so that what nobody hears costs no Lua work. */
#define ANIM_HEAR_CODES(X) \
  X(ANIM_HEAR_MARKER, "marker", 1) X(ANIM_HEAR_EVENT, "event", 2) X(ANIM_HEAR_SOUND, "sound", 4) \
  X(ANIM_HEAR_PLAYS, "plays", 8) X(ANIM_HEAR_LOOPED, "looped", 16) X(ANIM_HEAR_STOPPED, "stopped", 32) \
  X(ANIM_HEAR_ENDED, "ended", 64) X(ANIM_HEAR_ALL, "all", 127)

/* Inverse kinematics constraints (ik.c) and the fields a script sets. */
#define ANIM_IK_CODES(X) X(ANIM_IK_TWO_BONE, "two_bone", 0) X(ANIM_IK_AIM, "aim", 1)
#define ANIM_IKFIELD_CODES(X) \
  X(ANIM_IKF_TARGET, "target", 0) X(ANIM_IKF_POLE, "pole", 1) X(ANIM_IKF_WEIGHT, "weight", 2) \
  X(ANIM_IKF_SOFTEN, "soften", 3)

/* What an update says, from the core (anim_animator_update) and from the
 * binding (core.animator_update, core.animators_update): 0 is done; the
 * others change nothing, except ANIM_ST_NOMEM (the update was made, its
 * callback queue is incomplete).  One list, so no two mean the same. */
#define ANIM_STATUS_CODES(X)                                               \
  X(ANIM_ST_OK, "ok", 0) X(ANIM_ST_BAD_DT, "bad_dt", -1)                   \
  X(ANIM_ST_NOMEM, "nomem", -2) X(ANIM_ST_DELIVERING, "delivering", -3)    \
  X(ANIM_ST_QUEUED, "queued", -4) X(ANIM_ST_NOT_ANIMATOR, "not_animator", -5) \
  X(ANIM_ST_TWICE, "twice", -6) X(ANIM_ST_NOT_LIST, "not_list", -7)     \
  X(ANIM_ST_SKIN_ROOM, "skin_room", -8)

/* How an override of a joint combines with the blended pose (override.c). */
#define ANIM_OVERRIDE_CODES(X) X(ANIM_OVR_REPLACE, "replace", 0) X(ANIM_OVR_ADD, "add", 1)

/* What core.check_tree found wrong in a decoded JSON tree. */
#define ANIM_TREE_CODES(X)                                                 \
  X(ANIM_TREE_BAD_STRING, "bad_string", 1) X(ANIM_TREE_BAD_KEY_LENGTH, "bad_key_length", 2) \
  X(ANIM_TREE_BAD_KEY_TYPE, "bad_key_type", 3) X(ANIM_TREE_BAD_NUMBER, "bad_number", 4) \
  X(ANIM_TREE_TOO_DEEP, "too_deep", 5) X(ANIM_TREE_BAD_VALUE, "bad_value", 6)

/* Numbers both sides use: the defaults and bounds SEMANTICS and the docs
 * name (docs/robustness.md lists the bounds). */
#define ANIM_CONST_CODES(X)                                                \
  X(ANIM_MAX_PASSES, "max_passes", 64)                /* passes fired per track per update */ \
  X(ANIM_MAX_CURVE_KEYS, "max_curve_keys", 1000000)   /* keys of one channel */ \
  X(ANIM_MAX_RIG_JOINTS, "max_rig_joints", 65536)     /* joints of a rig, bindings of a track */ \
  X(ANIM_MAX_BATCH, "max_batch", 67108864)            /* animators of one anim.update (2^26) */ \
  X(ANIM_MAX_PROP_ARITY, "max_prop_arity", 1024)      /* components of one property channel */ \
  X(ANIM_MAX_SPACE_POINTS, "max_space_points", 64)    /* points of a blend space */ \
  X(ANIM_MAX_THREADS, "max_threads", 64)              /* threads of one anim.update (pool.c) */ \
  X(ANIM_THREADS_MIN_BATCH, "threads_min_batch", 256) /* the default uses threads from this many animators */ \
  X(ANIM_MAX_2D_STEPS, "max_2d_steps", 250000)        /* steps of a 2D skeleton's update order (world2d.c) */

/* The same for numbers that are not integers (exported as floats). */
#define ANIM_DEFAULT_FADE 0.1   /* play, stop and adjust_weight (SEMANTICS 7a.10) */
#define ANIM_TIE_SECONDS 1e-12  /* occurrences closer than this are ties (7a.12) */
#define ANIM_WEIGHT_CAP 1e300   /* a joint's effective weight, so sums stay finite */
#define ANIM_FLOAT_CODES(X)                                                \
  X(ANIM_DEFAULT_FADE, "default_fade", ANIM_DEFAULT_FADE)                  \
  X(ANIM_TIE_SECONDS, "tie_seconds", ANIM_TIE_SECONDS)                     \
  X(ANIM_WEIGHT_CAP, "weight_cap", ANIM_WEIGHT_CAP)

/* The binding's table layouts, named once for C and Lua (csrc/lua/): the
 * user values of a track's box and of an animator's (1-based, as
 * lua_getiuservalue numbers them), and the entries of slot s in the slot
 * table (lua_slots.c): entry 4s - k for each k, a slot `width` entries. */
#define ANIM_UV_CODES(X)                                                   \
  X(ANIM_UV_TRACK_SOURCE, "track_source", 1) X(ANIM_UV_TRACK_ANIMATOR, "track_animator", 2) \
  X(ANIM_UV_TRACK_CALLBACKS, "track_callbacks", 3) X(ANIM_UV_TRACK_BY_MARKER, "track_by_marker", 4) \
  X(ANIM_UV_TRACK_MARKS, "track_marks", 5) X(ANIM_UV_TRACK_COUNT, "track_count", 5) \
  X(ANIM_UV_ANIMATOR_RIG, "animator_rig", 1) X(ANIM_UV_ANIMATOR_STATE, "animator_state", 2) \
  X(ANIM_UV_ANIMATOR_ON_MARKER, "animator_on_marker", 3) X(ANIM_UV_ANIMATOR_ON_EVENT, "animator_on_event", 4) \
  X(ANIM_UV_ANIMATOR_ON_SOUND, "animator_on_sound", 5) X(ANIM_UV_ANIMATOR_COUNT, "animator_count", 5)
#define ANIM_SLOTS_CODES(X)                                                \
  X(ANIM_SLOTS_WIDTH, "width", 4) X(ANIM_SLOTS_TRACK, "track", 3) X(ANIM_SLOTS_BY_MARKER, "by_marker", 2) \
  X(ANIM_SLOTS_MARKS, "marks", 1) X(ANIM_SLOTS_KEY, "key", 0)

/* Every list, with the name of its group in anim.core.codes. */
#define ANIM_CODE_GROUPS(G)                                                \
  G("interp", ANIM_INTERP_CODES) G("ease", ANIM_EASE_CODES) G("euler", ANIM_EULER_CODES) \
  G("loop", ANIM_LOOP_CODES) G("blend", ANIM_BLEND_CODES) G("space", ANIM_SPACE_CODES) \
  G("markers", ANIM_MARKERS_CODES) \
  G("priority", ANIM_PRIORITY_CODES) G("item", ANIM_ITEM_CODES) G("side", ANIM_SIDE_CODES) \
  G("channel", ANIM_CHANNEL_CODES) G("slot", ANIM_SLOT_CODES) G("modifier", ANIM_MODIFIER_CODES) \
  G("cycle", ANIM_CYCLE_CODES) G("keybyte", ANIM_KEYBYTE_CODES) G("handle", ANIM_HANDLE_CODES) \
  G("event", ANIM_EVENT_CODES) G("status", ANIM_STATUS_CODES) G("tree", ANIM_TREE_CODES) \
  G("override", ANIM_OVERRIDE_CODES) G("ik", ANIM_IK_CODES) G("ikfield", ANIM_IKFIELD_CODES) \
  G("hear", ANIM_HEAR_CODES) G("const", ANIM_CONST_CODES) G("uv", ANIM_UV_CODES) G("slots", ANIM_SLOTS_CODES) \
  G("gparam", ANIM_GPARAM_CODES) G("gop", ANIM_GOP_CODES) G("ginterrupt", ANIM_GINT_CODES)

#define ANIM_CODE_ENUM(id, name, value) id = (value),
enum { ANIM_INTERP_CODES(ANIM_CODE_ENUM) ANIM_INTERP_COUNT };
enum { ANIM_EASE_CODES(ANIM_CODE_ENUM) ANIM_EASE_COUNT };
enum { ANIM_EULER_CODES(ANIM_CODE_ENUM) ANIM_EULER_COUNT };
enum { ANIM_LOOP_CODES(ANIM_CODE_ENUM) ANIM_LOOP_COUNT };
enum { ANIM_BLEND_CODES(ANIM_CODE_ENUM) ANIM_BLEND_COUNT };
enum { ANIM_SPACE_CODES(ANIM_CODE_ENUM) ANIM_SPACE_COUNT };
enum { ANIM_MARKERS_CODES(ANIM_CODE_ENUM) ANIM_MARKERS_COUNT };
enum { ANIM_PRIORITY_CODES(ANIM_CODE_ENUM) ANIM_PRIORITY_COUNT };
enum { ANIM_ITEM_CODES(ANIM_CODE_ENUM) ANIM_ITEM_COUNT };
enum { ANIM_SIDE_CODES(ANIM_CODE_ENUM) ANIM_SIDE_COUNT };
enum { ANIM_CHANNEL_CODES(ANIM_CODE_ENUM) ANIM_CHANNEL_ALL = 7 };
enum { ANIM_SLOT_CODES(ANIM_CODE_ENUM) ANIM_SLOT_COUNT };
enum { ANIM_MODIFIER_CODES(ANIM_CODE_ENUM) ANIM_MODIFIER_COUNT };
enum { ANIM_CYCLE_CODES(ANIM_CODE_ENUM) ANIM_CYCLE_COUNT };
enum { ANIM_KEYBYTE_CODES(ANIM_CODE_ENUM) ANIM_KEYBYTE_END };
enum { ANIM_HANDLE_CODES(ANIM_CODE_ENUM) ANIM_HANDLE_END };
enum { ANIM_EVENT_CODES(ANIM_CODE_ENUM) ANIM_EVENT_COUNT };
enum { ANIM_STATUS_CODES(ANIM_CODE_ENUM) ANIM_STATUS_END };
enum { ANIM_TREE_CODES(ANIM_CODE_ENUM) ANIM_TREE_END };
enum { ANIM_OVERRIDE_CODES(ANIM_CODE_ENUM) ANIM_OVERRIDE_COUNT };
enum { ANIM_IK_CODES(ANIM_CODE_ENUM) ANIM_IK_COUNT };
enum { ANIM_IKFIELD_CODES(ANIM_CODE_ENUM) ANIM_IKFIELD_COUNT };
enum { ANIM_HEAR_CODES(ANIM_CODE_ENUM) ANIM_HEAR_END };
enum { ANIM_CONST_CODES(ANIM_CODE_ENUM) ANIM_CONST_END };
enum { ANIM_UV_CODES(ANIM_CODE_ENUM) ANIM_UV_END };
enum { ANIM_SLOTS_CODES(ANIM_CODE_ENUM) ANIM_SLOTS_END };
enum { ANIM_GPARAM_CODES(ANIM_CODE_ENUM) ANIM_GPARAM_COUNT };
enum { ANIM_GOP_CODES(ANIM_CODE_ENUM) ANIM_GOP_COUNT };
enum { ANIM_GINT_CODES(ANIM_CODE_ENUM) ANIM_GINT_COUNT };

#endif
