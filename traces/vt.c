/* vt.c - DARMA vt's "LB data" files (one a rank, data.<rank>.json, plain JSON or brotli) read
 * into a trace: the tasks become elements, the phases steps, each task's time its load, the
 * node it ran on its recorded owner, and the bytes two tasks exchanged in a phase the weight of
 * their arc at that step. Our own reader of vt's published schema (see lbs_traces.h). */
#include <brotli/decode.h>
#include <dirent.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lbs_json.h"
#include "traces_int.h"

size_t lbs__vt_max_bytes = (size_t)1 << 32;

/* A task's identity: kind 0 is a bit-packed `id` (a = id), kind 1 a `seq_id` (a = its collection
 * or objgroup id, -1 for none; b = seq_id); kind 2 a node endpoint of a communication (a = its
 * rank, b = 0), which sorts after every task. */
typedef struct {
  int kind;
  int64_t a, b;
} vt_key;

/* One task in one phase of one file. */
typedef struct {
  vt_key k;
  int64_t phase, node, home;
  double time; /* seconds */
  int file, migratable, nidx;
  int64_t idx[3];
  int64_t sub0; /* its subphases: subs[sub0 .. sub0 + nsub) */
  int nsub;
} vt_obs;

typedef struct {
  int64_t id;
  double time;
} vt_sub;

/* One communication in one phase of one file: between two tasks, or a task and a node (kind 2). */
typedef struct {
  vt_key from, to;
  int64_t phase;
  double bytes;
  int file;
} vt_comm;

typedef struct {
  int64_t *v;
  int64_t n, cap;
} vt_ids;

struct lbs_vt {
  int nfiles;
  char **files;
  int64_t *rank; /* each file's metadata rank, -1 when not given */
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
  int64_t tasks, nnodes; /* T = tasks + nnodes: the node elements come last, keys of kind 2 */
  vt_key *keys;
  int64_t *pin;    /* T: 1 for a task that is not migratable (an objgroup) */
  int64_t absent;  /* (task, step) pairs where the task is not in the phase */
  double *time_ns; /* S x T */
  double *sub_ns;  /* nsub x S x T */
  int64_t *node;   /* S x T */
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

static int key_cmp(const vt_key *x, const vt_key *y) {
  if (x->kind != y->kind) return x->kind - y->kind;
  if (x->a != y->a) return (x->a > y->a) - (x->a < y->a);
  return (x->b > y->b) - (x->b < y->b);
}

static int cmp_key(const void *a, const void *b) { return key_cmp(a, b); }

/* The task's name in messages: "task 5", "task seq 3 (collection 7)". */
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

static int64_t key_find(const lbs_vt *v, const vt_key *k) {
  int64_t lo = 0, hi = v->T;
  while (lo < hi) {
    int64_t mid = lo + (hi - lo) / 2, c = key_cmp(&v->keys[mid], k);
    if (!c) return mid;
    if (c < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  return -1;
}

static int64_t step_find(const lbs_vt *v, int64_t phase) {
  int64_t *p = bsearch(&phase, v->steps.v, (size_t)v->steps.n, sizeof phase, cmp_i64);
  return p ? p - v->steps.v : -1;
}

/* ---------------------------------------------------------------- the bytes of a file */

/* Brotli-compressed data decoded into *out (a growing buffer, at most lbs__vt_max_bytes). */
static lbs_err unbrotli(const char *path, const uint8_t *in, size_t len, lbs_buf *out) {
  BrotliDecoderState *st = BrotliDecoderCreateInstance(NULL, NULL, NULL);
  if (!st) return lbs_fail(LBS_NOMEM, "%s: brotli decoder", path);
  lbs_err e = LBS_OK;
  size_t avail_in = len;
  const uint8_t *next_in = in;
  BrotliDecoderResult r = BROTLI_DECODER_RESULT_NEEDS_MORE_OUTPUT;
  while (!e && r == BROTLI_DECODER_RESULT_NEEDS_MORE_OUTPUT) {
    if (out->len > lbs__vt_max_bytes) break;
    if ((e = lbs_buf_reserve(out, out->len < 65536 ? 65536 : out->len))) break;
    size_t room = out->cap - out->len, cap = lbs__vt_max_bytes + 1 - out->len;
    room = room < cap ? room : cap; /* one byte past the limit tells it */
    size_t before = room;
    uint8_t *next_out = out->data + out->len;
    r = BrotliDecoderDecompressStream(st, &avail_in, &next_in, &room, &next_out, NULL);
    out->len += before - room;
  }
  if (!e && out->len > lbs__vt_max_bytes)
    e = lbs_fail(LBS_RANGE, "%s: decompresses to more than %zu bytes (lbsim's limit)", path,
                 lbs__vt_max_bytes);
  size_t i = 0; /* what came out looks like JSON: the stream was brotli */
  while (i < out->len && strchr(" \t\r\n", out->data[i])) i++;
  int json = i < out->len && out->data[i] == '{';
  if (!e && r == BROTLI_DECODER_RESULT_NEEDS_MORE_INPUT && json)
    e = lbs_fail(LBS_PARSE, "%s: the brotli stream is truncated (%zu bytes decompressed)", path,
                 out->len);
  else if (!e && r == BROTLI_DECODER_RESULT_NEEDS_MORE_INPUT)
    e = lbs_fail(LBS_PARSE,
                 "%s: neither JSON nor brotli-compressed JSON (as brotli: it ends "
                 "early, truncated?)",
                 path);
  else if (!e && r == BROTLI_DECODER_RESULT_ERROR)
    e = lbs_fail(LBS_PARSE, "%s: %s (brotli: %s)", path,
                 json ? "a damaged brotli stream" : "neither JSON nor brotli-compressed JSON",
                 BrotliDecoderErrorString(BrotliDecoderGetErrorCode(st)));
  else if (!e && avail_in)
    e = lbs_fail(LBS_PARSE, "%s: %zu bytes after the end of the brotli stream", path, avail_in);
  else if (!e && !json)
    e = lbs_fail(LBS_PARSE,
                 "%s: neither JSON nor brotli-compressed JSON (it decompresses to "
                 "something else)",
                 path);
  BrotliDecoderDestroyInstance(st);
  return e;
}

/* The file's JSON document: read, decompressed when it does not start with '{'. */
static lbs_err load_json(const char *path, json_t **doc) {
  char *text = NULL;
  size_t len = 0, i = 0;
  lbs_err e = lbs_read_file(path, &text, &len);
  if (e) return e;
  while (i < len && strchr(" \t\r\n", text[i])) i++;
  lbs_buf b = {0};
  const char *json = text;
  size_t jlen = len;
  if (i == len || text[i] != '{') {
    if ((e = unbrotli(path, (const uint8_t *)text, len, &b))) goto done;
    json = (const char *)b.data, jlen = b.len;
  }
  json_error_t je;
  *doc = json_loadb(json, jlen, JSON_REJECT_DUPLICATES, &je);
  if (!*doc)
    e = lbs_fail(LBS_PARSE, "%s: %sline %d: %s", path, json == text ? "" : "(decompressed) ",
                 je.line, je.text);
  else if (!json_is_object(*doc))
    e = lbs_fail(LBS_PARSE, "%s: not a JSON object", path), json_decref(*doc), *doc = NULL;
done:
  free(text);
  lbs_buf_free(&b);
  return e;
}

/* ---------------------------------------------------------------- one file */

typedef struct {
  lbs_vt *v;
  int file;
  const char *path;
  int64_t phase;       /* the phase being read, for messages */
  int64_t obs0, comm0; /* the file's own tasks and communications start there */
  vt_ids listed, identical, skipped;
} vt_file;

static int get_i64(json_t *o, const char *key, int64_t *out) {
  json_t *x = json_object_get(o, key);
  if (!json_is_integer(x)) return 0;
  *out = json_integer_value(x);
  return 1;
}

/* A {list, range} set of phase ids into s (range: [a, b] pairs, inclusive). */
static lbs_err phase_set(vt_file *f, json_t *o, const char *what, vt_ids *s) {
  if (!o) return LBS_OK;
  json_t *list = json_object_get(o, "list"), *range = json_object_get(o, "range"), *x;
  size_t i;
  lbs_err e = LBS_OK;
  json_array_foreach(list, i, x) if (!e && json_is_integer(x)) e =
      ids_add(s, json_integer_value(x));
  json_array_foreach(range, i, x) {
    json_t *a = json_array_get(x, 0), *b = json_array_get(x, 1);
    if (!json_is_integer(a) || !json_is_integer(b) ||
        json_integer_value(b) - json_integer_value(a) > 100000000)
      return lbs_fail(LBS_PARSE, "%s: metadata phases %s: a range is not [first, last]", f->path,
                      what);
    for (int64_t p = json_integer_value(a); !e && p <= json_integer_value(b); p++)
      e = ids_add(s, p);
  }
  return e;
}

static lbs_err read_metadata(vt_file *f, json_t *doc) {
  json_t *md = json_object_get(doc, "metadata"), *ph = json_object_get(md, "phases");
  lbs_err e;
  if (!get_i64(md, "rank", &f->v->rank[f->file])) f->v->rank[f->file] = -1;
  if ((e = phase_set(f, json_object_get(ph, "skipped"), "skipped", &f->skipped)) ||
      (e = phase_set(f, json_object_get(ph, "identical_to_previous"), "identical_to_previous",
                     &f->identical)))
    return e;
  ids_sort_unique(&f->skipped);
  ids_sort_unique(&f->identical);
  return LBS_OK;
}

/* An entity: its key, and for a task its home, migratable flag and index. 1 when it is a node
 * ({"type": "node"}), 0 for a task, -1 after an error. */
static int read_entity(vt_file *f, json_t *en, const char *role, vt_key *k, vt_obs *o) {
  json_t *type = json_object_get(en, "type");
  if (json_is_string(type) && !strcmp(json_string_value(type), "node")) return 1;
  int64_t id, cid = -1;
  if (!json_is_object(en))
    return lbs_fail(LBS_PARSE, "%s: phase %lld: %s is not an entity object", f->path,
                    (long long)f->phase, role),
           -1;
  if (get_i64(en, "id", &id))
    *k = (vt_key){0, id, 0};
  else if (get_i64(en, "seq_id", &id)) {
    if (!get_i64(en, "collection_id", &cid)) get_i64(en, "objgroup_id", &cid);
    *k = (vt_key){1, cid, id};
  } else
    return lbs_fail(LBS_PARSE, "%s: phase %lld: %s has neither id nor seq_id", f->path,
                    (long long)f->phase, role),
           -1;
  if (!o) return 0;
  json_t *mig = json_object_get(en, "migratable"), *idx = json_object_get(en, "index"), *x;
  o->migratable = !json_is_false(mig);
  if (!get_i64(en, "home", &o->home)) o->home = -1;
  o->nidx = json_is_array(idx) && json_array_size(idx) >= 1 && json_array_size(idx) <= 3
                ? (int)json_array_size(idx)
                : 0;
  for (int d = 0; d < o->nidx; d++) {
    x = json_array_get(idx, (size_t)d);
    if (!json_is_integer(x)) o->nidx = 0;
    o->idx[d] = json_is_integer(x) ? json_integer_value(x) : 0;
  }
  return 0;
}

static lbs_err task_fail(vt_file *f, const vt_key *k, const char *what) {
  char t[96];
  return lbs_fail(LBS_PARSE, "%s: phase %lld: %s: %s", f->path, (long long)f->phase,
                  key_text(k, t, sizeof t), what);
}

/* A task's subphases ({id, time} each) appended to subs. */
static lbs_err read_subphases(vt_file *f, json_t *list, vt_obs *o) {
  lbs_vt *v = f->v;
  json_t *x;
  size_t i;
  o->sub0 = v->nsubs, o->nsub = 0;
  json_array_foreach(list, i, x) {
    int64_t id;
    json_t *t = json_object_get(x, "time");
    if (!get_i64(x, "id", &id) || !json_is_number(t) || !(json_number_value(t) >= 0))
      return task_fail(f, &o->k, "a subphase without an id or a time >= 0");
    lbs_err e = grow((void **)&v->subs, &v->capsubs, v->nsubs + 1, sizeof *v->subs);
    if (!e) e = ids_add(&v->subids, id);
    if (e) return e;
    v->subs[v->nsubs++] = (vt_sub){id, json_number_value(t)};
    o->nsub++;
  }
  return LBS_OK;
}

static lbs_err read_task(vt_file *f, json_t *task) {
  vt_obs o = {.phase = f->phase, .file = f->file};
  int r = read_entity(f, json_object_get(task, "entity"), "a task's entity", &o.k, &o);
  if (r < 0) return LBS_PARSE;
  if (r > 0)
    return lbs_fail(LBS_PARSE, "%s: phase %lld: a task whose entity is a node", f->path,
                    (long long)f->phase);
  json_t *t = json_object_get(task, "time");
  if (!t) return task_fail(f, &o.k, "no time");
  if (!json_is_number(t)) return task_fail(f, &o.k, "time is not a number");
  o.time = json_number_value(t);
  if (!isfinite(o.time) || o.time < 0) {
    char w[80];
    snprintf(w, sizeof w, "time %g is not a finite number >= 0", o.time);
    return task_fail(f, &o.k, w);
  }
  if (!get_i64(task, "node", &o.node) || o.node < 0 || o.node > INT32_MAX)
    return task_fail(f, &o.k, "no node (the rank it ran on) in 0..2^31-1");
  lbs_err e = read_subphases(f, json_object_get(task, "subphases"), &o);
  if (!e) e = grow((void **)&f->v->obs, &f->v->capobs, f->v->nobs + 1, sizeof o);
  if (!e) f->v->obs[f->v->nobs++] = o;
  return e;
}

static lbs_err read_comm(vt_file *f, json_t *c) {
  vt_comm m = {.phase = f->phase, .file = f->file};
  int a = read_entity(f, json_object_get(c, "from"), "a communication's from", &m.from, NULL);
  int b =
      a < 0 ? -1 : read_entity(f, json_object_get(c, "to"), "a communication's to", &m.to, NULL);
  if (a < 0 || b < 0) return LBS_PARSE;
  if (a && b) return f->v->node_comms++, LBS_OK; /* node to node: no task's traffic, left out */
  if (a || b) { /* task to node: the node's end a key of kind 2 (a = its rank) */
    int64_t r;
    if (!get_i64(json_object_get(c, a ? "from" : "to"), "id", &r) || r < 0 || r > INT32_MAX)
      return task_fail(f, a ? &m.to : &m.from,
                       "a communication with a node without an id in 0..2^31-1");
    *(a ? &m.from : &m.to) = (vt_key){2, r, 0};
    f->v->node_traffic++;
  }
  json_t *by = json_object_get(c, "bytes");
  m.bytes = json_number_value(by);
  if (!json_is_number(by) || !isfinite(m.bytes) || m.bytes < 0)
    return task_fail(f, &m.from, "a communication without bytes >= 0");
  lbs_err e = grow((void **)&f->v->comm, &f->v->capcomm, f->v->ncomm + 1, sizeof m);
  if (!e) f->v->comm[f->v->ncomm++] = m;
  return e;
}

static lbs_err read_phase(vt_file *f, json_t *ph) {
  if (!get_i64(ph, "id", &f->phase))
    return lbs_fail(LBS_PARSE, "%s: a phase without an integer id", f->path);
  lbs_err e = ids_add(&f->listed, f->phase);
  json_t *tasks = json_object_get(ph, "tasks"), *x;
  if (!e && !json_is_array(tasks))
    return lbs_fail(LBS_PARSE, "%s: phase %lld: no tasks list", f->path, (long long)f->phase);
  if (ids_has(&f->skipped, f->phase)) return e; /* skipped: no step, nothing of its own */
  size_t i;
  json_array_foreach(tasks, i, x) if (!e) e = read_task(f, x);
  json_array_foreach(json_object_get(ph, "communications"), i, x) if (!e) e = read_comm(f, x);
  return e;
}

/* Identical phases: the file's tasks and communications of the phase before, again. */
static lbs_err copy_identical(vt_file *f, int64_t p, int64_t prev) {
  lbs_vt *v = f->v;
  int64_t no = v->nobs, nc = v->ncomm;
  lbs_err e = LBS_OK;
  for (int64_t i = f->obs0; !e && i < no; i++)
    if (v->obs[i].phase == prev &&
        !(e = grow((void **)&v->obs, &v->capobs, v->nobs + 1, sizeof *v->obs)))
      v->obs[v->nobs] = v->obs[i], v->obs[v->nobs++].phase = p;
  for (int64_t i = f->comm0; !e && i < nc; i++)
    if (v->comm[i].phase == prev &&
        !(e = grow((void **)&v->comm, &v->capcomm, v->ncomm + 1, sizeof *v->comm)))
      v->comm[v->ncomm] = v->comm[i], v->comm[v->ncomm++].phase = p;
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
  vt_file f = {v, file, v->files[file], -1, v->nobs, v->ncomm, {0}, {0}, {0}};
  json_t *doc = NULL, *x;
  lbs_err e = load_json(f.path, &doc);
  if (!e) e = read_metadata(&f, doc);
  json_t *phases = json_object_get(doc, "phases");
  if (!e && !json_is_array(phases)) e = lbs_fail(LBS_PARSE, "%s: no phases list", f.path);
  size_t i;
  json_array_foreach(phases, i, x) if (!e) e = read_phase(&f, x);
  if (!e) e = file_phases(&f);
  if (!e && file == 0) *first = f.listed, f.listed = (vt_ids){0};
  if (!e && file > 0 &&
      (f.listed.n != first->n || memcmp(f.listed.v, first->v, (size_t)f.listed.n * 8)))
    e = lbs_fail(
        LBS_PARSE, "%s: %lld phases (%lld..%lld), and %s has %lld: files from different runs?",
        f.path, (long long)f.listed.n, (long long)(f.listed.n ? f.listed.v[0] : 0),
        (long long)(f.listed.n ? f.listed.v[f.listed.n - 1] : 0), v->files[0], (long long)first->n);
  json_decref(doc);
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

/* The tasks: the distinct keys in order, the pinned ones counted, the coordinates where every
 * task has an index. */
static lbs_err make_tasks(lbs_vt *v) {
  qsort(v->obs, (size_t)v->nobs, sizeof *v->obs, cmp_key); /* key first: stable enough */
  v->keys = malloc((size_t)(v->nobs ? v->nobs : 1) * sizeof *v->keys);
  v->pin = calloc((size_t)(v->nobs ? v->nobs : 1), sizeof *v->pin);
  if (!v->keys || !v->pin) return lbs_fail(LBS_NOMEM, "vt tasks");
  int all_idx = v->nobs > 0, dim = 0;
  for (int64_t i = 0, first = 0; i < v->nobs; i++) {
    if (i && !key_cmp(&v->obs[i].k, &v->keys[v->T - 1])) {
      /* A task pinned in one phase and free in another has no one answer: pinning it throughout
       * would hide a migration vt made, freeing it would move an objgroup. */
      const vt_obs *o = &v->obs[i], *f = &v->obs[first];
      if (o->migratable == f->migratable) continue;
      const vt_obs *pinned = o->migratable ? f : o, *free_ = o->migratable ? o : f;
      char k[96];
      return lbs_fail(LBS_PARSE,
                      "%s: phase %lld: %s is not migratable, but is in %s's phase %lld (a task is "
                      "pinned in every phase or in none)",
                      v->files[pinned->file], (long long)pinned->phase,
                      key_text(&o->k, k, sizeof k), v->files[free_->file], (long long)free_->phase);
    }
    first = i;
    v->pin[v->T] = !v->obs[i].migratable;
    v->keys[v->T++] = v->obs[i].k;
    v->pinned += !v->obs[i].migratable;
    all_idx &= v->obs[i].nidx > 0;
    dim = v->obs[i].nidx > dim ? v->obs[i].nidx : dim;
  }
  if (!all_idx || !v->T) return LBS_OK;
  v->dim = dim;
  v->coords = calloc((size_t)(v->T * dim), sizeof *v->coords);
  if (!v->coords) return lbs_fail(LBS_NOMEM, "vt coordinates");
  for (int64_t i = 0, t = -1; i < v->nobs; i++) {
    if (!i || key_cmp(&v->obs[i].k, &v->obs[i - 1].k)) t++;
    for (int d = 0; d < v->obs[i].nidx; d++) v->coords[t * dim + d] = (double)v->obs[i].idx[d];
  }
  return LBS_OK;
}

/* Without node elements: the communications with a node end left out, counted as read (an
 * identical phase's copies not again), as before. */
static void drop_node_comms(lbs_vt *v) {
  int64_t m = 0;
  for (int64_t i = 0; i < v->ncomm; i++)
    if (v->comm[i].from.kind != 2 && v->comm[i].to.kind != 2) v->comm[m++] = v->comm[i];
  v->ncomm = m, v->node_comms += v->node_traffic, v->node_traffic = 0;
}

/* The node elements: one for each rank a task communicates with as a node, after the tasks, in
 * rank order (their keys, of kind 2, sort after every task's). Each is pinned, and has no work;
 * fill_loads gives it its rank as owner at every step. With coordinates, node r sits at
 * (-1 - r, 0, 0), outside the tasks' indices (pinned, it only needs a place). */
static lbs_err add_nodes(lbs_vt *v) {
  vt_ids r = {0};
  lbs_err e = LBS_OK;
  v->tasks = v->T;
  for (int64_t i = 0; !e && i < v->ncomm; i++) {
    const vt_comm *c = &v->comm[i];
    if (c->from.kind == 2 || c->to.kind == 2)
      e = ids_add(&r, c->from.kind == 2 ? c->from.a : c->to.a);
  }
  ids_sort_unique(&r);
  int64_t T = v->T + r.n;
  if (!e && r.n) {
    vt_key *k = realloc(v->keys, (size_t)T * sizeof *k);
    if (k) v->keys = k;
    int64_t *p = realloc(v->pin, (size_t)T * sizeof *p);
    if (p) v->pin = p;
    double *xy = v->coords ? realloc(v->coords, (size_t)(T * v->dim) * sizeof *xy) : NULL;
    if (xy) v->coords = xy;
    if (!k || !p || (v->coords && !xy)) e = lbs_fail(LBS_NOMEM, "vt node elements");
  }
  for (int64_t j = 0; !e && j < r.n; j++) {
    int64_t t = v->T + j;
    v->keys[t] = (vt_key){2, r.v[j], 0};
    v->pin[t] = 1;
    for (int d = 0; v->coords && d < v->dim; d++)
      v->coords[t * v->dim + d] = d ? 0 : (double)(-1 - r.v[j]);
  }
  if (!e) v->T = T, v->nnodes = r.n;
  free(r.v);
  return e;
}

/* Loads, subphase loads and nodes per step; a task twice in a phase is an error. */
static lbs_err fill_loads(lbs_vt *v) {
  int64_t ST = v->S * v->T, nsub = v->subids.n;
  v->time_ns = calloc((size_t)(ST ? ST : 1), sizeof *v->time_ns);
  v->sub_ns = calloc((size_t)(ST * nsub > 0 ? ST * nsub : 1), sizeof *v->sub_ns);
  v->node = malloc((size_t)(ST ? ST : 1) * sizeof *v->node);
  if (!v->time_ns || !v->sub_ns || !v->node) return lbs_fail(LBS_NOMEM, "vt loads");
  for (int64_t i = 0; i < ST; i++) v->node[i] = -1;
  int64_t *seen = calloc((size_t)(ST ? ST : 1), sizeof *seen); /* file + 1 */
  if (!seen) return lbs_fail(LBS_NOMEM, "vt loads");
  for (int64_t i = 0, t = -1; i < v->nobs; i++) {
    const vt_obs *o = &v->obs[i];
    if (!i || key_cmp(&o->k, &v->obs[i - 1].k)) t++;
    int64_t s = step_find(v, o->phase), at = s * v->T + t;
    if (s < 0) continue;
    if (seen[at]) {
      char k[96];
      int64_t other = seen[at] - 1;
      free(seen);
      return lbs_fail(LBS_PARSE, "%s: phase %lld: %s: also in %s's phase", v->files[o->file],
                      (long long)o->phase, key_text(&o->k, k, sizeof k), v->files[other]);
    }
    seen[at] = o->file + 1;
    v->time_ns[at] = nearbyint(o->time * 1e9);
    v->node[at] = o->node;
    for (int j = 0; j < o->nsub; j++) {
      const vt_sub *u = &v->subs[o->sub0 + j];
      int64_t *p = bsearch(&u->id, v->subids.v, (size_t)nsub, 8, cmp_i64);
      v->sub_ns[(p - v->subids.v) * ST + at] += nearbyint(u->time * 1e9);
    }
  }
  free(seen);
  /* a node element is its rank, at every step; it has no work of its own */
  for (int64_t s = 0; s < v->S; s++)
    for (int64_t t = v->tasks; t < v->T; t++) v->node[s * v->T + t] = v->keys[t].a;
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

/* The communicating pairs: each end a known task (else an error naming it), self messages
 * left out; pairs in (a, b) order, a < b. */
static lbs_err make_pairs(lbs_vt *v, vt_pair **out, int64_t *n) {
  vt_pair *p = malloc((size_t)(v->ncomm ? v->ncomm : 1) * sizeof *p);
  if (!p) return lbs_fail(LBS_NOMEM, "vt communications");
  int64_t m = 0;
  for (int64_t i = 0; i < v->ncomm; i++) {
    const vt_comm *c = &v->comm[i];
    int64_t a = key_find(v, &c->from), b = key_find(v, &c->to);
    if (a < 0 || b < 0) {
      char k[96];
      free(p);
      return lbs_fail(LBS_PARSE, "%s: phase %lld: %s: a communication names this unknown task",
                      v->files[c->file], (long long)c->phase,
                      key_text(a < 0 ? &c->from : &c->to, k, sizeof k));
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
  for (int64_t i = 0; i < v->ncomm; i++) {
    const vt_comm *c = &v->comm[i];
    int64_t a = key_find(v, &c->from), b = key_find(v, &c->to), s = step_find(v, c->phase);
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
  ids_sort_unique(&v->subids);
  v->S = v->steps.n;
  if (v->subids.n > LBS_VT_MAX_SUBPHASES)
    return lbs_fail(LBS_RANGE, "%lld subphase ids (lbsim takes at most %d)", (long long)v->subids.n,
                    LBS_VT_MAX_SUBPHASES);
  if (!v->node_elements) drop_node_comms(v);
  if (!(e = make_tasks(v)) && !v->T) e = lbs_fail(LBS_PARSE, "%s: no tasks", v->files[0]);
  if (!e) e = add_nodes(v);
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
  lbs_err e = v->files && v->rank ? LBS_OK : lbs_fail(LBS_NOMEM, "vt files");
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
  free(v->files), free(v->rank), free(v->obs), free(v->subs), free(v->comm);
  free(v->steps.v), free(v->skipped.v), free(v->subids.v);
  free(v->keys), free(v->pin), free(v->time_ns), free(v->sub_ns), free(v->node), free(v->coords);
  free(v->pa), free(v->pb), free(v->pw);
  free(v);
  *pv = NULL;
}

void lbs_vt_summary_get(const lbs_vt *v, lbs_vt_summary *s) {
  *s = (lbs_vt_summary){v->nfiles,        v->tasks,  v->pinned,     v->S,      v->skipped.n,
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
          (size_t)sprintf(*ranks + at, "%s%lld", j ? " " : "", (long long)v->keys[v->tasks + j].a);
    snprintf(num[4], 32, "%lld %lld", (long long)v->tasks, (long long)v->nnodes);
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
