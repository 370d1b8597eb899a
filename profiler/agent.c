/* agent.c - the node agent (the seed's LocalAgent): drains the local ranks' rings, compacts
 * each step of the node with the trace codec within half the error bound of the node's
 * range, and streams frames to the collector, reconnecting with bounded buffering. Messages go
 * through lbs_log, without a prefix: lbsprof-agent's main adds "lbsprof-agent (node N): ".
 *
 * Deferred compaction (LBSPROF_COMPACT=deferred, or auto where a node's ranks have every CPU
 * the job may use; liblbsprof decides for the whole job and passes --compact): compacting and
 * sending take ~120 ns of processor time per value, and on a node without a spare core that time is
 * taken from a rank, which its neighbours then wait for at their next exchange. The agent then only
 * drains the rings into a spool file (a memcpy and a write per step, unlinked at once) and compacts
 * and sends the spooled steps after the ranks have finished, in the order they would have gone. The
 * price: an agent killed during the run loses what it spooled (streaming loses at most the steps in
 * flight), and the ranks' lbsprof_finalize waits for the compaction. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "lbs_traces.h"
#include "prof_int.h"

typedef struct {
  int64_t step, app;
  int count;
  double **vals; /* per local rank: M x n_r then its K events (then its nw arc weights), or NULL */
  int64_t *nw;   /* per local rank: the arc weights it gave at the step, -1 none */
} pstep;

/* A rank's layout from one of its remaps on (lbsprof_remap): n elements, ids gid. */
typedef struct {
  int64_t from, n, *gid;
} layout;

/* A rank's layouts received but not yet in force for the node's steps, oldest first. */
typedef struct {
  layout *l;
  int n, cap;
} layouts;

typedef struct {
  prof_shm *shm;
  int nl, node, M;
  const char *addr;
  prof_meta meta;
  int have_meta;
  lbs_buf *mesh;      /* per rank: its MESH payload */
  int64_t *n;         /* per rank: elements in the layout of the steps emitted */
  layouts *pend;      /* per rank: its remaps still to come into force */
  lbs_buf last_remap; /* the last REMAP frame sent: again after MESH on a new connection */
  int *done, *lost;   /* per rank */
  int64_t *last;      /* per rank: last step delivered, -1 */
  pstep *ps;          /* pending steps */
  int nps, cps;
  lbs_buf hello; /* HELLO and MESH frames, sent first on every connection */
  lbs_buf *q;    /* frames waiting to go */
  int nq, cq, qhead;
  size_t qbytes;
  int fd;
  double down_since, last_try, last_sent;
  uint8_t secret[LBSPROF_SECRET_BYTES];
  int give_up;
  int64_t sent, dropped, incomplete;
  lbs_codec_ctx *cc;
  int mode;      /* COMPACT_*: how it was asked (LBSPROF_COMPACT) */
  int deferring; /* 1: complete steps and layouts go to the spool, not the queue */
  FILE *spool;   /* what was spooled, in order: {u32 kind, u32 pad, u64 len} and len bytes */
  int64_t spooled, unspooled; /* records written, and read back so far */
  int spool_full;             /* the spool could not take a record: nothing more is spooled */
  int64_t spool_lost;         /* spooled steps that never went (an unreadable spool, no memory) */
} agent;

enum { COMPACT_AUTO, COMPACT_STREAM, COMPACT_DEFERRED };
enum { SPOOL_STEP, SPOOL_FRAME }; /* a step's raw values to compact; a frame ready to go */

static int enqueue(agent *a, lbs_buf *frame) {
  if (a->give_up) return lbs_buf_free(frame), 0;
  if (a->nq == a->cq) {
    int c = a->cq ? 2 * a->cq : 16;
    lbs_buf *q = realloc(a->q, (size_t)c * sizeof *q);
    if (!q) return -1;
    a->q = q, a->cq = c;
  }
  a->q[a->nq++] = *frame;
  a->qbytes += frame->len;
  memset(frame, 0, sizeof *frame);
  return 0;
}

/* Sends what can go; on a broken connection closes it (the frame at the head stays). */
static void flush(agent *a) {
  if (a->fd < 0) return;
  while (a->qhead < a->nq) {
    lbs_buf *f = &a->q[a->qhead];
    if (lbs__frame_send_raw(a->fd, f->data, f->len)) {
      close(a->fd);
      a->fd = -1;
      a->down_since = lbs__now_s();
      lbs_log(LBS_LOG_WARN, "lost the collector (%s); retrying", lbs_errmsg());
      return;
    }
    a->qbytes -= f->len;
    uint16_t type;
    memcpy(&type, f->data + 6, sizeof type); /* {magic, version, type, ...} */
    if (type == FR_REMAP) lbs_buf_free(&a->last_remap), a->last_remap = *f, memset(f, 0, sizeof *f);
    lbs_buf_free(f);
    a->qhead++;
    a->last_sent = lbs__now_s();
  }
  a->nq = a->qhead = 0;
}

/* Tells the collector this agent is alive when it has sent nothing for a while (the collector
 * drops connections silent for LBSPROF_CONN_IDLE_S). */
static void ping(agent *a, double every) {
  if (a->fd < 0 || a->nq || lbs__now_s() - a->last_sent < every) return;
  struct {
    int32_t node, pad;
  } h = {a->node, 0};
  lbs_buf f = {0};
  if (!lbs__frame_build(&f, FR_PING, &h, sizeof h, NULL, 0)) enqueue(a, &f);
  lbs_buf_free(&f);
  flush(a);
}

static void try_connect(agent *a) {
  double t = lbs__now_s();
  if (a->fd >= 0 || a->give_up || t - a->last_try < 0.1) return;
  a->last_try = t;
  int fd = lbs__connect(a->addr), refused = 0;
  if (fd >= 0) {
    /* the challenge first: nothing goes out before the collector has our proof and took it */
    lbs_err e = lbs__auth_client(fd, a->secret, a->node, 5);
    refused = e == LBS_INVAL;
    if (!e && a->hello.len) e = lbs__frame_send_raw(fd, a->hello.data, a->hello.len);
    if (!e && a->last_remap.len) e = lbs__frame_send_raw(fd, a->last_remap.data, a->last_remap.len);
    if (!e) {
      a->fd = fd;
      a->last_sent = lbs__now_s();
      lbs_log(LBS_LOG_DEBUG, "connected to the collector at %s", a->addr);
      return;
    }
    close(fd);
  }
  double limit = lbs__env(LBS_ENV_RETRY_S), maxb = lbs__env(LBS_ENV_BUFFER_MB) * 1048576;
  char why[600];
  if (refused) /* another run's collector, or a wrong token file: trying again changes nothing */
    snprintf(why, sizeof why, "%s", lbs_errmsg());
  else if (t - a->down_since > limit || (double)a->qbytes > maxb)
    snprintf(why, sizeof why,
             "the collector at %s is unreachable (%s) for %.0f s with %.1f MiB buffered", a->addr,
             lbs_errmsg(), t - a->down_since, (double)a->qbytes / 1048576);
  else
    return;
  if (a->spooled > a->unspooled)
    lbs_log(LBS_LOG_WARN,
            "%s; giving up: the %lld spooled records (deferred compaction) and the steps from here "
            "on are not recorded",
            why, (long long)(a->spooled - a->unspooled));
  else
    lbs_log(LBS_LOG_WARN, "%s; giving up: the steps from here on are not recorded", why);
  a->give_up = 1;
  atomic_store(&a->shm->agent_state, AGENT_GONE); /* the ranks stop sampling */
  for (int i = a->qhead; i < a->nq; i++) lbs_buf_free(&a->q[i]);
  a->nq = a->qhead = 0, a->qbytes = 0;
}

static pstep *find_step(agent *a, int64_t step, int64_t app) {
  for (int i = 0; i < a->nps; i++)
    if (a->ps[i].step == step) return &a->ps[i];
  if (a->nps == a->cps) {
    int c = a->cps ? 2 * a->cps : 8;
    pstep *ps = realloc(a->ps, (size_t)c * sizeof *ps);
    if (!ps) return NULL;
    a->ps = ps, a->cps = c;
  }
  pstep *p = &a->ps[a->nps++];
  p->step = step, p->app = app, p->count = 0;
  p->vals = calloc((size_t)a->nl, sizeof *p->vals);
  p->nw = calloc((size_t)a->nl, sizeof *p->nw);
  if (p->vals && p->nw) return p;
  free(p->vals), free(p->nw);
  a->nps--;
  return NULL;
}

static void drop_step(agent *a, int i) {
  for (int r = 0; r < a->nl; r++) free(a->ps[i].vals[r]);
  free(a->ps[i].vals), free(a->ps[i].nw);
  a->ps[i] = a->ps[--a->nps];
}

/* A step's frame from its raw form (raw_step): each metric's N values encoded within this
 * node's share of the bound, then the events as they are; queued. */
static int encode_step(agent *a, const uint8_t *raw, size_t len) {
  struct {
    int32_t node, M;
    int64_t step, app, n;
  } h;
  if (len < sizeof h) return -1;
  memcpy(&h, raw, sizeof h);
  size_t N = (size_t)h.n, vb = (size_t)a->M * N * sizeof(double);
  if (len < sizeof h + vb) return -1;
  double *v = malloc((N ? N : 1) * sizeof *v);
  lbs_buf pay = {0}, blob = {0}, fr = {0};
  int err = !v || lbs_buf_append(&pay, &h, sizeof h);
  for (int m = 0; !err && m < a->M; m++) {
    memcpy(v, raw + sizeof h + (size_t)m * N * sizeof *v, N * sizeof *v);
    /* this node's share of the bound; a range bound is of the node's range here */
    lbs_bound b = lbs_bound_resolve(
        lbs__bound_stage((lbs_bound){(lbs_bound_kind)a->meta.bound_kind, a->meta.eps}, 0), v, N);
    lbs_codec c = b.kind == LBS_BOUND_LOSSLESS ? LBS_CODEC_LOSSLESS : (lbs_codec)a->meta.codec;
    blob.len = 0;
    lbs_err e = lbs_codec_encode(a->cc, c, v, N, b, &blob, &c);
    struct {
      int32_t codec, pad;
      uint64_t len;
    } mh = {(int32_t)c, 0, blob.len};
    err = e || lbs_buf_append(&pay, &mh, sizeof mh) || lbs_buf_append(&pay, blob.data, blob.len);
  }
  /* then each local rank's events (prof_int.h), after the values */
  if (!err) err = lbs_buf_append(&pay, raw + sizeof h + vb, len - sizeof h - vb);
  if (!err) err = lbs__frame_build(&fr, FR_STEP, pay.data, pay.len, NULL, 0) || enqueue(a, &fr);
  if (!err) a->sent++;
  free(v), lbs_buf_free(&pay), lbs_buf_free(&blob), lbs_buf_free(&fr);
  return err ? -1 : 0;
}

/* Reads the spool back from the start: from here on it is only read. */
static int spool_rewind(agent *a) {
  return fflush(a->spool) || fseeko(a->spool, 0, SEEK_SET) ? -1 : 0;
}

/* Compacts or queues the next spooled record; 0 when there is none left, -1 when the spool
 * cannot be read (said; the rest is lost). */
static int unspool_one(agent *a) {
  if (!a->spool || a->unspooled == a->spooled) return 0;
  if (a->unspooled == 0 && spool_rewind(a)) goto bad;
  struct {
    uint32_t kind, pad;
    uint64_t len;
  } r;
  lbs_buf b = {0};
  if (fread(&r, sizeof r, 1, a->spool) != 1 || lbs_buf_reserve(&b, r.len) ||
      (r.len && fread(b.data, r.len, 1, a->spool) != 1)) {
    lbs_buf_free(&b);
    goto bad;
  }
  b.len = r.len;
  a->unspooled++;
  if (r.kind == SPOOL_STEP) {
    if (encode_step(a, b.data, b.len)) {
      lbs_log(LBS_LOG_WARN, "out of memory compacting a spooled step; it is not recorded");
      a->spool_lost++;
    }
    lbs_buf_free(&b);
  } else if (enqueue(a, &b)) {
    lbs_buf_free(&b);
  }
  return 1;
bad:
  lbs_log(LBS_LOG_WARN, "cannot read the spool back (%s): %lld spooled records are lost",
          strerror(errno), (long long)(a->spooled - a->unspooled));
  a->spool_lost += a->spooled - a->unspooled;
  a->unspooled = a->spooled;
  return -1;
}

/* What goes out, in order: to the spool while deferring, else compacted and queued now. A spool
 * that cannot take a record (a full disk, a file size limit) ends the profile there, as an
 * unreachable collector does: the ranks stop sampling, what the spool holds whole goes after the
 * run, and the agent's exit says the run is incomplete. (Streaming from there would need the
 * spool sent first, mid-run, which is the stall deferring is there to avoid.) */
static int put_out(agent *a, int kind, lbs_buf *raw) {
  if (a->deferring) {
    struct {
      uint32_t kind, pad;
      uint64_t len;
    } r = {(uint32_t)kind, 0, raw->len};
    if (!a->spool_full && fwrite(&r, sizeof r, 1, a->spool) == 1 &&
        (!raw->len || fwrite(raw->data, raw->len, 1, a->spool) == 1)) {
      a->spooled++;
      lbs_buf_free(raw);
      return 0;
    }
    if (!a->spool_full) {
      lbs_log(LBS_LOG_WARN, "cannot write the spool (%s): the steps from here on are not recorded",
              strerror(errno));
      a->spool_full = 1;
      atomic_store(&a->shm->agent_state, AGENT_GONE); /* the ranks stop sampling */
    }
    a->spool_lost += kind == SPOOL_STEP;
    lbs_buf_free(raw);
    return -1;
  }
  int err = kind == SPOOL_STEP ? encode_step(a, raw->data, raw->len) : enqueue(a, raw);
  lbs_buf_free(raw);
  return err;
}

/* A complete step: each metric's values of the ranks concatenated (the node's layout now in
 * force), then the ranks' events, then (stored@step) each rank's count of arc weights and the
 * weights (prof_int.h), as one raw record; compacted now or after the run (what follows the
 * values goes as it is). */
static int emit_step(agent *a, pstep *p) {
  int64_t N = 0;
  for (int r = 0; r < a->nl; r++) N += a->n[r];
  lbs_buf raw = {0};
  struct {
    int32_t node, M;
    int64_t step, app, n;
  } h = {a->node, a->M, p->step, p->app, N};
  int err = lbs_buf_append(&raw, &h, sizeof h);
  for (int m = 0; !err && m < a->M; m++)
    for (int r = 0; !err && r < a->nl; r++)
      if (a->n[r])
        err = lbs_buf_append(&raw, p->vals[r] + m * a->n[r], (size_t)a->n[r] * sizeof(double));
  for (int r = 0; !err && r < a->nl && a->meta.nevents; r++)
    err = lbs_buf_append(&raw, p->vals[r] + (size_t)a->M * (size_t)a->n[r],
                         (size_t)a->meta.nevents * sizeof(double));
  for (int r = 0; !err && r < a->nl && a->meta.edge_steps; r++)
    err = lbs_buf_append(&raw, &p->nw[r], sizeof p->nw[r]);
  for (int r = 0; !err && r < a->nl && a->meta.edge_steps; r++)
    if (p->nw[r] > 0)
      err = lbs_buf_append(&raw, p->vals[r] + (size_t)a->M * (size_t)a->n[r] + a->meta.nevents,
                           (size_t)p->nw[r] * sizeof(double));
  if (err) return lbs_buf_free(&raw), -1;
  return put_out(a, SPOOL_STEP, &raw);
}

/* Whether to defer (LBSPROF_COMPACT, checked by liblbsprof before the agent started), decided
 * at the first complete step: auto defers when the node's ranks have every CPU this agent may
 * run on (the rank that started it widened its binding to the job's CPUs right after the
 * start, long before a step is complete). A spool that cannot be made leaves it streaming. */
static void choose_mode(agent *a) {
  if (a->mode == COMPACT_STREAM || a->spool) return;
  if (a->mode == COMPACT_AUTO) {
    cpu_set_t set;
    int cpus = sched_getaffinity(0, sizeof set, &set) ? 0 : CPU_COUNT(&set);
    a->mode = cpus > a->nl ? COMPACT_STREAM : COMPACT_DEFERRED;
    lbs_log(LBS_LOG_DEBUG, "%d local ranks on %d CPUs: %s", a->nl, cpus,
            a->mode == COMPACT_STREAM ? "a spare CPU, compacting as the steps come"
                                      : "no spare CPU, compacting after the run");
    if (a->mode == COMPACT_STREAM) return;
  }
  const char *dir = getenv("TMPDIR");
  char path[4096];
  snprintf(path, sizeof path, "%s/lbsprof-spool-XXXXXX", dir && *dir ? dir : "/tmp");
  int fd = mkstemp(path);
  if (fd >= 0) unlink(path);
  if (fd < 0 || !(a->spool = fdopen(fd, "w+b"))) {
    lbs_log(LBS_LOG_WARN, "cannot make a spool in %s (%s): compacting as the steps come",
            dir && *dir ? dir : "/tmp", strerror(errno));
    if (fd >= 0) close(fd);
    a->mode = COMPACT_STREAM;
    return;
  }
  a->deferring = 1;
  lbs_log(LBS_LOG_DEBUG, "spooling the steps, to compact them after the run");
}

/* The step from which the node's next layout is in force, when every local rank's remap for it
 * is in (ranks remap together: each rank's oldest pending layout is for the same step), or -1. */
static int64_t next_layout(const agent *a) {
  int64_t from = -1;
  for (int r = 0; r < a->nl; r++) {
    if (a->lost[r]) return -1;
    if (!a->pend[r].n || (r && a->pend[r].l[0].from != from)) return -1;
    from = a->pend[r].l[0].from;
  }
  return from;
}

/* The node's layouts in force from steps up to `upto`: one REMAP frame each, {node, nranks,
 * from_step, n[nranks]} and the ids of the ranks in turn; the ranks' counts follow. */
static void emit_remaps(agent *a, int64_t upto) {
  int64_t from;
  while ((from = next_layout(a)) >= 0 && from <= upto) {
    prof_remap_hdr h = {a->node, a->nl, from};
    lbs_buf pay = {0}, fr = {0};
    int err = lbs_buf_append(&pay, &h, sizeof h);
    for (int r = 0; !err && r < a->nl; r++)
      err = lbs_buf_append(&pay, &a->pend[r].l[0].n, sizeof(int64_t));
    for (int r = 0; !err && r < a->nl; r++)
      err = lbs_buf_append(&pay, a->pend[r].l[0].gid, (size_t)a->pend[r].l[0].n * sizeof(int64_t));
    if (!err)
      err = lbs__frame_build(&fr, FR_REMAP, pay.data, pay.len, NULL, 0) ||
            put_out(a, SPOOL_FRAME, &fr);
    if (err) lbs_log(LBS_LOG_WARN, "out of memory for the layout from step %lld", (long long)from);
    lbs_buf_free(&pay), lbs_buf_free(&fr);
    for (int r = 0; r < a->nl; r++) { /* in force: the oldest pending layout goes */
      layouts *q = &a->pend[r];
      a->n[r] = q->l[0].n;
      free(q->l[0].gid);
      memmove(q->l, q->l + 1, (size_t)(--q->n) * sizeof *q->l);
    }
  }
}

/* The number of elements rank r sends at step `step`: its newest layout from that step or
 * before. */
static int64_t elements_at(const agent *a, int r, int64_t step) {
  int64_t n = a->n[r];
  for (int i = 0; i < a->pend[r].n && a->pend[r].l[i].from <= step; i++) n = a->pend[r].l[i].n;
  return n;
}

/* Steps every live rank has delivered go out; steps a live rank skipped (dropped) are
 * given up once it has moved past them. */
static void complete_steps(agent *a) {
  int live = 0, lost = 0;
  int64_t minlast = INT64_MAX;
  for (int r = 0; r < a->nl; r++)
    if (!a->lost[r])
      live++, minlast = a->last[r] < minlast ? a->last[r] : minlast;
    else
      lost++;
  if (lost) live = 0; /* a node with a lost rank completes no more steps */
  for (int i = 0; i < a->nps;) {
    pstep *p = &a->ps[i];
    int have = 0;
    for (int r = 0; r < a->nl; r++) have += !a->lost[r] && p->vals[r];
    if (live && have == live) {
      /* in step order: nothing earlier may still be pending */
      int earlier = 0;
      for (int j = 0; j < a->nps; j++) earlier |= a->ps[j].step < p->step;
      if (earlier) {
        i++;
        continue;
      }
      choose_mode(a);
      emit_remaps(a, p->step); /* a new layout's frame before its first step */
      emit_step(a, p);
      drop_step(a, i);
      i = 0;
    } else if (p->step < minlast || !live) {
      a->incomplete++;
      drop_step(a, i);
      i = 0;
    } else {
      i++;
    }
  }
  /* every rank's steps before the layouts now in are settled: they may go */
  if (live) emit_remaps(a, INT64_MAX);
}

static void build_hello(agent *a) {
  struct {
    int32_t node, pad;
  } h = {a->node, 0};
  lbs_buf pay = {0};
  int err = lbs_buf_append(&pay, &h, sizeof h) || lbs_buf_append(&pay, &a->meta, sizeof a->meta) ||
            lbs__frame_build(&a->hello, FR_HELLO, pay.data, pay.len, NULL, 0);
  pay.len = 0;
  struct {
    int32_t node, nranks;
  } mh = {a->node, a->nl};
  err = err || lbs_buf_append(&pay, &mh, sizeof mh);
  for (int r = 0; !err && r < a->nl; r++) {
    uint64_t len = a->mesh[r].len;
    err = lbs_buf_append(&pay, &len, sizeof len) || lbs_buf_append(&pay, a->mesh[r].data, len);
  }
  if (!err) lbs__frame_build(&a->hello, FR_MESH, pay.data, pay.len, NULL, 0);
  lbs_buf_free(&pay);
}

/* Maps the segment of the inherited descriptor fd (closed here once mapped; its name is gone
 * already) into a->shm, *bytes long, and tells the ranks this agent runs. 1 (said through
 * lbs_log) when it is not an lbsprof segment of this version. */
static int map_segment(agent *a, int fd, const char *label, size_t *bytes) {
  prof_shm *h = mmap(NULL, sizeof(prof_shm), PROT_READ, MAP_SHARED, fd, 0);
  if (h == MAP_FAILED) {
    lbs_log(LBS_LOG_ERROR, "cannot map the segment of %s: %s", label, strerror(errno));
    return 1;
  }
  *bytes = h->bytes;
  munmap(h, sizeof(prof_shm));
  a->shm = mmap(NULL, *bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  close(fd);
  if (a->shm == MAP_FAILED || a->shm->magic != LBSPROF_SHM_MAGIC ||
      a->shm->version != LBSPROF_PROTO_VERSION) {
    lbs_log(LBS_LOG_ERROR, "%s is not an lbsprof segment of this version", label);
    return 1;
  }
  atomic_store(&a->shm->agent_pid, (int32_t)getpid());
  atomic_store(&a->shm->agent_state, AGENT_RUNNING);
  return 0;
}

/* The state of each local rank (no mesh, no step yet) and the codec's context; the collector
 * counts as down from now. 1 when out of memory. */
static int start_ranks(agent *a) {
  a->nl = a->shm->nlocal;
  a->mesh = calloc((size_t)a->nl, sizeof *a->mesh), a->n = calloc((size_t)a->nl, sizeof *a->n);
  a->done = calloc((size_t)a->nl, sizeof *a->done);
  a->lost = calloc((size_t)a->nl, sizeof *a->lost);
  a->last = malloc((size_t)a->nl * sizeof *a->last);
  a->pend = calloc((size_t)a->nl, sizeof *a->pend);
  if (!a->mesh || !a->n || !a->done || !a->lost || !a->last || !a->pend ||
      lbs_codec_ctx_create(&a->cc))
    return 1;
  for (int r = 0; r < a->nl; r++) a->last[r] = -1;
  a->down_since = lbs__now_s();
  return 0;
}

/* Rank r's REC_REMAP {from_step, n, gid[n]}: a layout pending until the node's steps before it
 * have gone. */
static void take_remap(agent *a, int r, const lbs_buf *rec) {
  int64_t h[2];
  memcpy(h, rec->data, sizeof h);
  layouts *q = &a->pend[r];
  if (h[1] < 0 || rec->len != sizeof h + (size_t)h[1] * sizeof(int64_t)) return;
  if (q->n == q->cap) {
    int c = q->cap ? 2 * q->cap : 4;
    layout *l = realloc(q->l, (size_t)c * sizeof *l);
    if (!l) return;
    q->l = l, q->cap = c;
  }
  layout *l = &q->l[q->n];
  l->from = h[0], l->n = h[1];
  if (!(l->gid = malloc((size_t)(h[1] ? h[1] : 1) * sizeof *l->gid))) return;
  memcpy(l->gid, rec->data + sizeof h, (size_t)h[1] * sizeof *l->gid);
  q->n++;
  complete_steps(a); /* the layout may go at once when the node's ranks are all past it */
}

/* Takes record rec of type from local rank r: the run's metadata (the first), the rank's mesh
 * (*meshed counts them), a step's values (then the steps complete so far go), its end. */
static void take_record(agent *a, int r, uint32_t type, const lbs_buf *rec, int *meshed) {
  if (type == REC_META && !a->have_meta && rec->len == sizeof(prof_meta)) {
    memcpy(&a->meta, rec->data, sizeof a->meta);
    a->M = a->meta.nmetrics, a->have_meta = 1;
  } else if (type == REC_MESH && !a->mesh[r].len) {
    lbs_buf_append(&a->mesh[r], rec->data, rec->len);
    memcpy(&a->n[r], rec->data, sizeof a->n[r]);
    (*meshed)++;
  } else if (type == REC_STEP && rec->len >= sizeof(prof_step_hdr)) {
    prof_step_hdr sh;
    memcpy(&sh, rec->data, sizeof sh);
    pstep *p = find_step(a, sh.step, sh.app_step);
    int64_t nw = a->meta.edge_steps && sh.nweights > 0 ? sh.nweights : 0;
    size_t nb = (size_t)(sh.n * sh.nmetrics + sh.nevents + nw) * sizeof(double);
    if (p && sh.n == elements_at(a, r, sh.step) && sh.nmetrics == a->M &&
        sh.nevents == a->meta.nevents && sh.nweights >= -1 && rec->len == sizeof sh + nb &&
        (p->vals[r] = malloc(nb ? nb : 1))) {
      memcpy(p->vals[r], rec->data + sizeof sh, nb);
      p->nw[r] = a->meta.edge_steps ? sh.nweights : -1;
    }
    a->last[r] = sh.step;
    complete_steps(a);
  } else if (type == REC_REMAP && rec->len >= 16) {
    take_remap(a, r, rec);
  } else if (type == REC_END && rec->len == sizeof(prof_end)) {
    prof_end pe;
    memcpy(&pe, rec->data, sizeof pe);
    a->dropped += pe.dropped;
    a->done[r] = 1;
  }
}

/* Marks lost the local ranks that ended without finishing (their process is gone, or never
 * started after 60 s idle since idle_since); their pending steps are settled. */
static void find_lost_ranks(agent *a, double idle_since) {
  for (int r = 0; r < a->nl; r++) {
    int32_t pid = atomic_load(&a->shm->ring[r].pid);
    if (!a->done[r] && !a->lost[r] &&
        ((pid > 0 && kill(pid, 0) && errno == ESRCH) ||
         (pid == 0 && lbs__now_s() - idle_since > 60))) {
      a->lost[r] = 1;
      char why[64];
      snprintf(why, sizeof why, "%d", r);
      lbs_log(LBS_LOG_WARN,
              "local rank %s ended without finishing; its steps from here on are incomplete", why);
      complete_steps(a);
    }
  }
}

/* Ends the agent's run: the END frame with its counts when the collector is still there, the
 * segment marked and unmapped. The exit status: 0, 2 gave up on the collector, 3 lost ranks. */
static int finish(agent *a, size_t bytes) {
  int lost = 0;
  for (int r = 0; r < a->nl; r++) lost += a->lost[r];
  if (a->fd >= 0 && !a->give_up) {
    struct {
      int32_t node, pad;
    } h2 = {a->node, 0};
    prof_end pe = {a->dropped + a->spool_lost, a->sent, lost, 0};
    lbs__frame_send(a->fd, FR_END, &h2, sizeof h2, &pe, sizeof pe);
    close(a->fd);
  }
  atomic_store(&a->shm->agent_state, AGENT_GONE);
  munmap(a->shm, bytes);
  if (a->spool) fclose(a->spool);
  if (a->spool_lost)
    lbs_log(LBS_LOG_WARN, "%lld spooled steps were not recorded", (long long)a->spool_lost);
  return a->give_up || a->spool_lost || a->spool_full ? 2 : lost ? 3 : 0;
}

/* The agent's life (see prof_int.h): maps the segment, then drains the ranks' rings, sends the
 * HELLO and MESH frames once every rank's mesh is in, streams the steps, watches for ranks that
 * die, napping while idle, until every rank is done and the queue is empty (or given up). */
int lbs__agent_main(int fd, const char *label, int node, const char *collector, const char *compact,
                    const uint8_t secret[LBSPROF_SECRET_BYTES]) {
  signal(SIGPIPE, SIG_IGN);
  signal(SIGXFSZ, SIG_IGN); /* a spool over the file size limit fails its write instead */
  agent A, *a = &A;
  memset(a, 0, sizeof A);
  a->node = node, a->addr = collector, a->fd = -1;
  /* liblbsprof decides for the whole job (a node streaming beside one deferring would make the
   * collector hold every step of the run); the variable where the agent is started by hand */
  const char *cm = compact ? compact : getenv("LBSPROF_COMPACT");
  a->mode = cm && !strcmp(cm, "stream")     ? COMPACT_STREAM
            : cm && !strcmp(cm, "deferred") ? COMPACT_DEFERRED
                                            : COMPACT_AUTO;
  memcpy(a->secret, secret, sizeof a->secret);
  /* liblbsprof's init has refused a bad number in the environment before starting agents */
  double ping_every = lbs__env(LBS_ENV_PING_S);
  size_t bytes = 0;
  if (map_segment(a, fd, label, &bytes) || start_ranks(a)) return 1;
  lbs_buf rec = {0};
  int meshed = 0, hello_built = 0;
  double idle_since = lbs__now_s();
  /* idle naps grow from 100 us to 2 ms while nothing comes, and start over when something
   * does: an agent waking 5000 times a second cost the ranks that share its cores 5-8% of
   * their time (apps/wave, bench/RESULTS.md), and a ring holds at least two steps */
  long nap_ns = 100000;
  for (;;) {
    int progress = 0;
    for (int r = 0; r < a->nl; r++) {
      uint32_t type;
      while (!a->lost[r] && lbs__ring_read(a->shm, r, &type, &rec) == 1) {
        progress = 1;
        take_record(a, r, type, &rec, &meshed);
      }
    }
    if (!hello_built && a->have_meta && meshed == a->nl) {
      build_hello(a);
      hello_built = 1;
    }
    if (hello_built) {
      try_connect(a);
      flush(a);
      ping(a, ping_every);
    }
    int finished = 1;
    for (int r = 0; r < a->nl; r++)
      finished &= a->done[r] || a->lost[r] || atomic_load(&a->shm->ring[r].done);
    /* the ranks are done: the spool is compacted and sent, a few frames ahead of the socket */
    if (finished && a->spool && !a->give_up) {
      a->deferring = 0;
      for (int k = 0; k < 4 && a->nq < 16 && unspool_one(a) > 0; k++) progress = 1;
    }
    int spool_left = a->spool && !a->give_up && a->unspooled < a->spooled;
    if (finished && !spool_left && (a->nq == 0 || a->give_up)) break;
    if (progress) {
      idle_since = lbs__now_s();
      nap_ns = 100000;
      continue;
    }
    /* idle: look for ranks that died */
    find_lost_ranks(a, idle_since);
    if (finished && !hello_built) break; /* never got going */
    struct timespec nap = {0, nap_ns};
    nanosleep(&nap, NULL);
    if (nap_ns < 2000000) nap_ns *= 2;
  }
  return finish(a, bytes);
}
