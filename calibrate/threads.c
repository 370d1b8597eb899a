/* threads.c - the threads target: every kernel on N POSIX threads (seed 004's multi-threaded
 * "(MT)" implementations), N = lbs_impl_args.threads or the online CPUs when 0.
 *
 * The threads are created and joined inside every execute: an invocation measured by
 * calibration pays for starting them, as a program calling the kernel once would, so the IPG of
 * a threads implementation holds that start cost (tens of microseconds) and shows where
 * threads stop paying for themselves. The calling thread works as thread 0 and starts N - 1
 * others; threads:1 starts none.
 *
 * Work is split in static contiguous chunks, thread t taking items [n t / N, n (t+1) / N) of
 * the kernel's outputs, and each chunk runs the serial kernel of the cpu target (cpu_int.h):
 *   sort     each thread sorts its chunk, then ceil(log2 N) rounds merge pairs of runs, every
 *            thread writing its own chunk of each round's output (merge-path split), so all
 *            threads work in every round; the result equals the cpu target's
 *   dot      per-thread partial sums, added in thread order (deterministic for a given N)
 *   conv1d   chunks of the output (same bits as the cpu target)
 *   matmul   chunks of C's rows (same bits as the cpu target)
 *   wave     chunks of cells; the energy partials added in thread order, emax their largest
 *   walk     chunks of walks (hits and steps exact)
 *   bhforce  chunks of targets, a traversal stack per thread
 * A thread that fails to start makes execute return LBS_NOMEM (no resources) or LBS_IO with a
 * message, after the threads already started have finished. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cpu_int.h"
#include "lbs_nbody.h"

#define MAX_THREADS 4096

int (*lbs__thread_create)(pthread_t *th, const pthread_attr_t *attr, void *(*fn)(void *),
                          void *arg) = pthread_create;

/* floor(n r / T) without overflow (n up to 2^62, r <= T <= MAX_THREADS). */
static int64_t chunk_at(int64_t n, int r, int T) { return n / T * r + n % T * r / T; }

/* ---------------------------------------------------------------- a team of threads */

typedef void (*work_fn)(void *arg, int t, int T);

typedef struct team {
  work_fn fn;
  void *arg;
  int T;
  int gated;          /* members wait until all started (kernels with barriers) */
  int gate;           /* 0: closed, 1: go, -1: a start failed, return */
  pthread_mutex_t mu; /* guards gate */
  pthread_cond_t cv;
} team;

typedef struct {
  team *tm;
  int t; /* member number, 1..T-1 */
} member;

static void *member_main(void *v) {
  member *m = v;
  team *tm = m->tm;
  if (tm->gated) {
    pthread_mutex_lock(&tm->mu);
    while (!tm->gate) pthread_cond_wait(&tm->cv, &tm->mu);
    int go = tm->gate > 0;
    pthread_mutex_unlock(&tm->mu);
    if (!go) return NULL;
  }
  tm->fn(tm->arg, m->t, tm->T);
  return NULL;
}

static void open_gate(team *tm, int value) {
  pthread_mutex_lock(&tm->mu);
  tm->gate = value;
  pthread_cond_broadcast(&tm->cv);
  pthread_mutex_unlock(&tm->mu);
}

/* Runs fn(arg, t, T) for t in 0..T-1, t = 0 on the calling thread. gated: no member starts
 * its work before all T are running (fn may then wait on a barrier of T). */
static lbs_err team_run(const char *impl, int T, int gated, work_fn fn, void *arg) {
  if (T == 1) {
    fn(arg, 0, 1);
    return LBS_OK;
  }
  pthread_t *th = malloc((size_t)(T - 1) * sizeof *th);
  member *mem = malloc((size_t)(T - 1) * sizeof *mem);
  if (!th || !mem) {
    free(th), free(mem);
    return lbs_fail(LBS_NOMEM, "%s: room for %d threads", impl, T);
  }
  team tm = {fn, arg, T, gated, 0, PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER};
  int started = 0, rc = 0;
  for (; started < T - 1; started++) {
    mem[started] = (member){&tm, started + 1};
    if ((rc = lbs__thread_create(&th[started], NULL, member_main, &mem[started]))) break;
  }
  if (!rc) {
    if (gated) open_gate(&tm, 1);
    fn(arg, 0, T);
  } else if (gated) {
    open_gate(&tm, -1);
  }
  for (int i = 0; i < started; i++) pthread_join(th[i], NULL);
  pthread_cond_destroy(&tm.cv);
  pthread_mutex_destroy(&tm.mu);
  free(th), free(mem);
  if (rc)
    return lbs_fail(rc == EAGAIN || rc == ENOMEM ? LBS_NOMEM : LBS_IO,
                    "%s: starting thread %d of %d: %s", impl, started + 1, T, strerror(rc));
  return LBS_OK;
}

/* ---------------------------------------------------------------- the target */

typedef struct {
  int T; /* threads */
} tctx;

static lbs_err threads_open(void **ctx, const lbs_impl_args *args, char *device, size_t n) {
  *ctx = NULL;
  long T = args ? args->threads : 0;
  if (T < 0 || T > MAX_THREADS)
    return lbs_fail(LBS_RANGE, "threads: %ld threads (give 1..%d, or 0 for the online CPUs)", T,
                    MAX_THREADS);
  if (T == 0) {
    T = sysconf(_SC_NPROCESSORS_ONLN);
    if (T < 1) T = 1;
    if (T > MAX_THREADS) T = MAX_THREADS;
  }
  tctx *c = malloc(sizeof *c);
  if (!c) return lbs_fail(LBS_NOMEM, "threads: a context");
  c->T = (int)T;
  char model[256];
  lbs__cpu_model(model, sizeof model);
  snprintf(device, n, "threads:%d: %s", c->T, model);
  *ctx = c;
  return LBS_OK;
}

static void threads_close(void *ctx) { free(ctx); }

/* ---------------------------------------------------------------- sort */

typedef struct {
  lbs_k_sort *p;
  double *tmp; /* n doubles: the other buffer of the merge rounds */
  pthread_barrier_t bar;
} sort_job;

static void sort_work(void *v, int t, int T) {
  sort_job *j = v;
  double *a = j->p->a;
  const int64_t n = j->p->n, lo = chunk_at(n, t, T), hi = chunk_at(n, t + 1, T);
  lbs__sort_doubles(a + lo, hi - lo);
  double *src = a, *dst = j->tmp;
  for (int w = 1; w < T; w *= 2) {
    pthread_barrier_wait(&j->bar); /* the runs of the round before are complete */
    /* groups of 2w runs: the left w runs merged with the right w; this thread writes the
     * outputs [lo, hi) of the round, wherever groups cut them */
    for (int r0 = 0; r0 < T; r0 += 2 * w) {
      int r1 = r0 + w < T ? r0 + w : T, r2 = r0 + 2 * w < T ? r0 + 2 * w : T;
      int64_t b0 = chunk_at(n, r0, T), b1 = chunk_at(n, r1, T), b2 = chunk_at(n, r2, T);
      int64_t k0 = lo > b0 ? lo : b0, k1 = hi < b2 ? hi : b2;
      if (k0 >= k1) continue;
      lbs__merge_range(src + b0, b1 - b0, src + b1, b2 - b1, k0 - b0, k1 - b0, dst + k0);
    }
    double *s = src;
    src = dst, dst = s;
  }
  if (src != a) {
    pthread_barrier_wait(&j->bar); /* nobody reads a any more */
    memcpy(a + lo, src + lo, (size_t)(hi - lo) * sizeof *a);
  }
}

static lbs_err sort_exec(void *ctx, void *params) {
  const tctx *c = ctx;
  sort_job j;
  memset(&j, 0, sizeof j);
  j.p = params;
  int T = c->T;
  if (T > 1 && j.p->n > 1) {
    if (!(j.tmp = malloc((size_t)j.p->n * sizeof *j.tmp)))
      return lbs_fail(LBS_NOMEM, "sort.threads: a merge buffer of %lld doubles", (long long)j.p->n);
  } else {
    T = 1;
  }
  if (T > 1 && pthread_barrier_init(&j.bar, NULL, (unsigned)T)) {
    free(j.tmp);
    return lbs_fail(LBS_NOMEM, "sort.threads: a barrier of %d threads", T);
  }
  lbs_err e = team_run("sort.threads", T, 1, sort_work, &j);
  if (T > 1) pthread_barrier_destroy(&j.bar);
  free(j.tmp);
  return e;
}

/* ---------------------------------------------------------------- dot */

typedef struct {
  lbs_k_dot *p;
  double *part; /* T partial sums */
} dot_job;

static void dot_work(void *v, int t, int T) {
  dot_job *j = v;
  j->part[t] =
      lbs__dot_range(j->p->x, j->p->y, chunk_at(j->p->n, t, T), chunk_at(j->p->n, t + 1, T));
}

static lbs_err dot_exec(void *ctx, void *params) {
  const tctx *c = ctx;
  dot_job j = {params, malloc((size_t)c->T * sizeof(double))};
  if (!j.part) return lbs_fail(LBS_NOMEM, "dot.threads: %d partial sums", c->T);
  lbs_err e = team_run("dot.threads", c->T, 0, dot_work, &j);
  if (!e) {
    double s = 0;
    for (int t = 0; t < c->T; t++) s += j.part[t];
    j.p->result = s;
  }
  free(j.part);
  return e;
}

/* ---------------------------------------------------------------- conv1d, matmul */

static void conv1d_work(void *v, int t, int T) {
  lbs_k_conv1d *p = v;
  int64_t nout = p->na + p->nb - 1;
  lbs__conv1d_range(p, chunk_at(nout, t, T), chunk_at(nout, t + 1, T));
}

static lbs_err conv1d_exec(void *ctx, void *params) {
  const tctx *c = ctx;
  return team_run("conv1d.threads", c->T, 0, conv1d_work, params);
}

static void matmul_work(void *v, int t, int T) {
  lbs_k_matmul *p = v;
  lbs__matmul_rows(p, (int)chunk_at(p->m, t, T), (int)chunk_at(p->m, t + 1, T));
}

static lbs_err matmul_exec(void *ctx, void *params) {
  const tctx *c = ctx;
  return team_run("matmul.threads", c->T, 0, matmul_work, params);
}

/* ---------------------------------------------------------------- wave */

typedef struct {
  lbs_k_wave *p;
  double *part; /* 2 T: energy and emax of each thread */
} wave_job;

static void wave_work(void *v, int t, int T) {
  wave_job *j = v;
  lbs__wave_cells(j->p, chunk_at(j->p->ncells, t, T), chunk_at(j->p->ncells, t + 1, T),
                  &j->part[2 * t], &j->part[2 * t + 1]);
}

static lbs_err wave_exec(void *ctx, void *params) {
  const tctx *c = ctx;
  wave_job j = {params, malloc(2 * (size_t)c->T * sizeof(double))};
  if (!j.part) return lbs_fail(LBS_NOMEM, "wave.threads: %d partial sums", c->T);
  lbs_err e = team_run("wave.threads", c->T, 0, wave_work, &j);
  if (!e) {
    double w = 0, m = 0;
    for (int t = 0; t < c->T; t++) {
      w += j.part[2 * t];
      m = j.part[2 * t + 1] > m ? j.part[2 * t + 1] : m;
    }
    j.p->energy = w, j.p->emax = m;
  }
  free(j.part);
  return e;
}

/* ---------------------------------------------------------------- walk */

typedef struct {
  lbs_k_walk *p;
  int64_t *part; /* 2 T: hits and steps of each thread */
} walk_job;

static void walk_work(void *v, int t, int T) {
  walk_job *j = v;
  lbs__walk_range(j->p, chunk_at(j->p->nwalks, t, T), chunk_at(j->p->nwalks, t + 1, T),
                  &j->part[2 * t], &j->part[2 * t + 1]);
}

static lbs_err walk_exec(void *ctx, void *params) {
  const tctx *c = ctx;
  walk_job j = {params, malloc(2 * (size_t)c->T * sizeof(int64_t))};
  if (!j.part) return lbs_fail(LBS_NOMEM, "walk.threads: %d partial counts", c->T);
  lbs_err e = team_run("walk.threads", c->T, 0, walk_work, &j);
  if (!e) {
    int64_t h = 0, s = 0;
    for (int t = 0; t < c->T; t++) h += j.part[2 * t], s += j.part[2 * t + 1];
    j.p->hits = h, j.p->steps = s;
  }
  free(j.part);
  return e;
}

/* ---------------------------------------------------------------- bhforce */

typedef struct {
  lbs_k_bhforce *p;
  int32_t *stack; /* T stacks of nn + 1 entries */
  int64_t nstack;
  int64_t *part; /* T interaction counts */
} bh_job;

static void bh_work(void *v, int t, int T) {
  bh_job *j = v;
  j->part[t] =
      lbs__bhforce_range(j->p, chunk_at(j->p->ntarget, t, T), chunk_at(j->p->ntarget, t + 1, T),
                         j->stack + (size_t)t * (size_t)j->nstack);
}

static lbs_err bhforce_exec(void *ctx, void *params) {
  const tctx *c = ctx;
  bh_job j = {params, NULL, 0, NULL};
  j.nstack = ((const lbs_nb_tree *)j.p->tree)->nn + 1;
  j.stack = malloc((size_t)c->T * (size_t)j.nstack * sizeof *j.stack);
  j.part = malloc((size_t)c->T * sizeof *j.part);
  lbs_err e = LBS_OK;
  if (!j.stack || !j.part)
    e = lbs_fail(LBS_NOMEM, "bhforce.threads: %d stacks of %lld nodes", c->T, (long long)j.nstack);
  if (!e) e = team_run("bhforce.threads", c->T, 0, bh_work, &j);
  if (!e) {
    int64_t s = 0;
    for (int t = 0; t < c->T; t++) s += j.part[t];
    j.p->interactions = s;
  }
  free(j.stack), free(j.part);
  return e;
}

#define THREADS_IMPL(k)                                                                            \
  static const lbs_impl_ops k##_threads = {.kernel = #k,                                           \
                                           .target = "threads",                                    \
                                           .open = threads_open,                                   \
                                           .execute = k##_exec,                                    \
                                           .close = threads_close};
THREADS_IMPL(sort)
THREADS_IMPL(dot)
THREADS_IMPL(conv1d)
THREADS_IMPL(matmul)
THREADS_IMPL(wave)
THREADS_IMPL(walk)
THREADS_IMPL(bhforce)
#undef THREADS_IMPL

const lbs_impl_ops *const lbs__impls_threads[] = {&sort_threads,    &dot_threads,  &conv1d_threads,
                                                  &matmul_threads,  &wave_threads, &walk_threads,
                                                  &bhforce_threads, NULL};
