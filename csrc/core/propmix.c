/* propmix.c - an animator's property channels: the names its tracks
 * animate, what each track holds for them, and their blend after the pose
 * (see propmix.h; the clip's side is property.c). */
#include "propmix.h"

#include <string.h>

#include "amath.h"

#include "animator_impl.h"
#include "state.h"

/* A name some track of the animator has animated: its value after the
 * last update and the sums of its blend.  Slots are never removed (a
 * name no track has any more is unknown again: users is 0); one whose
 * users are all gone may change its number of components. */
typedef struct pslot {
  char *name;
  size_t len;
  int arity, vcap;        /* components, and room in v */
  int users;              /* installed track blocks that animate it (and a hold: below) */
  int held;               /* a restore holds it known until the next update (state.h) */
  int valid;              /* the last update gave it a value */
  int discrete;           /* installed blocks whose property of this name is discrete */
  double best;            /* a discrete slot's largest share in this blend (-1: none yet) */
  long long best_id;      /* the id of the track that has it */
  long long stamp;        /* the level whose take it holds */
  double W, budget, T, take;
  double *v;              /* vcap */
} pslot;

typedef struct anim_pslots {
  int n, cap;
  pslot *slot;
  int *sorted;            /* cap: the slots' indices by name (length, then bytes): found in O(log n) */
  anim_track **order;     /* scratch: the tracks with properties, in blend order */
  int ocap;
  int held;               /* slots held by a restore */
  long long stamp;
} anim_pslots;

/* What a track holds: per property of its clip, its slot and where its
 * components' cursors and samples are, and its share in the last blend. */
struct anim_tprops {
  size_t size;
  int n;
  int *slot, *off;        /* n each */
  int *cursor;            /* the components of all the properties */
  double *sample;         /* likewise */
  double *a, *take;       /* n each: w / W of its level, and the level's take */
  unsigned char *disc;    /* n: whether each is discrete (kept: a reload may change the
                           * clip's properties before this block is detached) */
};

/* Names in the order of `sorted`: shorter first, then by their bytes. */
static int name_cmp(const pslot *s, const char *name, size_t len) {
  if (s->len != len) return s->len < len ? -1 : 1;
  return memcmp(s->name, name, len);
}

/* Where name is in ps->sorted, or (*at) where it would go; a binary
 * search: O(log n) comparisons, each of at most len bytes.  (A linear
 * search made a restore of 10,000 names of one long prefix take 13 s.) */
static int search(const anim_pslots *ps, const char *name, size_t len, int *at) {
  int lo = 0, hi = ps->n;
  while (lo < hi) {
    int mid = lo + (hi - lo) / 2, c = name_cmp(&ps->slot[ps->sorted[mid]], name, len);
    if (c == 0) { *at = mid; return ps->sorted[mid]; }
    if (c < 0) lo = mid + 1;
    else hi = mid;
  }
  *at = lo;
  return -1;
}

static int find_slot(const anim_pslots *ps, const char *name, size_t len) {
  int at;
  return ps ? search(ps, name, len, &at) : -1;
}

/* ---- reading ---------------------------------------------------------- */

int anim_animator_property(const anim_animator *a, const char *name, size_t len, const double **v) {
  int i = find_slot(a->pslots, name, len);
  const pslot *s;
  if (i < 0) return -1;
  s = &a->pslots->slot[i];
  if (s->users <= 0) return -1;
  if (!s->valid) return 0;
  *v = s->v;
  return s->arity;
}

const char *anim_animator_property_name(const anim_animator *a, int n, size_t *len) {
  int i;
  if (!a->pslots) return NULL;
  for (i = 0; i < a->pslots->n; i++) {
    const pslot *s = &a->pslots->slot[i];
    if (s->users > 0 && n-- == 0) { *len = s->len; return s->name; }
  }
  return NULL;
}

int anim_animator_property_slot(const anim_animator *a, int i, const char **name, size_t *len) {
  const pslot *s;
  if (!a->pslots || i < 0 || i >= a->pslots->n) return -1;
  s = &a->pslots->slot[i];
  if (s->users <= 0) return 0;
  *name = s->name;
  *len = s->len;
  return 1;
}

int anim_props_generation(const anim_animator *a) { return a->pslots ? a->pslots->n : 0; }

int anim_props_find(const anim_animator *a, const char *name, size_t len) { return find_slot(a->pslots, name, len); }

int anim_props_at(const anim_animator *a, int slot, const double **v) {
  const pslot *s;
  if (slot < 0 || !a->pslots || slot >= a->pslots->n) return 0;
  s = &a->pslots->slot[slot];
  if (s->users <= 0 || !s->valid) return 0;
  *v = s->v;
  return s->arity;
}

/* ---- tracks ----------------------------------------------------------- */

void anim_tprops_free(const anim_mem *m, anim_tprops *tp) {
  if (tp) anim_free(m, tp, tp->size);
}

/* Room for one more slot; 0 when out of memory. */
static int grow_slots(anim_animator *a) {
  anim_pslots *ps = a->pslots;
  int cap, *sorted;
  pslot *s;
  if (!ps) {
    ps = anim_calloc(&a->mem, 1, sizeof *ps);
    if (!ps) return 0;
    a->pslots = ps;
  }
  if (ps->n < ps->cap) return 1;
  cap = ps->cap ? ps->cap * 2 : 8;
  sorted = anim_malloc(&a->mem, sizeof(int) * (size_t)cap);
  if (!sorted) return 0;
  s = anim_realloc(&a->mem, ps->slot, sizeof(pslot) * (size_t)ps->cap, sizeof(pslot) * (size_t)cap);
  if (!s) { anim_free(&a->mem, sorted, sizeof(int) * (size_t)cap); return 0; }
  if (ps->n > 0) memcpy(sorted, ps->sorted, sizeof(int) * (size_t)ps->n);
  anim_free(&a->mem, ps->sorted, sizeof(int) * (size_t)ps->cap);
  ps->sorted = sorted;
  ps->slot = s;
  ps->cap = cap;
  return 1;
}

/* The slot of a name, made when new (users 0, `arity` components); -1
 * when out of memory. */
static int slot_for(anim_animator *a, const anim_prop *p) {
  int at, i = a->pslots ? search(a->pslots, p->name, p->len, &at) : -1;
  anim_pslots *ps;
  pslot *s;
  if (i >= 0) return i;
  if (!grow_slots(a)) return -1;
  ps = a->pslots;
  if (ps->n == 0) at = 0;
  s = &ps->slot[ps->n];
  memset(s, 0, sizeof *s);
  s->name = anim_malloc(&a->mem, p->len + 1);
  s->v = anim_malloc(&a->mem, sizeof(double) * (size_t)p->arity);
  if (!s->name || !s->v) {
    anim_free(&a->mem, s->name, p->len + 1);
    anim_free(&a->mem, s->v, sizeof(double) * (size_t)p->arity);
    return -1;
  }
  memcpy(s->name, p->name, p->len);
  s->name[p->len] = 0;
  s->len = p->len;
  s->arity = s->vcap = p->arity;
  memmove(ps->sorted + at + 1, ps->sorted + at, sizeof(int) * (size_t)(ps->n - at));
  ps->sorted[at] = ps->n;
  return ps->n++;
}

/* The number of components the tracks of a (but those whose block is
 * among the nex blocks like ex: the tracks of a clip being reloaded) give
 * the name of p, or 0 when none has it.  Read from the slot: its users
 * (the installed blocks that have the name, and a restore's hold) all
 * give it the slot's arity (anim_props_install), so one search per name,
 * not a scan of every track's names (quadratic in the names played). */
static int arity_in_use(const anim_animator *a, const anim_prop *p, const anim_tprops *ex, int nex) {
  int k = find_slot(a->pslots, p->name, p->len), users, q;
  if (k < 0) return 0;
  users = a->pslots->slot[k].users;
  if (ex)
    for (q = 0; q < ex->n; q++)
      if (ex->slot[q] == k) { users -= nex; break; }
  return users > 0 ? a->pslots->slot[k].arity : 0;
}

int anim_props_conflict(const anim_animator *a, const anim_clip *c, const anim_clip *except, int *which,
                        int *other) {
  const anim_tprops *ex = NULL;
  int i, p, nex = 0;
  if (except) {
    /* the tracks of `except` all hold the slots of its names (ex: one's) */
    for (i = 0; i < a->ntracks; i++)
      if (a->tracks[i]->clip == except && a->tracks[i]->props) { ex = a->tracks[i]->props; nex++; }
  }
  for (p = 0; p < c->nprops; p++) {
    int used = arity_in_use(a, &c->props[p], ex, nex);
    if (used && used != c->props[p].arity) {
      if (which) *which = p;
      if (other) *other = used;
      return ANIM_PROPS_CONFLICT;
    }
  }
  return ANIM_PROPS_OK;
}

int anim_props_prepare(anim_animator *a, const anim_clip *c, const anim_clip *except, anim_tprops **out,
                       int *which, int *other) {
  int p, ncomp = 0, k;
  size_t n, size, o_off, o_cur, o_sample, o_a, o_disc;
  anim_tprops *tp;
  char *mem;
  *out = NULL;
  if (c->nprops == 0) return ANIM_PROPS_OK;
  if (anim_props_conflict(a, c, except, which, other) != ANIM_PROPS_OK) return ANIM_PROPS_CONFLICT;
  for (p = 0; p < c->nprops; p++) ncomp += c->props[p].arity;
  /* the slots (and room for the arity that will be theirs), the order's
   * scratch, then the block: made before anything is changed */
  for (p = 0; p < c->nprops; p++) {
    int s = slot_for(a, &c->props[p]);
    pslot *sl;
    if (s < 0) return ANIM_PROPS_NOMEM;
    sl = &a->pslots->slot[s];
    if (sl->vcap < c->props[p].arity) {
      double *v = anim_realloc(&a->mem, sl->v, sizeof(double) * (size_t)sl->vcap,
                               sizeof(double) * (size_t)c->props[p].arity);
      if (!v) return ANIM_PROPS_NOMEM;
      sl->v = v;
      sl->vcap = c->props[p].arity;
    }
  }
  if (a->pslots->ocap < a->ntracks + 1) {
    int cap = a->ntracks + 1 > 2 * a->pslots->ocap ? a->ntracks + 1 : 2 * a->pslots->ocap;
    anim_track **od = anim_malloc(&a->mem, sizeof(anim_track *) * (size_t)cap);
    if (!od) return ANIM_PROPS_NOMEM;
    anim_free(&a->mem, a->pslots->order, sizeof(anim_track *) * (size_t)a->pslots->ocap);
    a->pslots->order = od;
    a->pslots->ocap = cap;
  }
  n = (size_t)c->nprops;
  o_a = (sizeof *tp + sizeof(double) - 1) / sizeof(double) * sizeof(double);
  o_sample = o_a + 2 * n * sizeof(double);
  o_off = o_sample + (size_t)ncomp * sizeof(double);
  o_cur = o_off + 2 * n * sizeof(int);
  o_disc = o_cur + (size_t)ncomp * sizeof(int);
  size = o_disc + n;
  mem = anim_calloc(&a->mem, 1, size);
  if (!mem) return ANIM_PROPS_NOMEM;
  tp = (anim_tprops *)(void *)mem;
  tp->size = size;
  tp->n = c->nprops;
  tp->a = (double *)(void *)(mem + o_a);
  tp->take = tp->a + n;
  tp->sample = (double *)(void *)(mem + o_sample);
  tp->slot = (int *)(void *)(mem + o_off);
  tp->off = tp->slot + n;
  tp->cursor = (int *)(void *)(mem + o_cur);
  tp->disc = (unsigned char *)(mem + o_disc);
  for (p = 0, k = 0; p < c->nprops; p++) {
    tp->slot[p] = find_slot(a->pslots, c->props[p].name, c->props[p].len);
    tp->disc[p] = c->props[p].discrete ? 1 : 0;
    tp->off[p] = k;
    k += c->props[p].arity;
  }
  for (k = 0; k < ncomp; k++) tp->cursor[k] = -1;
  *out = tp;
  return ANIM_PROPS_OK;
}

void anim_props_install(anim_animator *a, anim_track *t, anim_tprops *tp) {
  int p;
  t->props = tp;
  if (!tp) return;
  for (p = 0; p < tp->n; p++) {
    pslot *s = &a->pslots->slot[tp->slot[p]];
    if (s->users == 0) { s->arity = t->clip->props[p].arity; s->valid = 0; }
    s->users++;
    s->discrete += tp->disc[p];
  }
}

void anim_props_detach(anim_animator *a, anim_track *t) {
  anim_tprops *tp = t->props;
  int p;
  if (!tp) return;
  for (p = 0; p < tp->n; p++) {
    a->pslots->slot[tp->slot[p]].users--;
    a->pslots->slot[tp->slot[p]].discrete -= tp->disc[p];
  }
  t->props = NULL;
  anim_tprops_free(&t->mem, tp);
}

void anim_pslots_free(anim_animator *a) {
  anim_pslots *ps = a->pslots;
  int i;
  if (!ps) return;
  for (i = 0; i < ps->n; i++) {
    anim_free(&a->mem, ps->slot[i].name, ps->slot[i].len + 1);
    anim_free(&a->mem, ps->slot[i].v, sizeof(double) * (size_t)ps->slot[i].vcap);
  }
  anim_free(&a->mem, ps->slot, sizeof(pslot) * (size_t)ps->cap);
  anim_free(&a->mem, ps->sorted, sizeof(int) * (size_t)ps->cap);
  anim_free(&a->mem, ps->order, sizeof(anim_track *) * (size_t)ps->ocap);
  anim_free(&a->mem, ps, sizeof *ps);
  a->pslots = NULL;
}

/* ---- the blend -------------------------------------------------------- */

/* As the pose counts tracks (blend.c): those that played in this update,
 * or ended in it on the last frame of a `once` clip. */
static int contributes(const anim_track *t) { return t->state == TR_PLAYING || t->shows_last; }
static int additive(const anim_track *t) { return t->clip->blend == ANIM_BLEND_ADDITIVE; }

/* Normal tracks first, highest priority first; then additive ones, lowest
 * priority first; ties by start order (the pose's order, blend.c). */
static int before(const anim_track *x, const anim_track *y) {
  int ax = additive(x), ay = additive(y);
  if (ax != ay) return ax < ay;
  if (x->priority != y->priority) return ax ? x->priority < y->priority : x->priority > y->priority;
  return x->id < y->id;
}

static double track_weight(const anim_track *t) {
  double w = anim_ramp_value(&t->weight) * anim_ramp_value(&t->fade);
  return w > ANIM_WEIGHT_CAP ? ANIM_WEIGHT_CAP : w;
}

/* One priority level [from, to) of the order: each slot it animates takes
 * min(W, budget) of its budget (W: the level's weights on it), and each
 * track's property remembers its share of the level (w / W) and the
 * level's take, for the sums once every take is known. */
static void blend_level(anim_pslots *ps, int from, int to) {
  int i, p;
  long long stamp = ++ps->stamp;
  for (i = from; i < to; i++) {
    anim_tprops *tp = ps->order[i]->props;
    double w = track_weight(ps->order[i]);
    for (p = 0; p < tp->n; p++) ps->slot[tp->slot[p]].W += w;
  }
  for (i = from; i < to; i++) {
    anim_tprops *tp = ps->order[i]->props;
    double w = track_weight(ps->order[i]);
    for (p = 0; p < tp->n; p++) {
      pslot *s = &ps->slot[tp->slot[p]];
      if (s->stamp != stamp) {
        s->stamp = stamp;
        s->take = s->W <= s->budget ? s->W : s->budget;
        s->budget -= s->take;
        s->T += s->take;
      }
      tp->a[p] = s->W > 0 ? w / s->W : 0;
      tp->take[p] = s->take;
    }
  }
  for (i = from; i < to; i++) {
    anim_tprops *tp = ps->order[i]->props;
    for (p = 0; p < tp->n; p++) ps->slot[tp->slot[p]].W = 0;
  }
}

/* Track t's value v of share f for a discrete slot: kept when f is the
 * largest yet, a tie going to the track started later (a crossfade
 * switches at its middle, never to a value between). */
static void pick(pslot *s, const anim_track *t, double f, const double *v) {
  int c;
  if (f < s->best || (f == s->best && t->id < s->best_id)) return;
  s->best = f;
  s->best_id = t->id;
  for (c = 0; c < s->arity; c++) s->v[c] = v[c];
}

void anim_props_prefetch(const anim_animator *a, int stage) {
  const anim_pslots *ps = a->pslots;
  int i;
  if (!ps) return;
  if (stage == 0) {
    ANIM_PREFETCH_W(ps);
  } else if (stage == 1) {
    anim_prefetch_range(ps->slot, sizeof(pslot) * (size_t)ps->n);
    for (i = 0; i < a->ntracks; i++)
      if (a->tracks[i]->props) anim_prefetch_range(a->tracks[i]->props, a->tracks[i]->props->size);
  } else {
    for (i = 0; i < ps->n; i++) ANIM_PREFETCH_W(ps->slot[i].v);
  }
}

/* A property's value is sum_i f_i v_i over the normal tracks, f_i = (w_i /
 * W) (take / T): w / W of its level, the level's take, over T, the takes
 * of all levels (what a joint would leave to its rest is left out).  A
 * lone track has f = 1 exactly, whatever its weight: its value as it is.
 * Then each additive track adds w (v - v(0)).  A discrete name (a slot's
 * attachment, a draw order: some track's clip says so) takes instead the
 * value of the track of the largest f, additive tracks ignored. */
void anim_props_blend(anim_animator *a) {
  anim_pslots *ps = a->pslots;
  int i, j, k, m = 0, p, c;
  if (!ps) return;
  if (ps->held) anim_props_release(a);
  for (j = 0; j < ps->n; j++) {
    pslot *s = &ps->slot[j];
    s->valid = 0;
    s->W = s->T = 0;
    s->budget = 1;
    s->best = -1;
    s->best_id = -1;
    for (c = 0; c < s->arity; c++) s->v[c] = 0;
  }
  for (i = 0; i < a->ntracks; i++) {
    anim_track *t = a->tracks[i];
    if (!t->props || !contributes(t)) continue;
    for (k = m; k > 0 && before(t, ps->order[k - 1]); k--) ps->order[k] = ps->order[k - 1];
    ps->order[k] = t;
    m++;
  }
  for (i = 0; i < m; i++) {
    anim_track *t = ps->order[i];
    anim_tprops *tp = t->props;
    for (p = 0; p < tp->n; p++)
      anim_prop_sample(&t->clip->props[p], t->time, tp->cursor + tp->off[p], tp->sample + tp->off[p]);
  }
  for (i = 0; i < m && !additive(ps->order[i]); i = k) {
    for (k = i + 1; k < m && !additive(ps->order[k]) && ps->order[k]->priority == ps->order[i]->priority; k++) {}
    blend_level(ps, i, k);
  }
  for (j = 0; j < i; j++) {
    anim_tprops *tp = ps->order[j]->props;
    for (p = 0; p < tp->n; p++) {
      pslot *s = &ps->slot[tp->slot[p]];
      const double *v = tp->sample + tp->off[p];
      double f;
      if (!(s->T > 0) || !(tp->take[p] > 0)) continue;
      f = tp->a[p] * (tp->take[p] / s->T);
      if (s->discrete) pick(s, ps->order[j], f, v);
      else for (c = 0; c < s->arity; c++) s->v[c] += f * v[c];
      s->valid = 1;
    }
  }
  for (; i < m; i++) {
    anim_track *t = ps->order[i];
    anim_tprops *tp = t->props;
    double w = track_weight(t);
    for (p = 0; p < tp->n; p++) {
      pslot *s = &ps->slot[tp->slot[p]];
      const double *v = tp->sample + tp->off[p], *b = t->clip->props[p].base;
      if (s->discrete) continue;
      for (c = 0; c < s->arity; c++) s->v[c] += w * (v[c] - b[c]);
      s->valid = 1;
    }
  }
  for (j = 0; j < ps->n; j++) {
    pslot *s = &ps->slot[j];
    if (s->valid)
      for (c = 0; c < s->arity; c++) s->v[c] = anim_finite(s->v[c]);
  }
}

/* ---- the saveable state (state.h) ----------------------------------------- */

/* A name only tracks that ended in the last update animated (they are not
 * saved) is held known, with its value (arity 0: known, no value), until
 * the next update lets go of it where the saved animator lets go of those
 * tracks. */
int anim_props_put(anim_animator *a, const anim_state_prop *p) {
  int i = find_slot(a->pslots, p->name, p->len), c, arity = p->arity > 0 ? p->arity : 1;
  pslot *s;
  if (i < 0 || a->pslots->slot[i].users <= 0) {
    anim_prop q;
    memset(&q, 0, sizeof q);
    q.name = p->name;
    q.len = p->len;
    q.arity = arity;
    if (i < 0 && (i = slot_for(a, &q)) < 0) return -3;
    s = &a->pslots->slot[i];
    if (s->vcap < arity) return -2;  /* (a slot once of fewer components: not worth a block of its own) */
    s->arity = arity;
    s->users = 1;
    s->held = 1;
    s->valid = 0;
    a->pslots->held++;
  }
  s = &a->pslots->slot[i];
  if (p->arity == 0) return 0;
  if (s->arity != p->arity) return -2;
  for (c = 0; c < s->arity; c++) s->v[c] = p->v[c];
  s->valid = 1;
  return 0;
}

void anim_props_release(anim_animator *a) {
  anim_pslots *ps = a->pslots;
  int i;
  for (i = 0; i < ps->n; i++)
    if (ps->slot[i].held) { ps->slot[i].held = 0; ps->slot[i].users--; }
  ps->held = 0;
}
