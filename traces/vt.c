/* vt.c - DARMA vt's "LB data" files (one a rank, data.<rank>.json, plain JSON or brotli) read
 * into a trace: the tasks become elements, the phases steps, each task's time its load, the
 * node it ran on its recorded owner, and the bytes two tasks exchanged in a phase the weight of
 * their arc at that step. Our own reader of vt's published schema (see lbs_traces.h).
 *
 * The files are read as a stream (yajl's callbacks, a chunk of lbs__vt_chunk bytes at a time,
 * decompressed chunk by chunk), never as a document: what a run of many phases holds is mostly
 * the same tasks again, so a task's static data (key, home, migratable, index) is kept once, in
 * a hash table that numbers the tasks as they are first seen, and each observation keeps only
 * what varies (24 bytes). At the end the tasks are renumbered in key order, as they always were,
 * and the dense per-step arrays the trace writer takes are filled. */
#include <brotli/decode.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yajl/yajl_parse.h>

#include "traces_int.h"

size_t lbs__vt_max_bytes = (size_t)1 << 32;
size_t lbs__vt_chunk = (size_t)1 << 16;

/* A task's identity: kind 0 is a bit-packed `id` (a = id), kind 1 a `seq_id` (a = its collection
 * or objgroup id, -1 for none; b = seq_id), kind 2 a node ({"type": "node"}: a = its rank, -1
 * when not given), the far end of a task's traffic with a rank; it sorts after every task. */
typedef struct {
  int kind;
  int64_t a, b;
} vt_key;

/* What a task keeps once: from its first observation, and where its pinning first differs. */
typedef struct {
  vt_key k;
  int64_t home;           /* its home rank, -1 when not given */
  int64_t idx[3];         /* its index, idx[0 .. nidx) */
  int64_t nobs;           /* its observations; 0: only named by communications (or a node) */
  int64_t phase0, phasex; /* the phase of its first observation; of the first pinned otherwise */
  int file0, filex;       /* their files; filex -1 while its pinning never differed */
  int migratable, nidx;   /* from its first observation */
} vt_task;

/* One task in one phase of one file: what varies (24 bytes). */
typedef struct {
  double time;   /* seconds */
  int64_t phase; /* the phase id */
  uint32_t task; /* its provisional number: tasks[] */
  int32_t node;  /* the rank it ran on */
} vt_obs;
_Static_assert(sizeof(vt_obs) == 24, "an observation is what the import's memory is made of");

/* A subphase of an observation; subs[] is in observation order. */
typedef struct {
  int64_t obs, id; /* obs: its observation, obs[] */
  double time;     /* seconds */
} vt_sub;

/* One communication in one phase of one file: between two tasks, or a task and a node (an end
 * of kind 2, stored only with node elements; lbs_vt_opts). */
typedef struct {
  int64_t phase;
  double bytes;      /* NaN: not a number >= 0, refused at its phase's end unless left out */
  uint32_t from, to; /* provisional numbers: tasks[] */
  int file;
  int copy; /* 1: an identical phase's copy of the phase before's (counted once, there) */
} vt_comm;

typedef struct {
  int64_t *v;
  int64_t n, cap;
} vt_ids;

struct lbs_vt {
  int nfiles;
  char **files;
  int64_t *rank;  /* each file's metadata rank, -1 when not given */
  int64_t *fobs;  /* each file's first observation: obs[fobs[f] .. fobs[f + 1]) are its own */
  vt_task *tasks; /* every key seen, in first-seen order (its provisional number) */
  int64_t ntasks, captasks;
  uint32_t *slots; /* the hash table over tasks[]: index + 1, 0 for an empty slot */
  int64_t nslots;
  vt_obs *obs;
  int64_t nobs, capobs;
  vt_sub *subs;
  int64_t nsubs, capsubs;
  vt_comm *comm;
  int64_t ncomm, capcomm, node_comms; /* node_comms: left out (node to node, or all with a node) */
  int64_t node_traffic;               /* task-to-node communications stored (kind-2 ends) */
  int node_elements;                  /* lbs_vt_opts.node_elements */
  vt_ids steps, skipped, subids;      /* phase ids with a step; skipped ones; subphase ids */
  /* dense, after finish: T tasks, S steps */
  int64_t T, S, pinned, npairs;
  int64_t ntask, nnodes; /* T = ntask + nnodes: the node elements come last, keys of kind 2 */
  int64_t *fin;          /* ntasks: a provisional number's element (0 .. T-1), -1 for none */
  vt_key *keys;          /* T, in order */
  int64_t *pin;          /* T: 1 for a task that is not migratable (an objgroup) */
  int64_t absent;        /* (task, step) pairs where the task is not in the phase */
  double *time_ns;       /* S x T */
  double *sub_ns;        /* nsub x S x T */
  int64_t *node;         /* S x T */
  int dim;
  double *coords;   /* T x dim */
  int64_t *pa, *pb; /* pairs a < b */
  double *pw;       /* S x npairs bytes */
};

/* ---------------------------------------------------------------- small helpers */

static lbs_err grow(void **p, int64_t *cap, int64_t need, size_t size) {
  if (need <= *cap) return LBS_OK;
  int64_t c = *cap ? *cap * 2 : 64;
  while (c < need) c *= 2;
  void *q = realloc(*p, (size_t)c * size);
  if (!q) return lbs_fail(LBS_NOMEM, "vt data: %lld entries", (long long)c);
  *p = q, *cap = c;
  return LBS_OK;
}

static lbs_err ids_add(vt_ids *s, int64_t v) {
  lbs_err e = grow((void **)&s->v, &s->cap, s->n + 1, sizeof *s->v);
  if (!e) s->v[s->n++] = v;
  return e;
}

static int cmp_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

static void ids_sort_unique(vt_ids *s) {
  if (!s->n) return;
  qsort(s->v, (size_t)s->n, sizeof *s->v, cmp_i64);
  int64_t m = 1;
  for (int64_t i = 1; i < s->n; i++)
    if (s->v[i] != s->v[m - 1]) s->v[m++] = s->v[i];
  s->n = m;
}

/* v in the sorted set s */
static int ids_has(const vt_ids *s, int64_t v) {
  return s->n && bsearch(&v, s->v, (size_t)s->n, sizeof v, cmp_i64);
}

/* v into the sorted set s, unless there (the subphase ids: a few, seen again and again) */
static lbs_err ids_insert(vt_ids *s, int64_t v) {
  int64_t lo = 0, hi = s->n;
  while (lo < hi) {
    int64_t mid = lo + (hi - lo) / 2;
    if (s->v[mid] == v) return LBS_OK;
    if (s->v[mid] < v)
      lo = mid + 1;
    else
      hi = mid;
  }
  lbs_err e = grow((void **)&s->v, &s->cap, s->n + 1, sizeof *s->v);
  if (e) return e;
  memmove(s->v + lo + 1, s->v + lo, (size_t)(s->n - lo) * sizeof *s->v);
  s->v[lo] = v, s->n++;
  return LBS_OK;
}

static int key_cmp(const vt_key *x, const vt_key *y) {
  if (x->kind != y->kind) return x->kind - y->kind;
  if (x->a != y->a) return (x->a > y->a) - (x->a < y->a);
  return (x->b > y->b) - (x->b < y->b);
}

/* The task's name in messages: "task 5", "task seq 3 (collection 7)", "node 2". */
static const char *key_text(const vt_key *k, char *buf, size_t n) {
  if (k->kind == 0)
    snprintf(buf, n, "task %lld", (long long)k->a);
  else if (k->kind == 2)
    snprintf(buf, n, "node %lld", (long long)k->a);
  else if (k->a >= 0)
    snprintf(buf, n, "task seq %lld (collection %lld)", (long long)k->b, (long long)k->a);
  else
    snprintf(buf, n, "task seq %lld", (long long)k->b);
  return buf;
}

static int64_t step_find(const lbs_vt *v, int64_t phase) {
  int64_t *p = bsearch(&phase, v->steps.v, (size_t)v->steps.n, sizeof phase, cmp_i64);
  return p ? p - v->steps.v : -1;
}

/* The file an observation came from. */
static int obs_file(const lbs_vt *v, int64_t i) {
  int f = 0;
  while (f + 1 < v->nfiles && v->fobs[f + 1] <= i) f++;
  return f;
}

/* ---------------------------------------------------------------- the tasks' hash table */

static uint64_t key_hash(const vt_key *k) {
  uint64_t h = (uint64_t)k->a * 0x9E3779B97F4A7C15u ^
               ((uint64_t)k->b + (uint64_t)k->kind * 0x632BE59BD9B4E019u) * 0xBF58476D1CE4E5B9u;
  h ^= h >> 31, h *= 0x94D049BB133111EBu, h ^= h >> 29;
  return h;
}

static void slot_put(lbs_vt *v, uint32_t t) {
  uint64_t m = (uint64_t)v->nslots - 1, i = key_hash(&v->tasks[t].k) & m;
  while (v->slots[i]) i = (i + 1) & m;
  v->slots[i] = t + 1;
}

/* The key's provisional number, the key added (first seen now) when new; -1 after an error. */
static int64_t task_of(lbs_vt *v, const vt_key *k) {
  if (2 * (v->ntasks + 1) > v->nslots) { /* at most half full */
    int64_t n = v->nslots ? 2 * v->nslots : 1024;
    uint32_t *s = calloc((size_t)n, sizeof *s);
    if (!s) return lbs_fail(LBS_NOMEM, "vt tasks: %lld slots", (long long)n), -1;
    free(v->slots), v->slots = s, v->nslots = n;
    for (int64_t t = 0; t < v->ntasks; t++) slot_put(v, (uint32_t)t);
  }
  uint64_t m = (uint64_t)v->nslots - 1, i = key_hash(k) & m;
  for (; v->slots[i]; i = (i + 1) & m)
    if (!key_cmp(&v->tasks[v->slots[i] - 1].k, k)) return v->slots[i] - 1;
  if (v->ntasks >= (int64_t)UINT32_MAX - 1)
    return lbs_fail(LBS_RANGE, "vt: more than %u tasks", UINT32_MAX - 2), -1;
  if (grow((void **)&v->tasks, &v->captasks, v->ntasks + 1, sizeof *v->tasks)) return -1;
  v->tasks[v->ntasks] = (vt_task){.k = *k, .home = -1, .filex = -1, .migratable = 1};
  v->slots[i] = (uint32_t)(v->ntasks + 1);
  return v->ntasks++;
}

/* ---------------------------------------------------------------- one file, as a stream */

/* Where the parser is in vt's schema: each open object or array the reader follows is a frame
 * of one of these; anything else (user_defined, attributes, lb_iterations, ...) is skipped by
 * counting its depth. */
enum {
  C_NONE, /* a scalar: nothing to open */
  C_ERR,  /* an error (its message set) */
  C_SKIP, /* a value nobody reads */
  C_TOP,
  C_MD,      /* metadata */
  C_MDPH,    /* metadata.phases */
  C_MDSET,   /* metadata.phases.skipped or .identical_to_previous */
  C_MDLIST,  /* its list */
  C_MDRANGE, /* its range */
  C_MDPAIR,  /* a [first, last] of the range */
  C_PHASES,
  C_PHASE,
  C_TASKS,
  C_TASK,
  C_ENT, /* an entity: a task's, or a communication's from or to */
  C_INDEX,
  C_SUBS,
  C_SUB,
  C_COMMS,
  C_COMM
};

/* The keys read (a key twice in one object is refused, as a document reader would): K_... and
 * key_names[] in the same order. */
enum {
  K_OTHER,
  K_METADATA,
  K_PHASES,
  K_RANK,
  K_SKIPPED,
  K_IDENTICAL,
  K_LIST,
  K_RANGE,
  K_ID,
  K_TASKS,
  K_COMMS,
  K_ENTITY,
  K_TIME,
  K_NODE,
  K_SUBPHASES,
  K_TYPE,
  K_SEQ_ID,
  K_COLLECTION_ID,
  K_OBJGROUP_ID,
  K_HOME,
  K_MIGRATABLE,
  K_INDEX,
  K_FROM,
  K_TO,
  K_BYTES,
  K_COUNT
};
static const char *const key_names[K_COUNT] = {"",
                                               "metadata",
                                               "phases",
                                               "rank",
                                               "skipped",
                                               "identical_to_previous",
                                               "list",
                                               "range",
                                               "id",
                                               "tasks",
                                               "communications",
                                               "entity",
                                               "time",
                                               "node",
                                               "subphases",
                                               "type",
                                               "seq_id",
                                               "collection_id",
                                               "objgroup_id",
                                               "home",
                                               "migratable",
                                               "index",
                                               "from",
                                               "to",
                                               "bytes"};

enum { T_NULL, T_BOOL, T_INT, T_DBL, T_STR, T_MAP, T_ARR };

typedef struct {
  int type; /* T_... */
  int64_t i;
  double d;
  const unsigned char *s;
  size_t len;
} vt_val;

typedef struct {
  int ctx;       /* C_... */
  int key;       /* a map's key whose value comes next, K_... */
  uint32_t seen; /* a map's keys so far (bit K_...) */
  int64_t n;     /* an array's elements so far */
} vt_frame;

/* An entity as read: resolved when its task or communication ends. */
typedef struct {
  int node, has_id, has_seq, has_cid, has_og, has_home, pinned, nidx, idx_ok;
  int64_t id, seq, cid, og, home, idx[3];
} vt_ent;

#define VT_DEPTH 8 /* the schema's deepest frame: top phases phase tasks task entity index */

typedef struct {
  lbs_vt *v;
  int file;
  const char *path;
  int64_t phase;             /* the phase being read, for messages */
  int64_t obs0, comm0, sub0; /* the file's own observations etc. start there */
  vt_ids listed, identical, skipped;
  /* the parse */
  lbs_err err;   /* a callback's error, its message set */
  int inflated;  /* the text is brotli's output (for messages) */
  int64_t lines; /* newlines in the text fed before the current chunk */
  vt_frame st[VT_DEPTH];
  int depth;
  int64_t skip;                               /* > 0: inside a skipped value, that deep */
  int md_seen, md_late, phases_kind, nphases; /* phases_kind: 1 an array, 2 something else */
  vt_ids *set;                                /* the metadata set being read */
  const char *set_name;
  int64_t pair[2];
  int pair_ok; /* bits: pair[0], pair[1] given as integers */
  /* the phase, task, subphase, communication being read */
  int ph_has_id, ph_tasks; /* ph_tasks: 1 an array, 2 something else */
  int64_t ph_obs0, ph_sub0, ph_comm0;
  vt_ent en, from, to, *ent;       /* ent: the entity being read */
  int en_kind, from_kind, to_kind; /* 1 an object, 2 something else */
  int time_kind, has_node, bad_sub, bytes_kind;
  double time, bytes;
  int64_t node;
  int sub_has_id, sub_time_kind;
  int64_t sub_id;
  double sub_time;
} vt_file;

static int key_id(const unsigned char *s, size_t len) {
  for (int k = 1; len && k < K_COUNT; k++) /* the first letter tells most apart */
    if (key_names[k][0] == s[0] && strlen(key_names[k]) == len && !memcmp(key_names[k], s, len))
      return k;
  return K_OTHER;
}

static lbs_err task_fail(vt_file *f, const vt_key *k, const char *what) {
  char t[96];
  return lbs_fail(LBS_PARSE, "%s: phase %lld: %s: %s", f->path, (long long)f->phase,
                  key_text(k, t, sizeof t), what);
}

/* An entity's key: 0 for a task, 1 for a node (kind 2), -1 after an error. */
static int ent_key(vt_file *f, const vt_ent *en, int kind, const char *role, vt_key *k) {
  if (kind == 1 && en->node) return *k = (vt_key){2, en->has_id ? en->id : -1, 0}, 1;
  if (kind != 1)
    return f->err = lbs_fail(LBS_PARSE, "%s: phase %lld: %s is not an entity object", f->path,
                             (long long)f->phase, role),
           -1;
  if (en->has_id)
    *k = (vt_key){0, en->id, 0};
  else if (en->has_seq)
    *k = (vt_key){1, en->has_cid ? en->cid : en->has_og ? en->og : -1, en->seq};
  else
    return f->err = lbs_fail(LBS_PARSE, "%s: phase %lld: %s has neither id nor seq_id", f->path,
                             (long long)f->phase, role),
           -1;
  return 0;
}

/* A task read whole: checked, and its observation added (its static data with its first). */
static lbs_err task_end(vt_file *f) {
  lbs_vt *v = f->v;
  vt_key k;
  int r = ent_key(f, &f->en, f->en_kind, "a task's entity", &k);
  if (r < 0) return f->err;
  if (r > 0)
    return lbs_fail(LBS_PARSE, "%s: phase %lld: a task whose entity is a node", f->path,
                    (long long)f->phase);
  if (!f->time_kind) return task_fail(f, &k, "no time");
  if (f->time_kind != 1) return task_fail(f, &k, "time is not a number");
  if (!isfinite(f->time) || f->time < 0) {
    char w[80];
    snprintf(w, sizeof w, "time %g is not a finite number >= 0", f->time);
    return task_fail(f, &k, w);
  }
  if (!f->has_node || f->node < 0 || f->node > INT32_MAX)
    return task_fail(f, &k, "no node (the rank it ran on) in 0..2^31-1");
  if (f->bad_sub) return task_fail(f, &k, "a subphase without an id or a time >= 0");
  int64_t t = task_of(v, &k);
  if (t < 0) return LBS_NOMEM;
  vt_task *x = &v->tasks[t];
  if (!x->nobs) {
    x->home = f->en.has_home ? f->en.home : -1;
    x->migratable = !f->en.pinned, x->nidx = f->en.nidx;
    memcpy(x->idx, f->en.idx, sizeof x->idx);
    x->file0 = f->file, x->phase0 = f->phase, x->filex = -1;
  } else if (x->migratable == f->en.pinned && x->filex < 0)
    x->filex = f->file, x->phasex = f->phase; /* refused at the end, as it always was */
  x->nobs++;
  lbs_err e = grow((void **)&v->obs, &v->capobs, v->nobs + 1, sizeof *v->obs);
  if (!e) v->obs[v->nobs++] = (vt_obs){f->time, f->phase, (uint32_t)t, (int32_t)f->node};
  return e;
}

static lbs_err comm_end(vt_file *f) {
  lbs_vt *v = f->v;
  vt_key a, b;
  int ra = ent_key(f, &f->from, f->from_kind, "a communication's from", &a);
  int rb = ra < 0 ? -1 : ent_key(f, &f->to, f->to_kind, "a communication's to", &b);
  if (ra < 0 || rb < 0) return f->err;
  int ok = f->bytes_kind == 1 && isfinite(f->bytes) && f->bytes >= 0;
  /* every communication kept as read, a node end as a key of kind 2 (a = its rank): vt writes a
   * phase's "communications" before its "id", so whether the phase is skipped, and which phase
   * an error names, is known only at its end (check_comms); what has a node end is settled once
   * every phase is known (settle_comms) */
  int64_t ta = task_of(v, &a), tb = task_of(v, &b);
  if (ta < 0 || tb < 0) return LBS_NOMEM;
  lbs_err e = grow((void **)&v->comm, &v->capcomm, v->ncomm + 1, sizeof *v->comm);
  if (!e)
    v->comm[v->ncomm++] =
        (vt_comm){f->phase, ok ? f->bytes : NAN, (uint32_t)ta, (uint32_t)tb, f->file, 0};
  return e;
}

/* Left out: a communication between two nodes, or with a node when there are no node elements
 * (lbs_vt_opts); counted (node_comms). */
static int comm_left_out(const lbs_vt *v, const vt_comm *c) {
  int na = v->tasks[c->from].k.kind == 2, nb = v->tasks[c->to].k.kind == 2;
  return (na && nb) || ((na || nb) && !v->node_elements);
}

/* A phase's communications from c0 on, checked at its end (its id known, a skipped one's
 * dropped): bytes a number >= 0, a node end's id a rank; what is left out is not checked. */
static lbs_err check_comms(vt_file *f, int64_t c0) {
  lbs_vt *v = f->v;
  for (int64_t i = c0; i < v->ncomm; i++) {
    const vt_comm *c = &v->comm[i];
    const vt_key *a = &v->tasks[c->from].k, *b = &v->tasks[c->to].k;
    if (comm_left_out(v, c)) continue;
    const vt_key *node = a->kind == 2 ? a : b->kind == 2 ? b : NULL;
    if (node && (node->a < 0 || node->a > INT32_MAX))
      return task_fail(f, node == a ? b : a,
                       "a communication with a node without an id in 0..2^31-1");
    if (isnan(c->bytes)) return task_fail(f, a, "a communication without bytes >= 0");
  }
  return LBS_OK;
}

/* Observations (with their subphases) and communications from o0, s0, c0 on whose phase is
 * skipped, taken out again: a phase whose id or whose file's metadata came after its tasks. */
static void drop_skipped(vt_file *f, int64_t o0, int64_t s0, int64_t c0) {
  lbs_vt *v = f->v;
  int64_t m = o0, ms = s0, j = s0;
  for (int64_t i = o0; i < v->nobs; i++) {
    int drop = ids_has(&f->skipped, v->obs[i].phase);
    vt_task *x = &v->tasks[v->obs[i].task];
    /* a task seen only in skipped phases so far: its next observation describes it afresh; one
     * whose first (pinning) came from a skipped phase: the first that differed, if kept, counts */
    if (drop && !--x->nobs) x->filex = -1;
    if (drop && x->nobs && x->phase0 == v->obs[i].phase && x->file0 == f->file && x->filex >= 0 &&
        !ids_has(&f->skipped, x->phasex))
      x->migratable = !x->migratable, x->file0 = x->filex, x->phase0 = x->phasex, x->filex = -1;
    for (; j < v->nsubs && v->subs[j].obs == i; j++)
      if (!drop) v->subs[ms] = v->subs[j], v->subs[ms++].obs = m;
    if (!drop) v->obs[m++] = v->obs[i];
  }
  v->nobs = m, v->nsubs = ms, m = c0;
  for (int64_t i = c0; i < v->ncomm; i++)
    if (!ids_has(&f->skipped, v->comm[i].phase)) v->comm[m++] = v->comm[i];
  v->ncomm = m;
}

static lbs_err phase_end(vt_file *f) {
  if (!f->ph_has_id) return lbs_fail(LBS_PARSE, "%s: a phase without an integer id", f->path);
  lbs_err e = ids_add(&f->listed, f->phase);
  lbs_vt *v = f->v; /* its tasks and communications read before its id: theirs now */
  for (int64_t i = f->ph_obs0; i < v->nobs && v->obs[i].phase != f->phase; i++)
    v->obs[i].phase = f->phase;
  for (int64_t i = f->ph_comm0; i < v->ncomm && v->comm[i].phase != f->phase; i++)
    v->comm[i].phase = f->phase;
  if (!e && f->ph_tasks != 1)
    return lbs_fail(LBS_PARSE, "%s: phase %lld: no tasks list", f->path, (long long)f->phase);
  /* skipped: no step, nothing of its own (read only when its id came after its tasks) */
  if (!e && ids_has(&f->skipped, f->phase)) drop_skipped(f, f->ph_obs0, f->ph_sub0, f->ph_comm0);
  return e ? e : check_comms(f, f->ph_comm0);
}

static lbs_err range_fail(vt_file *f) {
  return lbs_fail(LBS_PARSE, "%s: metadata phases %s: a range is not [first, last]", f->path,
                  f->set_name);
}

/* A frame closed: what it held checked and kept. */
static lbs_err frame_end(vt_file *f, const vt_frame *fr) {
  lbs_vt *v = f->v;
  switch (fr->ctx) {
  case C_MD:
    ids_sort_unique(&f->skipped);
    ids_sort_unique(&f->identical);
    f->md_seen = 1, f->md_late = f->nphases > 0;
    return LBS_OK;
  case C_MDPAIR: {
    lbs_err e = LBS_OK;
    if (f->pair_ok != 3 || f->pair[1] - f->pair[0] > 100000000) return range_fail(f);
    for (int64_t p = f->pair[0]; !e && p <= f->pair[1]; p++) e = ids_add(f->set, p);
    return e;
  }
  case C_PHASE: return phase_end(f);
  case C_TASK: return task_end(f);
  case C_INDEX:
    f->ent->nidx = fr->n >= 1 && fr->n <= 3 && f->ent->idx_ok ? (int)fr->n : 0;
    return LBS_OK;
  case C_SUB: {
    if (!f->sub_has_id || f->sub_time_kind != 1 || !(f->sub_time >= 0)) return f->bad_sub = 1, 0;
    lbs_err e = grow((void **)&v->subs, &v->capsubs, v->nsubs + 1, sizeof *v->subs);
    if (!e) e = ids_insert(&v->subids, f->sub_id);
    if (!e) v->subs[v->nsubs++] = (vt_sub){v->nobs, f->sub_id, f->sub_time};
    return e;
  }
  case C_COMM: return comm_end(f);
  default: return LBS_OK;
  }
}

/* value() in the top object and its metadata */
static int value_md(vt_file *f, const vt_frame *fr, const vt_val *x) {
  int k = fr->key, isint = x->type == T_INT, map = x->type == T_MAP, arr = x->type == T_ARR;
  switch (fr->ctx) {
  case C_TOP:
    if (k == K_METADATA && map) return C_MD;
    if (k == K_PHASES) {
      f->phases_kind = arr ? 1 : 2;
      if (arr) return C_PHASES;
    }
    break;
  case C_MD:
    if (k == K_RANK && isint) f->v->rank[f->file] = x->i;
    if (k == K_PHASES && map) return C_MDPH;
    break;
  case C_MDPH:
    if ((k == K_SKIPPED || k == K_IDENTICAL) && map) {
      f->set = k == K_SKIPPED ? &f->skipped : &f->identical, f->set_name = key_names[k];
      return C_MDSET;
    }
    break;
  case C_MDSET:
    if (k == K_LIST && arr) return C_MDLIST;
    if (k == K_RANGE && arr) return C_MDRANGE;
    break;
  case C_MDLIST:
    if (isint && (f->err = ids_add(f->set, x->i))) return C_ERR;
    break;
  case C_MDRANGE:
    if (!arr) return f->err = range_fail(f), C_ERR;
    f->pair_ok = 0;
    return C_MDPAIR;
  case C_MDPAIR:
    if (fr->n < 2 && isint) f->pair[fr->n] = x->i, f->pair_ok |= 1 << fr->n;
    break;
  default: break;
  }
  return map || arr ? C_SKIP : C_NONE;
}

/* value() in the phases: their tasks (entities, subphases) and communications */
static int value_ph(vt_file *f, const vt_frame *fr, const vt_val *x) {
  int k = fr->key, isint = x->type == T_INT, num = isint || x->type == T_DBL;
  int map = x->type == T_MAP, arr = x->type == T_ARR;
  double dv = isint ? (double)x->i : x->d;
  switch (fr->ctx) {
  case C_PHASES:
    if (!map)
      return f->err = lbs_fail(LBS_PARSE, "%s: a phase without an integer id", f->path), C_ERR;
    f->nphases++, f->phase = -1, f->ph_has_id = f->ph_tasks = 0;
    f->ph_obs0 = f->v->nobs, f->ph_sub0 = f->v->nsubs, f->ph_comm0 = f->v->ncomm;
    return C_PHASE;
  case C_PHASE: {
    int skipped = f->ph_has_id && ids_has(&f->skipped, f->phase); /* known skipped: not read */
    if (k == K_ID && isint) f->ph_has_id = 1, f->phase = x->i;
    if (k == K_TASKS) f->ph_tasks = arr ? 1 : 2;
    if (k == K_TASKS && arr) return skipped ? C_SKIP : C_TASKS;
    if (k == K_COMMS && arr) return skipped ? C_SKIP : C_COMMS;
    break;
  }
  case C_TASKS:
    if (map) {
      f->en = (vt_ent){0}, f->ent = &f->en;
      f->en_kind = f->time_kind = f->has_node = f->bad_sub = 0;
      return C_TASK;
    }
    return f->err = lbs_fail(LBS_PARSE, "%s: phase %lld: a task's entity is not an entity object",
                             f->path, (long long)f->phase),
           C_ERR;
  case C_TASK:
    if (k == K_ENTITY) f->en_kind = map ? 1 : 2;
    if (k == K_ENTITY && map) return f->ent = &f->en, C_ENT;
    if (k == K_TIME) f->time_kind = num ? 1 : 2, f->time = dv;
    if (k == K_NODE) f->has_node = isint, f->node = x->i;
    if (k == K_SUBPHASES && arr) return C_SUBS;
    break;
  case C_SUBS:
    if (map) return f->sub_has_id = f->sub_time_kind = 0, C_SUB;
    f->bad_sub = 1;
    break;
  case C_SUB:
    if (k == K_ID && isint) f->sub_has_id = 1, f->sub_id = x->i;
    if (k == K_TIME) f->sub_time_kind = num ? 1 : 2, f->sub_time = dv;
    break;
  case C_ENT: {
    vt_ent *en = f->ent;
    if (k == K_TYPE && x->type == T_STR) en->node = x->len == 4 && !memcmp(x->s, "node", 4);
    if (k == K_ID && isint) en->has_id = 1, en->id = x->i;
    if (k == K_SEQ_ID && isint) en->has_seq = 1, en->seq = x->i;
    if (k == K_COLLECTION_ID && isint) en->has_cid = 1, en->cid = x->i;
    if (k == K_OBJGROUP_ID && isint) en->has_og = 1, en->og = x->i;
    if (k == K_HOME && isint) en->has_home = 1, en->home = x->i;
    if (k == K_MIGRATABLE) en->pinned = x->type == T_BOOL && !x->i; /* only false pins */
    if (k == K_INDEX && arr) return en->idx_ok = 1, C_INDEX;
    break;
  }
  case C_INDEX:
    if (fr->n < 3 && isint)
      f->ent->idx[fr->n] = x->i;
    else
      f->ent->idx_ok = 0;
    break;
  case C_COMMS:
    if (map) {
      f->from = f->to = (vt_ent){0}, f->from_kind = f->to_kind = f->bytes_kind = 0;
      return C_COMM;
    }
    return f->err =
               lbs_fail(LBS_PARSE, "%s: phase %lld: a communication's from is not an entity object",
                        f->path, (long long)f->phase),
           C_ERR;
  case C_COMM:
    if (k == K_FROM || k == K_TO) {
      *(k == K_FROM ? &f->from_kind : &f->to_kind) = map ? 1 : 2;
      if (map) return f->ent = k == K_FROM ? &f->from : &f->to, *f->ent = (vt_ent){0}, C_ENT;
    }
    if (k == K_BYTES) f->bytes_kind = num ? 1 : 2, f->bytes = dv;
    break;
  default: break;
  }
  return map || arr ? C_SKIP : C_NONE;
}

/* A value in the frame on top: what it sets, and for an object or array the frame it opens. */
static int value(vt_file *f, const vt_val *x) {
  if (!f->depth) {
    if (x->type == T_MAP) return C_TOP;
    return f->err = lbs_fail(LBS_PARSE, "%s: not a JSON object", f->path), C_ERR;
  }
  const vt_frame *fr = &f->st[f->depth - 1];
  switch (fr->ctx) {
  case C_TOP:
  case C_MD:
  case C_MDPH:
  case C_MDSET:
  case C_MDLIST:
  case C_MDRANGE:
  case C_MDPAIR: return value_md(f, fr, x);
  default: return value_ph(f, fr, x);
  }
}

/* The frame on top has taken a value: the next element, or the next key. */
static void advance(vt_file *f) {
  if (!f->depth) return;
  vt_frame *fr = &f->st[f->depth - 1];
  fr->n++, fr->key = K_OTHER;
}

static int on_scalar(vt_file *f, vt_val x) {
  if (f->skip) return 1;
  if (value(f, &x) == C_ERR) return 0;
  advance(f);
  return 1;
}

static int on_open(vt_file *f, int type) {
  if (f->skip) return f->skip++, 1;
  vt_val x = {.type = type};
  int c = value(f, &x);
  if (c == C_ERR) return 0;
  advance(f);
  if (c == C_SKIP) return f->skip = 1, 1;
  if (f->depth == VT_DEPTH) /* cannot happen: the schema's frames are fewer */
    return f->err = lbs_fail(LBS_PARSE, "%s: nested too deep", f->path), 0;
  f->st[f->depth++] = (vt_frame){c, K_OTHER, 0, 0};
  return 1;
}

static int on_close(vt_file *f) {
  if (f->skip) return f->skip--, 1;
  vt_frame fr = f->st[--f->depth];
  return !(f->err = frame_end(f, &fr));
}

static int cb_null(void *c) { return on_scalar(c, (vt_val){.type = T_NULL}); }
static int cb_bool(void *c, int b) { return on_scalar(c, (vt_val){.type = T_BOOL, .i = b}); }
static int cb_int(void *c, long long i) { return on_scalar(c, (vt_val){.type = T_INT, .i = i}); }
static int cb_double(void *c, double d) { return on_scalar(c, (vt_val){.type = T_DBL, .d = d}); }
static int cb_string(void *c, const unsigned char *s, size_t len) {
  return on_scalar(c, (vt_val){.type = T_STR, .s = s, .len = len});
}
static int cb_start_map(void *c) { return on_open(c, T_MAP); }
static int cb_start_array(void *c) { return on_open(c, T_ARR); }
static int cb_end(void *c) { return on_close(c); }

static int cb_map_key(void *c, const unsigned char *s, size_t len) {
  vt_file *f = c;
  if (f->skip) return 1;
  vt_frame *fr = &f->st[f->depth - 1];
  fr->key = key_id(s, len);
  if (fr->key && fr->seen >> fr->key & 1) {
    if (f->nphases && f->phase >= 0)
      f->err = lbs_fail(LBS_PARSE, "%s: phase %lld: \"%s\" twice in one object", f->path,
                        (long long)f->phase, key_names[fr->key]);
    else
      f->err = lbs_fail(LBS_PARSE, "%s: \"%s\" twice in one object", f->path, key_names[fr->key]);
    return 0;
  }
  fr->seen |= 1u << fr->key;
  return 1;
}

static const yajl_callbacks vt_callbacks = {cb_null, cb_bool,        cb_int,       cb_double,
                                            NULL,    cb_string,      cb_start_map, cb_map_key,
                                            cb_end,  cb_start_array, cb_end};

/* ---------------------------------------------------------------- the bytes of a file */

static int64_t newlines(const uint8_t *b, size_t n) {
  int64_t k = 0;
  if (!n) return 0;
  for (const uint8_t *p = b, *end = b + n; (p = memchr(p, '\n', (size_t)(end - p))); p++) k++;
  return k;
}

/* yajl's refusal as a message naming the line (st: what yajl_parse or yajl_complete_parse
 * said; b, n: the chunk it was given). */
static lbs_err parse_fail(vt_file *f, yajl_handle h, yajl_status st, const uint8_t *b, size_t n) {
  if (st == yajl_status_client_canceled) return f->err ? f->err : LBS_PARSE;
  size_t at = yajl_get_bytes_consumed(h);
  unsigned char *msg = yajl_get_error(h, 0, NULL, 0);
  size_t len = msg ? strcspn((const char *)msg, "\n") : 0;
  lbs_err e =
      lbs_fail(LBS_PARSE, "%s: %sline %lld: %.*s", f->path, f->inflated ? "(decompressed) " : "",
               (long long)(f->lines + newlines(b, at < n ? at : n) + 1), (int)len,
               msg ? (const char *)msg : "malformed JSON");
  if (msg) yajl_free_error(h, msg);
  return e;
}

static lbs_err feed(vt_file *f, yajl_handle h, const uint8_t *b, size_t n) {
  yajl_status st = yajl_parse(h, b, n);
  if (st != yajl_status_ok) return parse_fail(f, h, st, b, n);
  f->lines += newlines(b, n);
  return LBS_OK;
}

/* Brotli-compressed JSON, decompressed a chunk at a time into yajl (at most lbs__vt_max_bytes
 * of it); in holds n bytes already read from fp (the file's first); in and out hold cap. */
static lbs_err unbrotli(vt_file *f, yajl_handle h, FILE *fp, uint8_t *in, size_t n, uint8_t *out,
                        size_t cap) {
  const char *path = f->path;
  size_t total = 0, avail_in = n;
  const uint8_t *next_in = in;
  int json = -1, eof = 0; /* json: what came out starts with '{' (the stream was brotli) */
  BrotliDecoderState *st = BrotliDecoderCreateInstance(NULL, NULL, NULL);
  if (!st) return lbs_fail(LBS_NOMEM, "%s: brotli decoder", path);
  lbs_err e = LBS_OK;
  BrotliDecoderResult r = BROTLI_DECODER_RESULT_NEEDS_MORE_INPUT;
  f->inflated = 1;
  for (;;) {
    if (!avail_in && r == BROTLI_DECODER_RESULT_NEEDS_MORE_INPUT) {
      if (eof || !(avail_in = fread(in, 1, cap, fp))) {
        if (ferror(fp)) e = lbs_fail(LBS_IO, "%s: read failed", path);
        break;
      }
      next_in = in;
    }
    size_t room = cap, lim = lbs__vt_max_bytes + 1 - total; /* one byte past the limit tells */
    room = room < lim ? room : lim;
    size_t before = room;
    uint8_t *next_out = out;
    r = BrotliDecoderDecompressStream(st, &avail_in, &next_in, &room, &next_out, NULL);
    size_t got = before - room, i = 0;
    total += got;
    if (json < 0) {
      while (i < got && strchr(" \t\r\n", out[i])) i++;
      f->lines += newlines(out, i);
      if (i < got) json = out[i] == '{';
    }
    if (total > lbs__vt_max_bytes) {
      e = lbs_fail(LBS_RANGE, "%s: decompresses to more than %zu bytes (lbsim's limit)", path,
                   lbs__vt_max_bytes);
      break;
    }
    if (json == 1 && got > i && (e = feed(f, h, out + i, got - i))) break;
    if (r == BROTLI_DECODER_RESULT_SUCCESS || r == BROTLI_DECODER_RESULT_ERROR) break;
  }
  size_t after = avail_in; /* what follows the end of the stream */
  if (!e && r == BROTLI_DECODER_RESULT_SUCCESS)
    for (size_t k; (k = fread(in, 1, cap, fp));) after += k;
  if (e)
    ;
  else if (r == BROTLI_DECODER_RESULT_NEEDS_MORE_INPUT && json == 1)
    e = lbs_fail(LBS_PARSE, "%s: the brotli stream is truncated (%zu bytes decompressed)", path,
                 total);
  else if (r == BROTLI_DECODER_RESULT_NEEDS_MORE_INPUT)
    e = lbs_fail(LBS_PARSE,
                 "%s: neither JSON nor brotli-compressed JSON (as brotli: it ends "
                 "early, truncated?)",
                 path);
  else if (r == BROTLI_DECODER_RESULT_ERROR)
    e = lbs_fail(LBS_PARSE, "%s: %s (brotli: %s)", path,
                 json == 1 ? "a damaged brotli stream" : "neither JSON nor brotli-compressed JSON",
                 BrotliDecoderErrorString(BrotliDecoderGetErrorCode(st)));
  else if (after)
    e = lbs_fail(LBS_PARSE, "%s: %zu bytes after the end of the brotli stream", path, after);
  else if (json != 1)
    e = lbs_fail(LBS_PARSE,
                 "%s: neither JSON nor brotli-compressed JSON (it decompresses to "
                 "something else)",
                 path);
  BrotliDecoderDestroyInstance(st);
  return e;
}

/* A regular file opened for reading (a device is not even opened: opening one can act). */
static lbs_err open_file(const char *path, FILE **fp) {
  struct stat sb;
  *fp = NULL;
  if (stat(path, &sb) == 0 && !S_ISREG(sb.st_mode))
    return lbs_fail(LBS_IO, "%s: not a regular file", path);
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return lbs_fail(LBS_IO, "%s: cannot open: %s", path, strerror(errno));
  if (fstat(fd, &sb) || !S_ISREG(sb.st_mode) || !(*fp = fdopen(fd, "rb"))) {
    close(fd);
    return lbs_fail(LBS_IO, "%s: not a regular file", path);
  }
  return LBS_OK;
}

/* The file's JSON, plain or brotli-compressed (it does not start with '{'), through the
 * callbacks a chunk at a time. */
static lbs_err parse_file(vt_file *f) {
  FILE *fp = NULL;
  size_t cap = lbs__vt_chunk ? lbs__vt_chunk : 1, n = 0, i = 0;
  uint8_t *in = malloc(cap), *out = malloc(cap);
  yajl_handle h = yajl_alloc(&vt_callbacks, NULL, f);
  lbs_err e = in && out && h ? open_file(f->path, &fp) : lbs_fail(LBS_NOMEM, "vt reader");
  for (int more = 1; !e && more && i == n;) { /* the first byte that is not white space */
    n = fread(in, 1, cap, fp), i = 0, more = n > 0;
    while (i < n && strchr(" \t\r\n", in[i])) i++;
    f->lines += newlines(in, i);
  }
  if (!e && ferror(fp)) e = lbs_fail(LBS_IO, "%s: read failed", f->path);
  if (!e && i < n && in[i] == '{') {
    for (e = feed(f, h, in + i, n - i); !e && (n = fread(in, 1, cap, fp));) e = feed(f, h, in, n);
    if (!e && ferror(fp)) e = lbs_fail(LBS_IO, "%s: read failed", f->path);
  } else if (!e) { /* not JSON: brotli, from the start */
    rewind(fp), f->lines = 0;
    e = unbrotli(f, h, fp, in, 0, out, cap);
  }
  yajl_status st = e ? yajl_status_ok : yajl_complete_parse(h);
  if (!e && st != yajl_status_ok) e = parse_fail(f, h, st, NULL, 0);
  if (fp) fclose(fp);
  if (h) yajl_free(h);
  free(in), free(out);
  return e;
}

/* Identical phases: the file's tasks (with their subphases) and communications of the phase
 * before, again. */
static lbs_err copy_identical(vt_file *f, int64_t p, int64_t prev) {
  lbs_vt *v = f->v;
  int64_t no = v->nobs, nc = v->ncomm, j = f->sub0;
  lbs_err e = LBS_OK;
  for (int64_t i = f->obs0; !e && i < no; i++) {
    if (v->obs[i].phase != prev) continue;
    if ((e = grow((void **)&v->obs, &v->capobs, v->nobs + 1, sizeof *v->obs))) break;
    v->obs[v->nobs] = v->obs[i], v->obs[v->nobs].phase = p;
    v->tasks[v->obs[i].task].nobs++;
    while (j < v->nsubs && v->subs[j].obs < i) j++;
    for (; !e && j < v->nsubs && v->subs[j].obs == i; j++)
      if (!(e = grow((void **)&v->subs, &v->capsubs, v->nsubs + 1, sizeof *v->subs)))
        v->subs[v->nsubs] = v->subs[j], v->subs[v->nsubs++].obs = v->nobs;
    v->nobs++;
  }
  for (int64_t i = f->comm0; !e && i < nc; i++)
    if (v->comm[i].phase == prev &&
        !(e = grow((void **)&v->comm, &v->capcomm, v->ncomm + 1, sizeof *v->comm)))
      v->comm[v->ncomm] = v->comm[i], v->comm[v->ncomm].copy = 1, v->comm[v->ncomm++].phase = p;
  return e;
}

/* The file's phases with a step (listed or identical, not skipped) into its listed set, the
 * identical ones filled from the phase before; the steps gathered. */
static lbs_err file_phases(vt_file *f) {
  lbs_err e = LBS_OK;
  qsort(f->listed.v, (size_t)f->listed.n, sizeof *f->listed.v, cmp_i64);
  for (int64_t i = 1; i < f->listed.n; i++)
    if (f->listed.v[i] == f->listed.v[i - 1])
      return lbs_fail(LBS_PARSE, "%s: phase %lld: listed twice", f->path,
                      (long long)f->listed.v[i]);
  for (int64_t i = 0; !e && i < f->identical.n; i++) e = ids_add(&f->listed, f->identical.v[i]);
  ids_sort_unique(&f->listed);
  int64_t m = 0;
  for (int64_t i = 0; i < f->listed.n; i++)
    if (!ids_has(&f->skipped, f->listed.v[i])) f->listed.v[m++] = f->listed.v[i];
  f->listed.n = m;
  for (int64_t i = 1; !e && i < m; i++) {
    int64_t p = f->listed.v[i];
    if (!ids_has(&f->identical, p)) continue;
    int has = 0; /* tasks of its own: those stand */
    for (int64_t k = f->obs0; k < f->v->nobs && !has; k++) has = f->v->obs[k].phase == p;
    if (!has) e = copy_identical(f, p, f->listed.v[i - 1]);
  }
  for (int64_t i = 0; !e && i < f->skipped.n; i++) e = ids_add(&f->v->skipped, f->skipped.v[i]);
  return e;
}

static lbs_err read_file(lbs_vt *v, int file, vt_ids *first) {
  vt_file f = {.v = v, .file = file, .path = v->files[file], .phase = -1};
  f.obs0 = v->fobs[file] = v->nobs, f.comm0 = v->ncomm, f.sub0 = v->nsubs;
  v->rank[file] = -1;
  lbs_err e = parse_file(&f);
  if (!e && f.phases_kind != 1) e = lbs_fail(LBS_PARSE, "%s: no phases list", f.path);
  if (!e && f.md_late) drop_skipped(&f, f.obs0, f.sub0, f.comm0); /* metadata after phases */
  if (!e) e = file_phases(&f);
  if (!e && file == 0) *first = f.listed, f.listed = (vt_ids){0};
  if (!e && file > 0 &&
      (f.listed.n != first->n || memcmp(f.listed.v, first->v, (size_t)f.listed.n * 8)))
    e = lbs_fail(
        LBS_PARSE, "%s: %lld phases (%lld..%lld), and %s has %lld: files from different runs?",
        f.path, (long long)f.listed.n, (long long)(f.listed.n ? f.listed.v[0] : 0),
        (long long)(f.listed.n ? f.listed.v[f.listed.n - 1] : 0), v->files[0], (long long)first->n);
  free(f.listed.v), free(f.identical.v), free(f.skipped.v);
  return e;
}

/* ---------------------------------------------------------------- the dense arrays */

typedef struct {
  int64_t a, b;
} vt_pair;

static int cmp_pair(const void *x, const void *y) {
  const vt_pair *p = x, *q = y;
  if (p->a != q->a) return (p->a > q->a) - (p->a < q->a);
  return (p->b > q->b) - (p->b < q->b);
}

/* No rank twice: (rank, file) pairs sorted, neighbours compared. */
static lbs_err check_ranks(lbs_vt *v) {
  vt_pair *r = malloc((size_t)v->nfiles * sizeof *r);
  if (!r) return lbs_fail(LBS_NOMEM, "vt ranks");
  for (int i = 0; i < v->nfiles; i++) r[i] = (vt_pair){v->rank[i], i};
  qsort(r, (size_t)v->nfiles, sizeof *r, cmp_pair);
  lbs_err e = LBS_OK;
  for (int i = 1; !e && i < v->nfiles; i++)
    if (r[i].a >= 0 && r[i].a == r[i - 1].a)
      e = lbs_fail(LBS_PARSE, "%s: rank %lld again (also %s): files from different runs?",
                   v->files[r[i].b], (long long)r[i].a, v->files[r[i - 1].b]);
  free(r);
  return e;
}

typedef struct {
  vt_key k;
  int64_t t; /* its provisional number */
} vt_order;

static int cmp_order(const void *x, const void *y) {
  return key_cmp(&((const vt_order *)x)->k, &((const vt_order *)y)->k);
}

/* The tasks: the keys seen in some phase, numbered in key order (as they always were); the
 * pinned ones counted, the coordinates where every task has an index. */
static lbs_err make_tasks(lbs_vt *v) {
  int64_t n = 0;
  vt_order *ord = malloc((size_t)(v->ntasks ? v->ntasks : 1) * sizeof *ord);
  v->fin = malloc((size_t)(v->ntasks ? v->ntasks : 1) * sizeof *v->fin);
  if (!ord || !v->fin) return free(ord), lbs_fail(LBS_NOMEM, "vt tasks");
  for (int64_t t = 0; t < v->ntasks; t++) {
    v->fin[t] = -1;
    if (v->tasks[t].nobs) ord[n++] = (vt_order){v->tasks[t].k, t};
  }
  qsort(ord, (size_t)n, sizeof *ord, cmp_order);
  v->keys = malloc((size_t)(n ? n : 1) * sizeof *v->keys);
  v->pin = calloc((size_t)(n ? n : 1), sizeof *v->pin);
  if (!v->keys || !v->pin) return free(ord), lbs_fail(LBS_NOMEM, "vt tasks");
  int all_idx = n > 0, dim = 0;
  for (int64_t r = 0; r < n; r++) {
    const vt_task *x = &v->tasks[ord[r].t];
    if (x->filex >= 0) {
      /* A task pinned in one phase and free in another has no one answer: pinning it throughout
       * would hide a migration vt made, freeing it would move an objgroup. */
      int pf = x->migratable ? x->filex : x->file0, ff = x->migratable ? x->file0 : x->filex;
      int64_t pp = x->migratable ? x->phasex : x->phase0,
              fp = x->migratable ? x->phase0 : x->phasex;
      char k[96];
      free(ord);
      return lbs_fail(LBS_PARSE,
                      "%s: phase %lld: %s is not migratable, but is in %s's phase %lld (a task is "
                      "pinned in every phase or in none)",
                      v->files[pf], (long long)pp, key_text(&x->k, k, sizeof k), v->files[ff],
                      (long long)fp);
    }
    v->fin[ord[r].t] = r;
    v->pin[r] = !x->migratable;
    v->keys[r] = x->k;
    v->pinned += !x->migratable;
    all_idx &= x->nidx > 0;
    dim = x->nidx > dim ? x->nidx : dim;
  }
  v->T = n;
  free(ord);
  if (!all_idx || !v->T) return LBS_OK;
  v->dim = dim;
  v->coords = calloc((size_t)(v->T * dim), sizeof *v->coords);
  if (!v->coords) return lbs_fail(LBS_NOMEM, "vt coordinates");
  for (int64_t t = 0; t < v->ntasks; t++)
    for (int d = 0; v->fin[t] >= 0 && d < v->tasks[t].nidx; d++)
      v->coords[v->fin[t] * dim + d] = (double)v->tasks[t].idx[d];
  return LBS_OK;
}

/* The communications with a node end, settled once every phase is known: those left out
 * (comm_left_out) dropped and counted in node_comms, a task's with a node counted in
 * node_traffic (an identical phase's copies not again); used[t]: the node keys kept. */
static lbs_err settle_comms(lbs_vt *v, unsigned char **used) {
  if (!(*used = calloc((size_t)v->ntasks + 1, 1))) return lbs_fail(LBS_NOMEM, "vt node elements");
  int64_t m = 0;
  for (int64_t i = 0; i < v->ncomm; i++) {
    const vt_comm *c = &v->comm[i];
    int na = v->tasks[c->from].k.kind == 2, nb = v->tasks[c->to].k.kind == 2;
    if (comm_left_out(v, c)) {
      v->node_comms += !c->copy;
      continue;
    }
    if (na || nb) v->node_traffic += !c->copy, (*used)[na ? c->from : c->to] = 1;
    v->comm[m++] = *c;
  }
  v->ncomm = m;
  return LBS_OK;
}

/* The node elements: one for each rank a task communicates with as a node (the keys of kind 2
 * that kept communications name), after the tasks, in rank order. Each is pinned, and has no work;
 * fill_loads gives it its rank as owner at every step. With coordinates, node r sits at
 * (-1 - r, 0, 0), outside the tasks' indices (pinned, it only needs a place). */
static lbs_err add_nodes(lbs_vt *v, const unsigned char *used) {
  vt_order *ord = malloc((size_t)(v->ntasks ? v->ntasks : 1) * sizeof *ord);
  int64_t n = 0;
  if (!ord) return lbs_fail(LBS_NOMEM, "vt node elements");
  v->ntask = v->T;
  for (int64_t t = 0; t < v->ntasks; t++)
    if (used[t]) ord[n++] = (vt_order){v->tasks[t].k, t};
  qsort(ord, (size_t)n, sizeof *ord, cmp_order);
  int64_t T = v->T + n;
  lbs_err e = LBS_OK;
  if (n) {
    vt_key *k = realloc(v->keys, (size_t)T * sizeof *k);
    if (k) v->keys = k;
    int64_t *p = realloc(v->pin, (size_t)T * sizeof *p);
    if (p) v->pin = p;
    double *xy = v->coords ? realloc(v->coords, (size_t)(T * v->dim) * sizeof *xy) : NULL;
    if (xy) v->coords = xy;
    if (!k || !p || (v->coords && !xy)) e = lbs_fail(LBS_NOMEM, "vt node elements");
  }
  for (int64_t j = 0; !e && j < n; j++) {
    int64_t t = v->T + j;
    v->fin[ord[j].t] = t;
    v->keys[t] = ord[j].k;
    v->pin[t] = 1;
    for (int d = 0; v->coords && d < v->dim; d++)
      v->coords[t * v->dim + d] = d ? 0 : (double)(-1 - ord[j].k.a);
  }
  if (!e) v->T = T, v->nnodes = n;
  free(ord);
  return e;
}

/* Loads, subphase loads and nodes per step; a task twice in a phase is an error. The
 * observations are not needed after, and go. */
static lbs_err fill_loads(lbs_vt *v) {
  int64_t ST = v->S * v->T, nsub = v->subids.n;
  v->time_ns = calloc((size_t)(ST ? ST : 1), sizeof *v->time_ns);
  v->sub_ns = calloc((size_t)(ST * nsub > 0 ? ST * nsub : 1), sizeof *v->sub_ns);
  v->node = malloc((size_t)(ST ? ST : 1) * sizeof *v->node);
  if (!v->time_ns || !v->sub_ns || !v->node) return lbs_fail(LBS_NOMEM, "vt loads");
  for (int64_t i = 0; i < ST; i++) v->node[i] = -1; /* -1: not seen yet */
  for (int64_t i = 0, j = 0; i < v->nobs; i++) {
    const vt_obs *o = &v->obs[i];
    int64_t t = v->fin[o->task], s = step_find(v, o->phase), at = s * v->T + t;
    if (s < 0) continue;
    if (v->node[at] >= 0) {
      char k[96];
      int64_t other = 0;
      while (other < i && (v->obs[other].phase != o->phase || v->obs[other].task != o->task))
        other++;
      return lbs_fail(LBS_PARSE, "%s: phase %lld: %s: also in %s's phase", v->files[obs_file(v, i)],
                      (long long)o->phase, key_text(&v->keys[t], k, sizeof k),
                      v->files[obs_file(v, other)]);
    }
    v->time_ns[at] = nearbyint(o->time * 1e9);
    v->node[at] = o->node;
    while (j < v->nsubs && v->subs[j].obs < i) j++;
    for (; j < v->nsubs && v->subs[j].obs == i; j++) {
      const vt_sub *u = &v->subs[j];
      int64_t *p = bsearch(&u->id, v->subids.v, (size_t)nsub, 8, cmp_i64);
      v->sub_ns[(p - v->subids.v) * ST + at] += nearbyint(u->time * 1e9);
    }
  }
  free(v->obs), free(v->subs), v->obs = NULL, v->subs = NULL, v->capobs = v->capsubs = 0;
  /* a node element is its rank, at every step; it has no work of its own */
  for (int64_t s = 0; s < v->S; s++)
    for (int64_t t = v->ntask; t < v->T; t++) v->node[s * v->T + t] = v->keys[t].a;
  return LBS_OK;
}

/* The owner of a task absent from a phase: its last one (before its first phase: its first). */
static void fill_owners(lbs_vt *v) {
  for (int64_t i = 0; i < v->S * v->T; i++) v->absent += v->node[i] < 0;
  for (int64_t t = 0; t < v->T; t++) {
    int64_t first = -1;
    for (int64_t s = 0; s < v->S && first < 0; s++) first = v->node[s * v->T + t];
    for (int64_t s = 0, last = first < 0 ? 0 : first; s < v->S; s++) {
      int64_t *n = &v->node[s * v->T + t];
      if (*n < 0)
        *n = last;
      else
        last = *n;
    }
  }
}

static int64_t pair_find(const lbs_vt *v, int64_t a, int64_t b) {
  int64_t lo = 0, hi = v->npairs;
  while (lo < hi) {
    int64_t mid = lo + (hi - lo) / 2;
    if (v->pa[mid] == a && v->pb[mid] == b) return mid;
    if (v->pa[mid] < a || (v->pa[mid] == a && v->pb[mid] < b))
      lo = mid + 1;
    else
      hi = mid;
  }
  return -1;
}

/* A communication's two elements (a task, or a node element for a node end); -1 for a task
 * that is in no phase. */
static void comm_ends(const lbs_vt *v, const vt_comm *c, int64_t *a, int64_t *b) {
  *a = v->fin[c->from], *b = v->fin[c->to];
}

/* The communicating pairs: each end a known task (else an error naming it), self messages
 * left out; pairs in (a, b) order, a < b. */
static lbs_err make_pairs(lbs_vt *v, vt_pair **out, int64_t *n) {
  vt_pair *p = malloc((size_t)(v->ncomm ? v->ncomm : 1) * sizeof *p);
  if (!p) return lbs_fail(LBS_NOMEM, "vt communications");
  int64_t m = 0, a, b;
  for (int64_t i = 0; i < v->ncomm; i++) {
    const vt_comm *c = &v->comm[i];
    comm_ends(v, c, &a, &b);
    if (a < 0 || b < 0) {
      char k[96];
      free(p);
      return lbs_fail(LBS_PARSE, "%s: phase %lld: %s: a communication names this unknown task",
                      v->files[c->file], (long long)c->phase,
                      key_text(&v->tasks[a < 0 ? c->from : c->to].k, k, sizeof k));
    }
    if (a != b) p[m++] = (vt_pair){a < b ? a : b, a < b ? b : a};
  }
  qsort(p, (size_t)m, sizeof *p, cmp_pair);
  *n = 0;
  for (int64_t i = 0; i < m; i++)
    if (!*n || cmp_pair(&p[i], &p[*n - 1])) p[(*n)++] = p[i];
  *out = p;
  return LBS_OK;
}

/* The pairs and their bytes per step (both directions summed). */
static lbs_err fill_edges(lbs_vt *v) {
  vt_pair *p = NULL;
  lbs_err e = make_pairs(v, &p, &v->npairs);
  if (e) return e;
  v->pa = malloc((size_t)(v->npairs + 1) * sizeof *v->pa);
  v->pb = malloc((size_t)(v->npairs + 1) * sizeof *v->pb);
  v->pw = calloc((size_t)(v->S * v->npairs + 1), sizeof *v->pw);
  if (!v->pa || !v->pb || !v->pw) return free(p), lbs_fail(LBS_NOMEM, "vt communications");
  for (int64_t i = 0; i < v->npairs; i++) v->pa[i] = p[i].a, v->pb[i] = p[i].b;
  free(p);
  for (int64_t i = 0, a, b; i < v->ncomm; i++) {
    const vt_comm *c = &v->comm[i];
    int64_t s = step_find(v, c->phase);
    comm_ends(v, c, &a, &b);
    if (a == b || s < 0) continue;
    v->pw[s * v->npairs + pair_find(v, a < b ? a : b, a < b ? b : a)] += c->bytes;
  }
  return LBS_OK;
}

static lbs_err finish(lbs_vt *v, vt_ids *first) {
  lbs_err e = check_ranks(v);
  if (e) return e;
  v->steps = *first, *first = (vt_ids){0};
  ids_sort_unique(&v->skipped);
  v->S = v->steps.n;
  if (v->subids.n > LBS_VT_MAX_SUBPHASES)
    return lbs_fail(LBS_RANGE, "%lld subphase ids (lbsim takes at most %d)", (long long)v->subids.n,
                    LBS_VT_MAX_SUBPHASES);
  unsigned char *used = NULL;
  e = settle_comms(v, &used);
  if (!e && !(e = make_tasks(v)) && !v->T) e = lbs_fail(LBS_PARSE, "%s: no tasks", v->files[0]);
  if (!e) e = add_nodes(v, used);
  free(used);
  if (!e) e = fill_loads(v);
  if (!e) fill_owners(v);
  if (!e) e = fill_edges(v);
  return e;
}

lbs_err lbs_vt_read(const char *const *paths, int n, lbs_vt **out) {
  return lbs_vt_read_opts(paths, n, NULL, out);
}

lbs_err lbs_vt_read_opts(const char *const *paths, int n, const lbs_vt_opts *o, lbs_vt **out) {
  *out = NULL;
  if (n < 1) return lbs_fail(LBS_INVAL, "no vt files");
  lbs_vt *v = calloc(1, sizeof *v);
  if (!v) return lbs_fail(LBS_NOMEM, "vt");
  v->node_elements = o && o->node_elements;
  v->files = calloc((size_t)n, sizeof *v->files);
  v->rank = calloc((size_t)n, sizeof *v->rank);
  v->fobs = calloc((size_t)n, sizeof *v->fobs);
  lbs_err e = v->files && v->rank && v->fobs ? LBS_OK : lbs_fail(LBS_NOMEM, "vt files");
  for (int i = 0; !e && i < n; i++, v->nfiles++)
    if (!(v->files[i] = strdup(paths[i]))) e = lbs_fail(LBS_NOMEM, "vt files");
  vt_ids first = {0};
  for (int i = 0; !e && i < n; i++) e = read_file(v, i, &first);
  if (!e) e = finish(v, &first);
  free(first.v);
  if (e) return lbs_vt_destroy(&v), e;
  *out = v;
  return LBS_OK;
}

void lbs_vt_destroy(lbs_vt **pv) {
  lbs_vt *v = pv ? *pv : NULL;
  if (!v) return;
  for (int i = 0; i < v->nfiles; i++) free(v->files[i]);
  free(v->files), free(v->rank), free(v->fobs), free(v->tasks), free(v->slots);
  free(v->obs), free(v->subs), free(v->comm);
  free(v->steps.v), free(v->skipped.v), free(v->subids.v);
  free(v->fin), free(v->keys), free(v->pin), free(v->time_ns), free(v->sub_ns), free(v->node);
  free(v->coords), free(v->pa), free(v->pb), free(v->pw);
  free(v);
  *pv = NULL;
}

void lbs_vt_summary_get(const lbs_vt *v, lbs_vt_summary *s) {
  *s = (lbs_vt_summary){v->nfiles,        v->ntask,  v->pinned,     v->S,      v->skipped.n,
                        (int)v->subids.n, v->npairs, v->node_comms, v->nnodes, v->node_traffic};
}

/* ---------------------------------------------------------------- the trace */

/* The metric names: time_ns, then time_ns.sID per subphase id. */
static void metric_names(const lbs_vt *v, char (*names)[32]) {
  snprintf(names[0], 32, "time_ns");
  for (int64_t j = 0; j < v->subids.n; j++)
    snprintf(names[j + 1], 32, "time_ns.s%lld", (long long)v->subids.v[j]);
}

static lbs_err vt_specs(const lbs_vt *v, const lbs_encoding *enc, lbs_metric_spec *ms,
                        char (*names)[32]) {
  lbs_bound dflt;
  lbs_bound_parse(LBS_BOUND_DEFAULT, &dflt);
  const char *np[LBS_VT_MAX_SUBPHASES + 1];
  int nm = 1 + (int)v->subids.n;
  metric_names(v, names);
  for (int k = 0; k < nm; k++) {
    np[k] = names[k];
    ms[k] = (lbs_metric_spec){names[k], "ns", LBS_CODEC_DEFAULT, dflt, {0, 0}};
    lbs_err e =
        lbs_encoding_resolve(enc, names[k], LBS_CODEC_DEFAULT, dflt, &ms[k].codec, &ms[k].bound);
    if (e) return e;
  }
  return lbs_encoding_check_names(enc, np, nm);
}

lbs_err lbs_vt_check_encoding(const lbs_vt *v, const lbs_encoding *enc) {
  lbs_metric_spec ms[LBS_VT_MAX_SUBPHASES + 1];
  char names[LBS_VT_MAX_SUBPHASES + 1][32];
  return vt_specs(v, enc, ms, names);
}

/* The mesh: the tasks' indices as coordinates (when every task has one) and the communicating
 * pairs as a symmetric graph weighing their mean bytes a step; arc[2p], arc[2p+1] are pair p's
 * two arcs (a -> b, b -> a) in the graph's arc order. */
static lbs_err make_mesh(const lbs_vt *v, lbs_mesh **mesh, int64_t *arc) {
  int64_t T = v->T, P = v->npairs;
  int64_t *xadj = calloc((size_t)T + 1, sizeof *xadj), *adj = malloc((size_t)(2 * P + 1) * 8);
  int64_t *fill = calloc((size_t)T + 1, sizeof *fill);
  double *w = malloc((size_t)(2 * P + 1) * sizeof *w);
  lbs_err e = xadj && adj && fill && w ? LBS_OK : lbs_fail(LBS_NOMEM, "vt graph");
  for (int64_t p = 0; !e && p < P; p++) xadj[v->pa[p] + 1]++, xadj[v->pb[p] + 1]++;
  for (int64_t t = 0; !e && t < T; t++) xadj[t + 1] += xadj[t];
  /* pairs in (a, b) order: each row gets its lower neighbours first, then its higher ones */
  for (int64_t p = 0; !e && p < P; p++) {
    int64_t a = v->pa[p], b = v->pb[p], ka = xadj[a] + fill[a]++, kb = xadj[b] + fill[b]++;
    double sum = 0;
    for (int64_t s = 0; s < v->S; s++) sum += v->pw[s * P + p];
    adj[ka] = b, adj[kb] = a, w[ka] = w[kb] = v->S ? sum / (double)v->S : 0;
    arc[2 * p] = ka, arc[2 * p + 1] = kb;
  }
  if (!e)
    e = lbs_mesh_create_unstructured(T, v->coords ? v->dim : 0, v->coords, xadj, adj, w, 0, mesh);
  /* an arc weighs the bytes vt counted, so a halo is its weight in bytes (not the mesh default
   * of 64 bytes per unit of weight); a grid's bytes_per_edge still overrides it */
  if (!e) lbs_mesh_set_bytes(*mesh, lbs_mesh_bytes_per_elem(*mesh), 1);
  free(xadj), free(adj), free(fill), free(w);
  return e;
}

/* The metadata: where it came from, and what it holds. */
static lbs_err vt_meta(const lbs_vt *v, char **files, char **ranks, char (*num)[32],
                       const char **meta, int *nmeta) {
  size_t len = 1;
  for (int i = 0; i < v->nfiles; i++) len += strlen(v->files[i]) + 1;
  if (!(*files = malloc(len))) return lbs_fail(LBS_NOMEM, "vt metadata");
  (*files)[0] = 0;
  for (int i = 0; i < v->nfiles; i++) {
    if (i) strcat(*files, " ");
    strcat(*files, v->files[i]);
  }
  snprintf(num[0], 32, "%d", v->nfiles);
  snprintf(num[1], 32, "%lld", (long long)v->pinned);
  snprintf(num[2], 32, "%lld", (long long)v->skipped.n);
  snprintf(num[3], 32, "%lld", (long long)v->node_comms);
  const char *kv[] = {"source",
                      "vt",
                      "vt.files",
                      *files,
                      "vt.ranks",
                      num[0],
                      "vt.pinned",
                      num[1],
                      "vt.skipped_phases",
                      num[2],
                      "vt.node_comms_left_out",
                      num[3]};
  int n = (int)(sizeof kv / sizeof *kv);
  memcpy(meta, kv, sizeof kv);
  if (v->nnodes) { /* which elements are nodes, and the ranks they stand for (export vt's too) */
    if (!(*ranks = malloc((size_t)v->nnodes * 12 + 1))) return lbs_fail(LBS_NOMEM, "vt metadata");
    size_t at = 0;
    for (int64_t j = 0; j < v->nnodes; j++)
      at +=
          (size_t)sprintf(*ranks + at, "%s%lld", j ? " " : "", (long long)v->keys[v->ntask + j].a);
    snprintf(num[4], 32, "%lld %lld", (long long)v->ntask, (long long)v->nnodes);
    snprintf(num[5], 32, "%lld", (long long)v->node_traffic);
    meta[n++] = LBS_VT_META_NODE_ELEMENTS, meta[n++] = num[4];
    meta[n++] = LBS_VT_META_NODE_RANKS, meta[n++] = *ranks;
    meta[n++] = "vt.node_traffic", meta[n++] = num[5];
  }
  if (v->npairs) meta[n++] = "edge_weight", meta[n++] = LBS_EDGE_STEPS;
  /* tasks created or destroyed: time 0 where absent, which the replay reads as absent */
  if (v->absent || v->nnodes) meta[n++] = LBS_META_ABSENT, meta[n++] = LBS_ABSENT_ZERO_WORK;
  *nmeta = n / 2;
  return LBS_OK;
}

/* Step s: the owners when they change, the arcs' bytes, the loads. */
static lbs_err write_step(const lbs_vt *v, lbs_trace_writer *w, int64_t s, const int64_t *arc,
                          double *cw) {
  int64_t T = v->T, P = v->npairs, ST = v->S * T;
  const int64_t *own = v->node + s * T;
  lbs_err e = LBS_OK;
  if (!s || memcmp(own, own - T, (size_t)T * sizeof *own))
    e = lbs_trace_write_owners(w, v->steps.v[s], own);
  for (int64_t p = 0; p < P; p++) cw[arc[2 * p]] = cw[arc[2 * p + 1]] = v->pw[s * P + p];
  if (!e && P) e = lbs_trace_step_edge_weights(w, cw);
  const double *cols[LBS_VT_MAX_SUBPHASES + 1];
  cols[0] = v->time_ns + s * T;
  for (int64_t j = 0; j < v->subids.n; j++) cols[j + 1] = v->sub_ns + j * ST + s * T;
  if (!e) e = lbs_trace_write_step(w, v->steps.v[s], cols);
  return e;
}

lbs_err lbs_vt_write_trace(const lbs_vt *v, const lbs_encoding *enc, int64_t chunk_elems,
                           const char *out_path) {
  lbs_metric_spec ms[LBS_VT_MAX_SUBPHASES + 1];
  char names[LBS_VT_MAX_SUBPHASES + 1][32], num[6][32], *files = NULL, *phases = NULL;
  char *ranks = NULL;
  const char *meta[32];
  int nmeta = 0, nm = 1 + (int)v->subids.n;
  lbs_mesh *mesh = NULL;
  lbs_trace_writer *w = NULL;
  int64_t *arc = malloc((size_t)(2 * v->npairs + 1) * sizeof *arc);
  double *cw = calloc((size_t)(2 * v->npairs + 1), sizeof *cw);
  lbs_err e = arc && cw ? vt_specs(v, enc, ms, names) : lbs_fail(LBS_NOMEM, "vt arcs");
  if (!e) e = make_mesh(v, &mesh, arc);
  if (!e) e = vt_meta(v, &files, &ranks, num, meta, &nmeta);
  if (!e && nm > 1) { /* the subphases as the profiler's phases of time_ns */
    if (!(phases = malloc((size_t)nm * 32))) e = lbs_fail(LBS_NOMEM, "vt metadata");
    for (int k = 1; !e && k < nm; k++) {
      if (k == 1) phases[0] = 0;
      strcat(strcat(phases, k > 1 ? "," : ""), names[k]);
    }
    meta[2 * nmeta] = LBS_PHASES_META_PREFIX "time_ns", meta[2 * nmeta + 1] = phases, nmeta++;
  }
  lbs_trace_spec spec = {v->T, chunk_elems, nm, ms, mesh, nmeta, meta};
  if (!e) e = lbs_trace_create(out_path, &spec, &w);
  /* objgroups and node elements stay where they are */
  if (!e && (v->pinned || v->nnodes)) e = lbs_trace_write_pinned(w, v->pin);
  for (int64_t s = 0; !e && s < v->S; s++) e = write_step(v, w, s, arc, cw);
  if (!e) e = lbs_trace_writer_close(&w);
  lbs_trace_writer_close(&w);
  lbs_mesh_destroy(&mesh);
  free(arc), free(cw), free(files), free(phases), free(ranks);
  return e;
}

/* ---------------------------------------------------------------- a directory */

typedef struct {
  int64_t rank;
  char *path;
} vt_entry;

static int cmp_entry(const void *x, const void *y) {
  const vt_entry *p = x, *q = y;
  return (p->rank > q->rank) - (p->rank < q->rank);
}

/* "data.<rank>.json": the rank, or -1 for another name. */
static int64_t data_rank(const char *name) {
  long long r;
  int end = 0;
  if (sscanf(name, "data.%lld.json%n", &r, &end) != 1 || name[end] || r < 0 ||
      strncmp(name, "data.", 5) || name[5] < '0' || name[5] > '9')
    return -1;
  return r;
}

lbs_err lbs_vt_dir_files(const char *dir, char ***paths, int *n) {
  *paths = NULL, *n = 0;
  DIR *d = opendir(dir);
  if (!d) return lbs_fail(LBS_IO, "%s: cannot open the directory", dir);
  vt_entry *ent = NULL;
  int64_t cap = 0, m = 0;
  lbs_err e = LBS_OK;
  for (struct dirent *de; !e && (de = readdir(d));) {
    int64_t r = data_rank(de->d_name);
    if (r < 0) continue;
    size_t len = strlen(dir) + strlen(de->d_name) + 2;
    if (!(e = grow((void **)&ent, &cap, m + 1, sizeof *ent)) && !(ent[m].path = malloc(len)))
      e = lbs_fail(LBS_NOMEM, "vt files");
    if (!e) snprintf(ent[m].path, len, "%s/%s", dir, de->d_name), ent[m++].rank = r;
  }
  closedir(d);
  if (!e && !m) e = lbs_fail(LBS_NOTFOUND, "%s: no data.<rank>.json files", dir);
  if (!e && m > LBS_VT_MAX_FILES)
    e = lbs_fail(LBS_RANGE, "%s: %lld files (at most %d)", dir, (long long)m, LBS_VT_MAX_FILES);
  if (!e && !(*paths = malloc((size_t)m * sizeof **paths))) e = lbs_fail(LBS_NOMEM, "vt files");
  if (!e) qsort(ent, (size_t)m, sizeof *ent, cmp_entry);
  for (int64_t i = 0; i < m; i++)
    if (e)
      free(ent[i].path);
    else
      (*paths)[i] = ent[i].path;
  if (!e) *n = (int)m;
  free(ent);
  return e;
}

void lbs_vt_files_free(char **paths, int n) {
  for (int i = 0; paths && i < n; i++) free(paths[i]);
  free(paths);
}
