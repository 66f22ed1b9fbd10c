/* propmix.h - the property channels of an animator: the names its tracks'
 * clips animate (slots), what each track holds for them, and their blend
 * (priorities, weights and fades as for joints, normalised over the tracks
 * that animate a property; additive tracks add their value minus their
 * clip's value at time 0; masks do not apply).  Plain C, no Lua. */
#ifndef ANIM_PROPMIX_H
#define ANIM_PROPMIX_H

#include <stddef.h>

#include "animator.h"

/* ---- reading (the binding) ----------------------------------------------- */

/* The blended value of the property named name[0..len) after the last
 * update: its number of components, with *v pointing at them (valid
 * until the next update or play); 0 when the name is known (a track on
 * the animator, playing or fading, has it) but no track gives it a value
 * with a weight above 0; -1 when it is not known. */
int anim_animator_property(const anim_animator *a, const char *name, size_t len, const double **v);
/* The names known now, for messages: the n-th (0-based), or NULL past the
 * last; *len gets its length. */
const char *anim_animator_property_name(const anim_animator *a, int n, size_t *len);
/* The names known, slot by slot (in the order they were first played), for
 * a walk over all of them in linear time: 1 with *name and *len set when
 * slot i is known now, 0 when it is not, -1 past the last slot. */
int anim_animator_property_slot(const anim_animator *a, int i, const char **name, size_t *len);

/* For the stages after the blend that read properties every update
 * (world2d.c): a name's slot found once (-1: not known yet), its value
 * read by the slot in O(1).  The slots of an animator only grow: a stage
 * looks again for the names it lacks when anim_props_generation changes.
 * anim_props_at: the components with *v pointing at them when a track
 * gave the slot a value in the last update (or a restore), else 0. */
int anim_props_generation(const anim_animator *a);
int anim_props_find(const anim_animator *a, const char *name, size_t len);
int anim_props_at(const anim_animator *a, int slot, const double **v);

/* ---- tracks (the animator's files and reload.c) --------------------------- */

/* What a track holds for its clip's properties (NULL for a clip without). */
typedef struct anim_tprops anim_tprops;

/* The status of anim_props_prepare. */
enum { ANIM_PROPS_OK = 0, ANIM_PROPS_NOMEM = -1, ANIM_PROPS_CONFLICT = -2 };

/* anim_props_conflict: whether clip c may play on a (the check of
 * anim_props_prepare alone, allocating nothing).
 * anim_props_prepare: makes ready, for a track of animator a that is to play clip c, what it
 * holds for c's properties: the animator's slots for their names (made
 * here when new) and the track's block.  Fails, changing nothing a reader
 * sees, with ANIM_PROPS_CONFLICT when a property of c has another number
 * of components than a track on a gives that name (tracks of clip
 * `except` do not count: they are being changed to c), *which getting the
 * index of c's property and *other the other number; ANIM_PROPS_NOMEM
 * when out of memory.  On success *out is the block (NULL when c has no
 * properties), to install or free. */
int anim_props_conflict(const anim_animator *a, const anim_clip *c, const anim_clip *except, int *which,
                        int *other);
int anim_props_prepare(anim_animator *a, const anim_clip *c, const anim_clip *except, anim_tprops **out,
                       int *which, int *other);
/* Gives track t the block (replacing none: detach first) and counts its
 * names as known; never fails. */
void anim_props_install(anim_animator *a, anim_track *t, anim_tprops *tp);
/* Takes track t's block away (its names no longer counted) and frees it. */
void anim_props_detach(anim_animator *a, anim_track *t);
/* Frees a block (prepared and not installed, or a track's at its end). */
void anim_tprops_free(const anim_mem *m, anim_tprops *tp);

/* ---- the update and the animator's end ------------------------------------ */

/* The properties of this update, after the pose: allocates nothing. */
void anim_props_blend(anim_animator *a);
/* What anim_props_blend reads, prefetched (prefetch.h) animators ahead
 * of a batch update, in stages, each following the pointers the stage
 * before brought in: 0 the slots' header, 1 the slots and the tracks'
 * blocks, 2 the slots' values.  Nothing when a has no properties. */
void anim_props_prefetch(const anim_animator *a, int stage);
/* Frees the animator's slots (anim_animator_free). */
void anim_pslots_free(anim_animator *a);

#endif
