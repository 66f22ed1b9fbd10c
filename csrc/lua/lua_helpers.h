/* lua_helpers.h - what every file of the binding shares, and nothing else:
 * the userdata boxes and their metatable names (lua_box.c), the allocator
 * (lua_mem.c), the argument checks (lua_args.c), the suggestion of a name
 * (lua_suggest.c), what playing takes (lua_play.c), key blocks
 * (lua_keyblock.c), user data in messages (lua_shown.c) and the delivery
 * (lua_deliver.c).  Every binding file includes this and the core's
 * headers, never another binding file (docs/architecture.md); lua_module.c
 * calls the open functions declared at the end. */
#ifndef ANIM_LUA_HELPERS_H
#define ANIM_LUA_HELPERS_H

#include <stdint.h>
#include <string.h>

#include "lua.h"

#include "lua_compat.h"
#include "core/amem.h"
#include "core/animator.h"
#include "core/blendspace.h"
#include "core/clip.h"
#include "core/gameplay.h"
#include "core/rig.h"

/* A function on a hot path inlined wherever it is called, and one kept out
 * of line (inlined, its registers would be saved and restored on every
 * call of its caller, not only when it runs).  GCC and Clang; elsewhere
 * the compiler's choice. */
#if defined(__GNUC__) || defined(__clang__)
#define ANIM_LUA_HOT inline __attribute__((always_inline))
#define ANIM_LUA_COLD __attribute__((noinline))
#else
#define ANIM_LUA_HOT inline
#define ANIM_LUA_COLD
#endif

/* The metatables of the userdata (their __name is what messages show). */
#define ANIM_CLIP_MT "anim.clip"
#define ANIM_RIG_MT "anim.rig"
#define ANIM_ANIMATOR_MT "anim.animator"
/* The registry's key of the Lua function animator:skin calls on an
 * animator of a 2D skeleton given a skin's name or nothing
 * (core.world2d_skin_handler, lua/anim/runtime/animator2d.lua). */
#define ANIM_SKIN2D_KEY "anim.skin2d"
#define ANIM_TRACK_MT "anim.track"
#define ANIM_RETARGET_MT "anim.retarget"
#define ANIM_SPACE_MT "anim.blendspace"
#define ANIM_GRAPH_MT "anim.graph"

/* The kinds of box, each with its metatable and the one a finalized box
 * of that kind gets ("anim.clip (finalized)": every use of the object then
 * raises a clear error).  Every box starts with its kind's tag, and a box
 * is taken as one only with its kind's metatable, its tag and its size: a
 * userdata given a box's metatable by debug.setmetatable (a box of another
 * kind, any other userdata) is refused, never read as that box. */
enum { ANIM_BOX_CLIP, ANIM_BOX_RIG, ANIM_BOX_ANIMATOR, ANIM_BOX_TRACK, ANIM_BOX_RETARGET,
       ANIM_BOX_SPACE, ANIM_BOX_GRAPH, ANIM_BOX_KINDS };
#define ANIM_BOX_TAG(kind) (0x616e0000u + (unsigned)(kind))

/* The boxes.  A clip keeps the key cursors clip:sample uses between calls
 * (a cache beside the immutable clip: steady sampling finds keys in O(1)).
 * An animator's `delivering` is DELIVERING while its callbacks are
 * delivered (an update from one of them is refused, not re-entered), QUEUED
 * from the batch update that queued them until their delivery starts (an
 * update then would drop them); mark and slot: the batch update's call and
 * list index that last saw it (an animator listed twice is refused).  A
 * finalized box (its __gc ran, by the collector or by hand) holds NULL. */
typedef struct { unsigned tag; anim_clip *clip; int *cursors; size_t ncursors; } anim_clip_box;
typedef struct { unsigned tag; anim_rig *rig; } anim_rig_box;
enum { ANIM_IDLE, ANIM_DELIVERING, ANIM_QUEUED };
typedef struct anim_lua_acct anim_lua_acct;
typedef struct {
  unsigned tag;
  anim_animator *a;
  anim_lua_acct *acct;
  int delivering;
  int slot;
  unsigned long long mark;
  unsigned long long unslots;  /* acct->unslots when its queue was made (lua_deliver.c) */
  int queued;                  /* the entries of its queue when a batch update queued it (lua_update.c) */
  unsigned long long serial;   /* its animator's number in the state (acct->serials when it was made or
                                * restored): never another's, where an address may be a freed one's */
} anim_animator_box;
typedef struct { unsigned tag; anim_track *t; int slot; } anim_track_box;
typedef struct { unsigned tag; } anim_retarget_box;
typedef struct { unsigned tag; anim_space *s; } anim_space_box;
typedef struct { unsigned tag; struct anim_graph *g; } anim_graph_box;

/* ---- memory ---------------------------------------------------------------
 * The core allocates through the state's allocator (lua_Alloc), called
 * directly: Lua's collector does not see those bytes, and an animator of a
 * 4,096-joint rig (1.6 MB) looks like a userdata of 40 bytes to it.  So
 * the core's allocator is a counter in front of the state's: what the core
 * takes is added up per state, and the binding steps the collector by it
 * (anim_lua_account), as if Lua had allocated it.  When an allocation of
 * the core fails, the binding collects in full (finalizers free the core
 * memory of what is garbage) and tries once more (anim_lua_retry). */
struct anim_lua_acct {
  unsigned tag;
  lua_State *main;   /* the state's main thread: its allocator of the moment */
  size_t debt;       /* bytes the core took since the last step */
  int delivering;    /* animators delivering now, or queued by a batch update (anim_lua_setdelivering;
                      * core.delivering) */
  unsigned long long unslots; /* tracks taken out of the slot table so far (lua_slots.c) */
  unsigned long long serials; /* animators made or restored so far (anim_animator_box's serial) */
};

/* The core's allocator for this state: the state's allocator, counted. */
anim_mem anim_lua_mem(lua_State *L);
/* The counter of this state (made on first use). */
anim_lua_acct *anim_lua_acct_of(lua_State *L);
/* Steps the collector by what the core took since the last step (when it
 * is more than a few KiB and the collector runs).  Finalizers may run:
 * call it before taking pointers out of boxes, or after the last use. */
void anim_lua_account(lua_State *L, anim_lua_acct *acct);
/* After an allocation of the core failed: a full collection, then 1 (try
 * again, once: pointers taken from boxes before must be taken again). */
int anim_lua_retry(lua_State *L);
/* p = expr, and once more after a full collection when it is NULL. */
#define ANIM_LUA_RETRY(L, p, expr) \
  do { (p) = (expr); if (!(p) && anim_lua_retry(L)) (p) = (expr); } while (0)
/* Raises the memory error of a failed allocation in the core. */
int anim_lua_nomem(lua_State *L);

/* ---- argument checks ------------------------------------------------------
 * Each raises "bad argument #arg to 'name' (message)" at the caller's line,
 * as luaL_argerror does (a method call counts from its first argument after
 * self), and names what it got by its metatable's __name. */

/* luaL_argerror with a formatted message.  Raised by a method (a C
 * function registered by anim_lua_setmethods), it names the method and
 * counts from the first argument after self however the script called it
 * (a:get(x), a.get(a, x), a hoisted get, under a pcall), at the line of
 * the script that called; a bad self is "calling 'get' on bad self (...)". */
int anim_lua_argerror(lua_State *L, int arg, const char *fmt, ...);
/* A C function that is a method: exported as `name` in anim.core, known
 * as `method` to scripts (in the messages of anim_lua_argerror). */
typedef struct anim_lua_method {
  const char *name, *method;
  lua_CFunction fn;
} anim_lua_method;
/* luaL_setfuncs for methods: each function of list (ended by a NULL name)
 * with the nup upvalues on the top of the stack (popped), set in the
 * module table under them as `name` and in its class's method table, the
 * module's field `table` (made on first use), as `method`; registered as
 * a method (its argument errors: anim_lua_argerror). */
void anim_lua_setmethods(lua_State *L, const char *table, const anim_lua_method *list, int nup);
/* The __name of the value's metatable (shown: anim_lua_shown, pushed
 * with the name under it), else its type name (nothing pushed). */
const char *anim_lua_typename(lua_State *L, int idx);
/* The box of kind `kind` (ANIM_BOX_*) at arg ("anim.clip expected, got
 * Y"; a finalized box: "anim.clip used after it was finalized (...)"). */
void *anim_lua_checkbox(lua_State *L, int arg, int kind);
/* The box at idx if it is one of kind `kind`, live or finalized (what
 * was the Lua side's of it, its user values, is still there), else NULL. */
void *anim_lua_testbox_any(lua_State *L, int idx, int kind);
/* Raises "anim.clip used after it was finalized (...)"; the message
 * pushed. */
int anim_lua_finalized(lua_State *L, int kind);
void anim_lua_pushfinalized(lua_State *L, int kind);
/* Gives the box at idx the metatable of a finalized box of its kind. */
void anim_lua_setfinalized(lua_State *L, int idx, int kind);
/* A new box of kind `kind` (size bytes, its tag set, the rest zero) with
 * nuv user values and its kind's metatable, on the top of the stack. */
void *anim_lua_newbox(lua_State *L, int kind, size_t size, int nuv);
/* An integer in [lo, hi] at arg: a Lua integer, or a float with an integral
 * value; anything else, or out of range, raises naming `what` (never a
 * cast that wraps: 2^32 + 1 is out of range, not 1). */
lua_Integer anim_lua_checkrange(lua_State *L, int arg, lua_Integer lo, lua_Integer hi, const char *what);
/* The same for an optional argument: dflt when it is none or nil. */
lua_Integer anim_lua_optrange(lua_State *L, int arg, lua_Integer dflt, lua_Integer lo, lua_Integer hi, const char *what);
/* The whole range of lua_Integer (5.1 has no LUA_MAXINTEGER): an id or
 * an index any integer may be, checked as one (never a cast of a float
 * that has no integer value). */
#define ANIM_LUA_IMAX ((lua_Integer)(((unsigned long long)1 << (sizeof(lua_Integer) * 8 - 1)) - 1))
#define ANIM_LUA_IMIN (-ANIM_LUA_IMAX - 1)

/* A new array of the n numbers of v.  Making it may run a collection, and
 * finalizers: v must be memory no finalizer can free (the C stack), else
 * make the table (lua_createtable(L, n, 0)), take the pointer again and
 * fill it with anim_lua_fillnumbers. */
void anim_lua_pushnumbers(lua_State *L, const double *v, size_t n);
/* Sets t[1..n] = v[0..n-1] in the table on the top of the stack, made with
 * room for n in its array part: nothing is allocated, nothing runs. */
void anim_lua_fillnumbers(lua_State *L, const double *v, size_t n);
/* Makes the metatable of kind `kind` (with gc as its __gc, unless NULL;
 * __metatable set, so that getmetatable gives its name) and the one of its
 * finalized boxes, and sets them as fields `field` and `field`_finalized
 * of the table on the top of the stack. */
void anim_lua_newmeta(lua_State *L, int kind, lua_CFunction gc, const char *field);
/* Registers the metatable `name` (luaL_newmetatable) of a userdata only
 * the bindings read, its __metatable false: getmetatable gives a script
 * nothing to change. */
void anim_lua_sealed_meta(lua_State *L, const char *name);
/* Registers the metatable `name` (luaL_newmetatable) of a scratch box the
 * binding keeps to itself, with gc as its __gc (which frees what the box
 * holds when a Lua error cuts a call short). */
void anim_lua_gcmeta(lua_State *L, const char *name, lua_CFunction gc);
/* Pushes user value n of the box of kind `kind` at index 1, live or
 * finalized: the Lua side's table of an object (returns 1). */
int anim_lua_uservalue(lua_State *L, int kind, int n);

/* Playing.  The play options at idx..idx+3 (fade, weight, speed,
 * priority or nil: numbers only, nothing runs).  The bindings table at idx
 * (anim_binding, animator.h):
 *   { { cj = 1-based clip joint, rj = 1-based rig joint,
 *       pre = quat?, post = quat?, pscale = number? }, ... }
 * as lua/anim/format/bind.lua makes them, read raw, checked against a clip
 * of njoints joints and a rig of nrig (numbers the caller takes before:
 * making the array may run finalizers, which may finalize the clip or the
 * rig by hand), into an array kept in a userdata pushed on the stack
 * (freed by the collector); *n gets their count.  The list's field `gen`
 * (absent: 0) is the clip's count of reloads when they were made: NULL,
 * nothing pushed, when it is not `gen` (the clip's, which the caller took
 * with njoints): the bindings are for content the clip no longer has.  A
 * caller compares the clip's count with gen again after every allocation
 * that may run finalizers (this one too), which may reload it.  A new empty track box
 * (its stack index; making it may run finalizers too), then the track of a
 * play in it (retained: raises the memory error for NULL), its user values
 * the values at src (the clip or blend space), animator and cbs (the Lua
 * side's callbacks), the core memory told to the collector, the box left
 * on the top of the stack. */
void anim_lua_checkplayopts(lua_State *L, int idx, anim_play_opts *o);
anim_binding *anim_lua_checkbindings(lua_State *L, int idx, int njoints, unsigned gen, int nrig, int *n);
int anim_lua_newtrack(lua_State *L);
void anim_lua_settrack(lua_State *L, int box, anim_track *t, int src, int animator, int cbs);
/* The same without telling the collector (which may run finalizers): the
 * caller calls anim_lua_account when it may. */
void anim_lua_bindtrack(lua_State *L, int box, anim_track *t, int src, int animator, int cbs);

/* The animator at index 1 of a function called per joint, per character,
 * per frame (a reader of the pose): its metatable is compared with the
 * animator metatable in the function's upvalue 1 instead of being looked
 * up in the registry by name (its tag and size too); raises the usual
 * message when it is not an animator, or a finalized one.  The box: a
 * reader that makes tables takes the animator out of it again after each
 * (finalizers may finalize it by hand). */
anim_animator_box *anim_lua_reader_box(lua_State *L);
/* The animator box at the absolute index idx when its size and tag are an
 * animator box's and its metatable is the one at mt (an upvalue or an
 * absolute index: no lookup in the registry); NULL otherwise (a finalized
 * box has another metatable).  The size before the tag is read (a smaller
 * userdata given the metatable by debug.setmetatable may not hold four
 * bytes); both before the metatable, so that most other values fail
 * without anything pushed (a light userdata's length is 0).  Found, the
 * metatable compared is left on the top of the stack: a reader of one
 * joint returns its results from the top, and a pop would be one more
 * call into Lua per read (anim_lua_animator_at pops it).  Inline: its five
 * calls into Lua are most of its cost, a call more is not needed. */
static inline anim_animator_box *anim_lua_animator_mt(lua_State *L, int idx, int mt) {
  anim_animator_box *b = lua_touserdata(L, idx);
  if (!b || lua_rawlen(L, idx) != sizeof *b || b->tag != ANIM_BOX_TAG(ANIM_BOX_ANIMATOR) || !lua_getmetatable(L, idx))
    return NULL;
  /* (two tables are the same when their addresses are: lua_rawequal
   * would say so after finding out what they are) */
  if (lua_topointer(L, -1) == lua_topointer(L, mt)) return b;
  lua_pop(L, 1);
  return NULL;
}
/* The same, the stack left as it was. */
anim_animator_box *anim_lua_animator_at(lua_State *L, int idx, int mt);

/* ---- user data in messages (lua_shown.c) ---------------------------------
 * A name, key, path or value from a file, a state or a script, as every
 * message quotes it: control bytes written \n, \r, \t or \ddd (ddd: all
 * \ddd), at most ANIM_LUA_SHOWN bytes, a longer one cut with "... (N
 * bytes)".  Pushed on the stack, and returned; reads at most
 * ANIM_LUA_SHOWN + 1 bytes of s.  The same rule for the Lua side:
 * core.shown (lua/anim/base/errors.lua's E.shown). */
#define ANIM_LUA_SHOWN 200
const char *anim_lua_pushshown(lua_State *L, const char *s, size_t len, int ddd);
/* The string (or number) at idx, shown, pushed. */
const char *anim_lua_shown(lua_State *L, int idx);

/* The closest of names[0..n-1] to `name` for "did you mean?", or NULL:
 * the one that differs only in letter case, else the nearest by edit
 * distance (letter case ignored) when at most a third of the name's
 * length edits away (at most 3; at least 1 for names of 3 letters or more,
 * none for shorter ones); ties go to the first.  The edit distance is
 * computed only between names of at most 64 bytes (a longer one is
 * suggested for its letter case only), so the work is bounded whatever
 * the names.  The same rule as lua/anim/base/suggest.lua. */
const char *anim_lua_suggest(const char *name, const char *const *names, int n);

/* Delivery (lua_deliver.c): every entry of an animator's queue is
 * delivered from C, in order, each callback in a protected call, the
 * first error kept.  What only Lua can do is a call into one of the Lua
 * handlers registered once by core.deliver_handlers(call, plays)
 * (lua/anim/runtime/deliver.lua): `call` runs a callback where it could
 * yield (in a coroutine of its own), `plays` starts what a `plays` item
 * names.  anim_lua_pushdeliver pushes the upvalues the functions that
 * deliver are made with (the animators' metatable, debug.traceback, the
 * slot table, the handlers, the keys of the Lua side's tables) and
 * returns their count; anim_lua_deliver_handlers is
 * core.deliver_handlers, made with them.  From one of those functions,
 * anim_lua_deliver delivers the n entries queued by the animator of box b
 * (at stack index ai) and returns the stack index of the first error of
 * a callback (or nil); values may be left above it. */
int anim_lua_pushdeliver(lua_State *L);
int anim_lua_deliver_handlers(lua_State *L);
/* Sets b->delivering; the state's count of animators delivering or with
 * callbacks queued (a reload waits while it is not 0: the queues name the
 * clips' items by index) follows b out of and into ANIM_IDLE (lua_deliver.c,
 * the batch update). */
static inline void anim_lua_setdelivering(anim_animator_box *b, int state) {
  if ((b->delivering == ANIM_IDLE) != (state == ANIM_IDLE))
    b->acct->delivering += state == ANIM_IDLE ? -1 : 1;
  if (state == ANIM_QUEUED) b->unslots = b->acct->unslots;  /* (its queue was just made) */
  b->delivering = state;
}
/* From one of those functions: the animator box at idx, live or finalized,
 * else NULL (anim_lua_testbox_any, faster for a live one). */
anim_animator_box *anim_lua_deliver_animator(lua_State *L, int idx);
/* The slot table (lua_slots.c), pushed: made on first use, one per
 * state.  A clip's track playing on an animator has a slot s in it
 * (anim_lua_slot): [4s - 3] the track, [4s - 2] and [4s - 1] its user
 * values 4 and 5 (what a marker reads, runtime/dispatch.lua), [4s] the
 * core track as a light userdata; a free slot's [4s] is the next free
 * one, [-1] the first, [0] the number of slots.  Weak values: the slots
 * keep nothing alive.  ANIM_SLOT_AT(s, k): entry k (codes.h,
 * ANIM_SLOTS_CODES) of slot s, 4s - k. */
#define ANIM_SLOT_AT(s, k) (ANIM_SLOTS_WIDTH * (lua_Integer)(s) - (k))
void anim_lua_pushslots(lua_State *L);
/* Gives the track box at idx (live) a slot; takes it back (0 when it
 * had none; a finalized box too). */
void anim_lua_slot(lua_State *L, int idx);
int anim_lua_unslot(lua_State *L, int idx);
/* Sets user value n (4 or 5) of the track box at idx to the value on the
 * top of the stack (popped), in its slot too. */
void anim_lua_set_dispatch(lua_State *L, int idx, int n);
int anim_lua_deliver(lua_State *L, anim_animator_box *b, int ai, int n);
/* The same in two steps, from a function whose delivery upvalues start
 * after uv others, for a batch of animators delivered one after the
 * other above the same message handler and first error: _open pushes
 * them (the handler at base + 1, the error, nil, at base + 2) and returns
 * base, the height of the stack before; _from delivers as above (an
 * animator finalized before its turn: its error, when none came before),
 * keeps a callback's error at base + 2 only while that is nil, and may
 * leave values above it (the stack must be back at base + 2 for the
 * next). */
int anim_lua_deliver_open(lua_State *L, int uv);
void anim_lua_deliver_from(lua_State *L, int uv, int base, anim_animator_box *b, int ai, int n);

/* A key block: one channel's keys as core.key_scanner took them
 * (csrc/io/keyscan.c), which clip_new copies into the clip
 * (lua_clip.c) instead of reading a Lua table per key.  A userdata of the
 * header, then cap times, cap * stride values (n * arity used: key after
 * key) and cap key bytes; n and arity are set when the scanner took every
 * key of the channel.  Its metatable is the registry's ANIM_KEYBLOCK_MT. */
typedef struct { unsigned tag; int n, arity, cap, stride, pad; } anim_keyblock;
#define ANIM_KEYBLOCK_MT "anim.keyblock"
#define ANIM_KEYBLOCK_TAG 0x616e6b62u
#define ANIM_KEYBLOCK_SIZE(cap, stride) \
  (sizeof(anim_keyblock) + (size_t)(cap) * (sizeof(double) * (1 + (size_t)(stride)) + 1))
#define ANIM_KEYBLOCK_ARRAYS(kb, t, v, ie) \
  ((t) = (double *)(void *)((kb) + 1), (v) = (t) + (kb)->cap, \
   (ie) = (unsigned char *)(void *)((v) + (size_t)(kb)->cap * (size_t)(kb)->stride))
/* A new key block with room for cap keys of at most stride values, on the
 * top of the stack (n and arity 0). */
anim_keyblock *anim_lua_newkeyblock(lua_State *L, int cap, int stride);
/* The key block at idx (its metatable, tag and size checked), else NULL. */
anim_keyblock *anim_lua_tokeyblock(lua_State *L, int idx);
void anim_lua_open_keyblock(lua_State *L);

/* The built objects under the boxes (raises when the box is finalized). */
anim_clip *anim_lua_checkclip(lua_State *L, int arg);
/* The blend space at arg (lua_blendspace.c). */
struct anim_space *anim_lua_checkspace(lua_State *L, int arg);
anim_rig *anim_lua_checkrig(lua_State *L, int arg);
anim_animator *anim_lua_checkanimator(lua_State *L, int arg);
/* The skinning targets (lua_skin.c), for anim.update's `skin` too: the
 * target at idx into o (1), or 0 for a Lua table; a layout or float
 * offset at idx (nil: the default); the "too small" error for n numbers
 * (bytes: o is an object with getPointer, its size in bytes).  arg: the
 * argument their messages name. */
struct anim_skin_out;
int anim_lua_skin_target(lua_State *L, int idx, int arg, struct anim_skin_out *o);
int anim_lua_skin_layout(lua_State *L, int idx, int arg, int dflt);
size_t anim_lua_skin_offset(lua_State *L, int idx, int arg);
int anim_lua_skin_room(lua_State *L, int arg, const struct anim_skin_out *o, size_t n, int bytes);
/* anim_lua_reader_box(L)->a */
anim_animator *anim_lua_upanimator(lua_State *L);
anim_track *anim_lua_checktrack(lua_State *L, int arg);

/* Each adds its functions (and metatables) to the module table on the top
 * of the stack. */
void anim_lua_open_codes(lua_State *L);
void anim_lua_open_clip(lua_State *L);
void anim_lua_open_clip_read(lua_State *L);
void anim_lua_open_rig(lua_State *L);
void anim_lua_open_animator(lua_State *L);
void anim_lua_open_track(lua_State *L);
void anim_lua_open_update(lua_State *L);
void anim_lua_open_pose(lua_State *L);
void anim_lua_open_skin(lua_State *L);
void anim_lua_open_reload(lua_State *L);
void anim_lua_open_property(lua_State *L);
void anim_lua_open_override(lua_State *L);
void anim_lua_open_blendspace(lua_State *L);
void anim_lua_open_graph(lua_State *L);
void anim_lua_open_gameplay(lua_State *L);
void anim_lua_open_state(lua_State *L);
void anim_lua_open_suggest(lua_State *L);
void anim_lua_open_restore(lua_State *L);
void anim_lua_open_shown(lua_State *L);
void anim_lua_open_numtext(lua_State *L);
void anim_lua_open_order(lua_State *L);
void anim_lua_open_buffer(lua_State *L);
void anim_lua_open_skinverts(lua_State *L);
void anim_lua_open_draw2d(lua_State *L);
void anim_lua_open_draw2d_slots(lua_State *L);
void anim_lua_open_draw2d_run(lua_State *L);
void anim_lua_open_world2d(lua_State *L);
void anim_lua_open_animc(lua_State *L);
void anim_lua_open_skeleton(lua_State *L);
void anim_lua_open_animc_plain(lua_State *L);

/* The value encoding's tags (lua_animc.c, docs/formats.md). */
enum { ANIM_VE_NULL, ANIM_VE_FALSE, ANIM_VE_TRUE, ANIM_VE_F64, ANIM_VE_I64, ANIM_VE_STR, ANIM_VE_ARR, ANIM_VE_OBJ };

/* Lua's string order in the C locale (memcmp, then the shorter first): the
 * order table.sort gives the names in read.lua (lua_skeleton.c). */
static inline int anim_lua_bytes_cmp(const char *a, size_t alen, const char *b, size_t blen) {
  int c = memcmp(a, b, alen < blen ? alen : blen);
  if (c) return c;
  return alen < blen ? -1 : alen > blen;
}

/* The value encoding's i64 at p (8 bytes, little-endian). */
static inline int64_t anim_lua_i64_at(const unsigned char *p) {
  uint64_t u = 0;
  int64_t v;
  int b;
  for (b = 0; b < 8; b++) u |= (uint64_t)p[b] << (8 * b);
  memcpy(&v, &u, 8);
  return v;
}

/* That i64 pushed: an integer on 5.3+, a number before (lua_animc.c,
 * lua_skeleton.c, lua_animc_plain.c). */
static inline void anim_lua_push_i64(lua_State *L, const unsigned char *p) {
  int64_t v = anim_lua_i64_at(p);
#if LUA_VERSION_NUM >= 503
  lua_pushinteger(L, (lua_Integer)v);
#else
  lua_pushnumber(L, (lua_Number)v);
#endif
}

/* lua_clip.c: a clip of n joints named names[] and no keys, with the
 * length, loop, euler and absolute of fields (the rest the defaults),
 * pushed with the table at info as its Lua side (core.clip_info); raises
 * when out of memory. */
typedef struct { const char *s; size_t len; } anim_lua_name;
anim_clip *anim_lua_clip_named(lua_State *L, const anim_lua_name *names, int n, const anim_clip *fields, int info);

/* lua_animc.c: the table of a .animc's parts checked as the decoder
 * checks it, nothing made: 1 with its longest string or key and its
 * nesting (the top table 1), 0 when the decoder would refuse it. */
struct anim_animc_parts;
int anim_lua_animc_scan(const struct anim_animc_parts *parts, size_t *longest, int *deepest);

/* lua_skeleton.c: the skeleton read.lua reads from the value encoding's
 * bytes p[0 .. len) of a skeleton the decoder made into the table at sk
 * (its vectors are shared) or checked (sk 0: its vectors made from the
 * bytes), pushed; 0 (nothing pushed) when it is not plain or has more
 * than max joints. */
int anim_lua_skeleton_bytes(lua_State *L, const unsigned char *p, size_t len, int sk, lua_Integer max);

/* lua_measure.c, for itself and lua_keyreduce.c: t[k] of the table at
 * idx, a number (what names it in the message); a node index (1-based)
 * at t[k], as a 0-based int below n; a number pushed, an exact 0 or -1
 * as an integer (the Lua's literals). */
double anim_lua_number_at(lua_State *L, int idx, lua_Integer k, const char *what);
int anim_lua_node_at(lua_State *L, int idx, lua_Integer k, int n, const char *what);
void anim_lua_push_exact(lua_State *L, double v);
void anim_lua_open_measure(lua_State *L);
/* lua_keyreduce.c: the keys (core.keys_pack's userdata) at idx into ch;
 * 0 when it holds none. */
struct anim_keychan;
int anim_lua_to_keys(lua_State *L, int idx, struct anim_keychan *ch);
void anim_lua_open_keyreduce(lua_State *L);

#endif
