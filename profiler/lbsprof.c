/* lbsprof.c - the profiling library linked into the application (see lbsprof.h). */
#include "lbsprof.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <papi.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define HAVE_TSC 1
#endif

#include "lbs_traces.h"
#include "prof_int.h"

extern char **environ;

enum { K_TIME, K_CYCLES, K_INSTR, K_PROBE, K_VALUE };

typedef struct {
  char name[32], unit[16];
  int kind;
  void (*begin)(void *);
  double (*end)(void *);
  void *arg;
} metric;

struct lbsprof {
  MPI_Comm comm, node;
  int rank, size, lrank, lsize, nodeid, nnodes;
  lbsprof_opts o;
  char trace_path[4096], agent_path[4096], collector[512], metrics[256];
  lbs_bound bound;  /* the whole path's */
  lbs_codec codec;
  metric m[LBSPROF_MAX_METRICS];
  int M, described, enabled, warned;
  int papi_set, papi_n; /* PAPI event set and its events (cycles first if present) */
  long long papi0[2], papi1[2];
  int64_t n;            /* local elements */
  double *val;          /* M x n */
  int64_t step, sent, dropped;
  int sampled;
  int time_m;           /* the time_ns metric, or -1 */
  int slow;             /* probes or counters to read around each element */
  int use_tsc;          /* time in TSC ticks, converted at step_end */
  uint64_t t0;          /* elem_begin's clock */
  uint64_t tsc0, mono0; /* calibration origin */
  prof_shm *shm;
  size_t shm_bytes;
  char shm_name[64];
  pid_t agent_pid, collector_pid;
  lbs_buf rec;
};

const char *lbsprof_errmsg(void) { return lbs_errmsg(); }

void lbsprof_opts_default(lbsprof_opts *o) {
  memset(o, 0, sizeof *o);
  o->metrics = "time_ns";
  o->sample_every = 1;
  o->bound = LBS_BOUND_DEFAULT;
  o->codec = "auto";
  o->on_full = LBSPROF_WAIT;
  o->ring_bytes = 8u << 20;
}

/* Every rank agrees on failure: the code of the first failing rank (0 if none). */
static int agree(lbsprof *p, int e) {
  int all = e;
  MPI_Allreduce(MPI_IN_PLACE, &all, 1, MPI_INT, MPI_MAX, p->comm);
  if (all && !e) lbs_fail((lbs_err)all, "lbsprof: failed on another rank");
  return all;
}

static int add_metric(lbsprof *p, const char *name, const char *unit, int kind) {
  if (p->described) return -lbs_fail(LBS_INVAL, "lbsprof: metric '%s' comes after the mesh was described", name);
  if (!name || !*name || strlen(name) >= sizeof p->m[0].name)
    return -lbs_fail(LBS_INVAL, "lbsprof: metric names are 1 to 31 characters");
  for (int i = 0; i < p->M; i++)
    if (!strcmp(p->m[i].name, name)) return -lbs_fail(LBS_INVAL, "lbsprof: metric '%s' exists", name);
  if (p->M == LBSPROF_MAX_METRICS) return -lbs_fail(LBS_RANGE, "lbsprof: at most %d metrics", LBSPROF_MAX_METRICS);
  metric *m = &p->m[p->M];
  memset(m, 0, sizeof *m);
  snprintf(m->name, sizeof m->name, "%s", name);
  snprintf(m->unit, sizeof m->unit, "%s", unit ? unit : "");
  m->kind = kind;
  return p->M++;
}

/* PAPI counters: 1 when cycles/instructions can be counted here. */
static int papi_setup(lbsprof *p, int want_cyc, int want_ins) {
  p->papi_set = PAPI_NULL;
  if (PAPI_library_init(PAPI_VER_CURRENT) != PAPI_VER_CURRENT) return 0;
  if (PAPI_create_eventset(&p->papi_set) != PAPI_OK) return 0;
  if ((want_cyc && PAPI_add_event(p->papi_set, PAPI_TOT_CYC) != PAPI_OK) ||
      (want_ins && PAPI_add_event(p->papi_set, PAPI_TOT_INS) != PAPI_OK) || PAPI_start(p->papi_set) != PAPI_OK) {
    PAPI_cleanup_eventset(p->papi_set);
    PAPI_destroy_eventset(&p->papi_set);
    return 0;
  }
  p->papi_n = want_cyc + want_ins;
  return 1;
}

static const char *find_agent(const lbsprof_opts *o) {
  if (o->agent_path) return o->agent_path;
  const char *env = getenv("LBSPROF_AGENT");
  if (env && *env) return env;
  /* installed: PREFIX/lib/liblbsprof.so -> PREFIX/libexec/lbsim/lbsprof-agent */
  static char beside[4096];
  Dl_info info;
  if (dladdr((void *)&lbsprof_init, &info) && info.dli_fname) {
    snprintf(beside, sizeof beside, "%s", info.dli_fname);
    char *slash = strrchr(beside, '/');
    if (slash) {
      *slash = '\0';
      size_t len = strlen(beside);
      snprintf(beside + len, sizeof beside - len, "/../libexec/lbsim/lbsprof-agent");
      if (access(beside, X_OK) == 0) return beside;
    }
  }
#ifdef LBSPROF_AGENT_BUILD
  if (access(LBSPROF_AGENT_BUILD, X_OK) == 0) return LBSPROF_AGENT_BUILD;
#endif
  return NULL;
}

/* The LBSPROF_* variables over the program's options, then the checks; the strings end up in p.
 * A bad variable is an error naming it. */
static lbs_err settle_options(lbsprof *p, const lbsprof_opts *d) {
  lbsprof_opts *o = &p->o;
  const char *v;
  /* codec and bound: the defaults, then what the program set (what differs from the
   * defaults), then the environment; a level that sets one of the pair decides the other */
  lbs_codec c, pc;
  lbs_bound b, pb;
  lbs_codec_from_name(d->codec, &c);
  lbs_bound_parse(d->bound, &b);
  int has_pc = o->codec && strcmp(o->codec, d->codec), has_pb = o->bound && strcmp(o->bound, d->bound);
  if (has_pc && lbs_codec_from_name(o->codec, &pc)) return lbs_fail(LBS_INVAL, "lbsprof: codec: %s", lbs_errmsg());
  if (has_pb && lbs_bound_parse(o->bound, &pb)) return lbs_fail(LBS_INVAL, "lbsprof: bound: %s", lbs_errmsg());
  lbs_encoding_apply(&c, &b, has_pc ? &pc : NULL, has_pb ? &pb : NULL);
  const char *ec = getenv("LBSPROF_CODEC"), *eb = getenv("LBSPROF_BOUND");
  int has_ec = ec && *ec, has_eb = eb && *eb;
  if (has_eb && lbs_bound_parse(eb, &pb)) return lbs_fail(LBS_INVAL, "lbsprof: LBSPROF_BOUND='%s': %s", eb, lbs_errmsg());
  if (has_ec && lbs_codec_from_name(ec, &pc)) return lbs_fail(LBS_INVAL, "lbsprof: LBSPROF_CODEC='%s': %s", ec, lbs_errmsg());
  lbs_encoding_apply(&c, &b, has_ec ? &pc : NULL, has_eb ? &pb : NULL);
  if (lbs_codec_check(c, b)) return lbs_fail(LBS_INVAL, "lbsprof: %s", lbs_errmsg());
  p->codec = c, p->bound = b;
  if ((v = getenv("LBSPROF_SAMPLE_EVERY")) && *v) {
    char *end;
    long k = strtol(v, &end, 10);
    if (*end || k < 1 || k > 1000000000)
      return lbs_fail(LBS_INVAL, "lbsprof: LBSPROF_SAMPLE_EVERY='%s' is not an integer in [1, 1e9]", v);
    o->sample_every = (int)k;
  }
  if ((v = getenv("LBSPROF_COLLECTOR")) && *v) {
    if (strncmp(v, "unix:", 5) && strncmp(v, "tcp:", 4))
      return lbs_fail(LBS_INVAL, "lbsprof: LBSPROF_COLLECTOR='%s' is not unix:/path or tcp:HOST:PORT", v);
    o->collector = v;
  }
  if ((v = getenv("LBSPROF_METRICS")) && *v) o->metrics = v;
  if ((v = getenv("LBSPROF_ON_FULL")) && *v) {
    if (!strcmp(v, "wait")) o->on_full = LBSPROF_WAIT;
    else if (!strcmp(v, "drop")) o->on_full = LBSPROF_DROP;
    else return lbs_fail(LBS_INVAL, "lbsprof: LBSPROF_ON_FULL='%s' is not wait or drop", v);
  }
  if (!o->metrics) o->metrics = d->metrics;
  if (!o->ring_bytes) o->ring_bytes = d->ring_bytes;
  if (o->sample_every < 1) return lbs_fail(LBS_INVAL, "lbsprof: sample_every must be at least 1 (got %d)", o->sample_every);
  if (o->on_full != LBSPROF_WAIT && o->on_full != LBSPROF_DROP) return lbs_fail(LBS_INVAL, "lbsprof: on_full must be WAIT or DROP");
  if (!o->collector && (!o->trace_path || !*o->trace_path))
    return lbs_fail(LBS_INVAL, "lbsprof: give trace_path, or collector (LBSPROF_COLLECTOR) for a running 'lbsim collect'");
  if (!o->collector && p->rank == 0 && access(o->trace_path, F_OK) == 0)
    return lbs_fail(LBS_IO, "lbsprof: %s exists; the profiler does not overwrite traces", o->trace_path);
  if (!o->collector && p->rank == 0 && lbs_parent_writable(o->trace_path))
    return lbs_fail(LBS_IO, "lbsprof: %s", lbs_errmsg()); /* now, not when the run ends */
  if (!find_agent(o)) return lbs_fail(LBS_NOTFOUND, "lbsprof: the lbsprof-agent program is not found (set LBSPROF_AGENT)");
  /* the strings may be the environment's or the caller's: keep copies */
  snprintf(p->trace_path, sizeof p->trace_path, "%s", o->trace_path ? o->trace_path : "");
  snprintf(p->agent_path, sizeof p->agent_path, "%s", find_agent(o));
  snprintf(p->collector, sizeof p->collector, "%s", o->collector ? o->collector : "");
  snprintf(p->metrics, sizeof p->metrics, "%s", o->metrics);
  o->trace_path = p->trace_path, o->agent_path = p->agent_path, o->metrics = p->metrics;
  o->collector = o->collector ? p->collector : NULL;
  o->bound = NULL, o->codec = NULL; /* p->bound and p->codec from here on */
  return LBS_OK;
}

int lbsprof_init(MPI_Comm comm, const lbsprof_opts *opts, lbsprof **out) {
  *out = NULL;
  lbsprof *p = calloc(1, sizeof *p);
  if (!p) return lbs_fail(LBS_NOMEM, "lbsprof");
  lbsprof_opts d;
  lbsprof_opts_default(&d);
  if (opts) p->o = *opts;
  else p->o = d, p->o.bound = NULL, p->o.codec = NULL;
  MPI_Comm_dup(comm, &p->comm);
  MPI_Comm_rank(p->comm, &p->rank);
  MPI_Comm_size(p->comm, &p->size);
  MPI_Comm_split_type(p->comm, MPI_COMM_TYPE_SHARED, p->rank, MPI_INFO_NULL, &p->node);
  MPI_Comm_rank(p->node, &p->lrank);
  MPI_Comm_size(p->node, &p->lsize);
  int leader = p->lrank == 0, idx;
  MPI_Allreduce(&leader, &p->nnodes, 1, MPI_INT, MPI_SUM, p->comm);
  MPI_Scan(&leader, &idx, 1, MPI_INT, MPI_SUM, p->comm);
  p->nodeid = idx - 1; /* leaders numbered in rank order; others take their leader's */
  MPI_Bcast(&p->nodeid, 1, MPI_INT, 0, p->node);
  /* every rank agrees before the probes' collective set-up (rank 0 alone checks the path) */
  lbs_err e = settle_options(p, &d);
  if (agree(p, e)) e = e ? e : LBS_INVAL;
  if (!e) {
    /* built-in probes */
    char list[256];
    snprintf(list, sizeof list, "%s", p->o.metrics);
    int cyc = 0, ins = 0;
    for (char *save, *tok = strtok_r(list, ",", &save); tok && !e; tok = strtok_r(NULL, ",", &save)) {
      if (!strcmp(tok, "time_ns")) e = add_metric(p, "time_ns", "ns", K_TIME) < 0 ? LBS_INVAL : LBS_OK;
      else if (!strcmp(tok, "cycles")) cyc = 1;
      else if (!strcmp(tok, "instructions")) ins = 1;
      else e = lbs_fail(LBS_NOTFOUND, "lbsprof: unknown built-in metric '%s' (known: time_ns, cycles, instructions)", tok);
    }
    if (!e && (cyc || ins)) {
      int ok = papi_setup(p, cyc, ins), all;
      MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, p->comm);
      if (all) {
        if (cyc) add_metric(p, "cycles", "cycles", K_CYCLES);
        if (ins) add_metric(p, "instructions", "instructions", K_INSTR);
      } else {
        if (ok) PAPI_stop(p->papi_set, NULL), PAPI_cleanup_eventset(p->papi_set), PAPI_destroy_eventset(&p->papi_set);
        p->papi_n = 0;
        if (p->rank == 0)
          fprintf(stderr, "lbsprof: warning: hardware counters are not available here (PAPI); the metrics%s%s are left out\n",
                  cyc ? " cycles" : "", ins ? " instructions" : "");
      }
    }
  }
  if (agree(p, e)) {
    e = e ? e : LBS_INVAL;
    MPI_Comm_free(&p->node), MPI_Comm_free(&p->comm);
    free(p);
    return e;
  }
  p->enabled = 1;
  *out = p;
  return 0;
}

int lbsprof_probe_register(lbsprof *p, const char *name, const char *unit, void (*begin)(void *), double (*end)(void *),
                           void *arg) {
  if (!end) return -lbs_fail(LBS_INVAL, "lbsprof: probe '%s' needs an end callback", name ? name : "");
  int id = add_metric(p, name, unit, K_PROBE);
  if (id >= 0) p->m[id].begin = begin, p->m[id].end = end, p->m[id].arg = arg;
  return id;
}

int lbsprof_value_metric(lbsprof *p, const char *name, const char *unit) { return add_metric(p, name, unit, K_VALUE); }

int lbsprof_metric_id(const lbsprof *p, const char *name) {
  for (int i = 0; i < p->M; i++)
    if (!strcmp(p->m[i].name, name)) return i;
  return -1;
}

/* ---------------------------------------------------------------- start-up */

static pid_t spawn(char *const argv[], int keep_fd) {
  posix_spawn_file_actions_t fa;
  posix_spawnattr_t at;
  posix_spawn_file_actions_init(&fa);
  posix_spawnattr_init(&at);
  /* its own session: a signal to the application's process group does not reach it */
  posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSID);
  if (keep_fd >= 0) posix_spawn_file_actions_adddup2(&fa, keep_fd, 3);
  pid_t pid;
  int rc = posix_spawn(&pid, argv[0], &fa, &at, argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&at);
  if (rc) return lbs_fail(LBS_IO, "lbsprof: cannot start %s: %s", argv[0], strerror(rc)), -1;
  return pid;
}

/* Rank 0 starts the collector on a socket it opened itself, so its address is known now. */
static lbs_err start_collector(lbsprof *p, char *addr, size_t addr_len) {
  char want[256], host[200];
  if (p->nnodes == 1) snprintf(want, sizeof want, "unix:/tmp/lbsprof-%d.sock", (int)getpid());
  else {
    gethostname(host, sizeof host);
    host[sizeof host - 1] = '\0';
    snprintf(want, sizeof want, "tcp:%s:0", host);
  }
  int fd = lbs__listen(want, addr, addr_len);
  if (fd < 0) return LBS_IO;
  char nodes[16];
  snprintf(nodes, sizeof nodes, "%d", p->nnodes);
  char *argv[] = {p->agent_path, "collect", "--fd", "3", "--addr", addr, "--nodes", nodes, "-o", p->trace_path, NULL};
  p->collector_pid = spawn(argv, fd);
  close(fd);
  return p->collector_pid < 0 ? LBS_IO : LBS_OK;
}

static lbs_err start_node(lbsprof *p, const char *addr, uint64_t cap) {
  lbs_err e = LBS_OK;
  int pid0 = 0;
  if (p->rank == 0) pid0 = (int)getpid();
  MPI_Bcast(&pid0, 1, MPI_INT, 0, p->comm);
  snprintf(p->shm_name, sizeof p->shm_name, "/lbsprof-%d-%d", pid0, p->nodeid);
  size_t hdr = (sizeof(prof_shm) + (size_t)p->lsize * sizeof(prof_ring) + 4095) & ~(size_t)4095;
  p->shm_bytes = hdr + (size_t)p->lsize * cap;
  if (p->lrank == 0) {
    shm_unlink(p->shm_name);
    int fd = shm_open(p->shm_name, O_CREAT | O_EXCL | O_RDWR, 0600);
    if (fd < 0 || ftruncate(fd, (off_t)p->shm_bytes)) e = lbs_fail(LBS_IO, "lbsprof: shared memory %s: %s", p->shm_name, strerror(errno));
    void *m = e ? MAP_FAILED : mmap(NULL, p->shm_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (fd >= 0) close(fd);
    if (!e && m == MAP_FAILED) e = lbs_fail(LBS_IO, "lbsprof: mmap %s: %s", p->shm_name, strerror(errno));
    if (!e) {
      prof_shm *s = p->shm = m;
      s->magic = LBSPROF_SHM_MAGIC, s->version = LBSPROF_PROTO_VERSION, s->nlocal = p->lsize, s->bytes = p->shm_bytes;
      for (int r = 0; r < p->lsize; r++) s->ring[r].cap = cap, s->ring[r].off = hdr + (uint64_t)r * cap;
      char node[16];
      snprintf(node, sizeof node, "%d", p->nodeid);
      char *argv[] = {p->agent_path, "agent", "--shm", p->shm_name, "--node", node, "--collector", (char *)addr, NULL};
      p->agent_pid = spawn(argv, -1);
      if (p->agent_pid < 0) e = LBS_IO;
      else atomic_store(&s->agent_pid, (int32_t)p->agent_pid);
    }
  }
  int bad = e;
  MPI_Bcast(&bad, 1, MPI_INT, 0, p->node);
  if (bad) return e ? e : lbs_fail(LBS_IO, "lbsprof: the node's shared memory could not be set up");
  if (p->lrank != 0) {
    int fd = shm_open(p->shm_name, O_RDWR, 0);
    void *m = fd < 0 ? MAP_FAILED : mmap(NULL, p->shm_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (fd >= 0) close(fd);
    if (m == MAP_FAILED) return lbs_fail(LBS_IO, "lbsprof: attach %s: %s", p->shm_name, strerror(errno));
    p->shm = m;
  }
  atomic_store(&p->shm->ring[p->lrank].pid, (int32_t)getpid());
  return LBS_OK;
}

/* Puts one record into this rank's ring: waits (or drops) while it is full; 0 on success,
 * 1 when dropped or profiling stopped. */
static int agent_alive(lbsprof *p) {
  /* the node's first rank is the agent's parent: a dead agent is a zombie until it is reaped */
  int status;
  if (p->agent_pid > 0 && waitpid(p->agent_pid, &status, WNOHANG) == p->agent_pid) {
    p->agent_pid = 0;
    atomic_store(&p->shm->agent_state, AGENT_GONE);
  }
  int32_t st = atomic_load(&p->shm->agent_state), pid = atomic_load(&p->shm->agent_pid);
  return st != AGENT_GONE && !(pid > 0 && kill(pid, 0) && errno == ESRCH);
}

static void stop_profiling(lbsprof *p, const char *why) {
  if (!p->warned)
    fprintf(stderr, "lbsprof: warning: rank %d: %s; profiling stops here, the trace keeps the steps completed so far\n",
            p->rank, why);
  p->warned = 1;
  p->enabled = 0;
}

static int put_record(lbsprof *p, uint32_t type, const void *a, size_t alen, const void *b, size_t blen, int may_drop) {
  struct timespec nap = {0, 20000};
  for (int spins = 0;; spins++) {
    if (lbs__ring_write(p->shm, p->lrank, type, a, alen, b, blen)) return 0;
    if (may_drop && p->o.on_full == LBSPROF_DROP) return 1;
    if ((spins & 255) == 0 && !agent_alive(p)) {
      stop_profiling(p, "the node agent is gone");
      return 1;
    }
    nanosleep(&nap, NULL);
  }
}

static void clock_setup(lbsprof *p);

static int describe(lbsprof *p, int kind, const int64_t dims[3], int64_t n, const int64_t *gid, int dim,
                    const double *coords, const int64_t *xadj, const int64_t *adj) {
  if (p->described) return lbs_fail(LBS_INVAL, "lbsprof: the mesh is described already");
  lbs_err e = LBS_OK;
  int64_t E = 0, maxid = -1, mine = n;
  MPI_Allreduce(&mine, &E, 1, MPI_INT64_T, MPI_SUM, p->comm);
  for (int64_t i = 0; i < n; i++) maxid = gid[i] > maxid ? gid[i] : maxid;
  MPI_Allreduce(MPI_IN_PLACE, &maxid, 1, MPI_INT64_T, MPI_MAX, p->comm);
  if (kind == 1 && E != dims[0] * dims[1] * dims[2])
    e = lbs_fail(LBS_INVAL, "lbsprof: the ranks' boxes hold %lld cells, the mesh %lld x %lld x %lld", (long long)E,
                 (long long)dims[0], (long long)dims[1], (long long)dims[2]);
  else if (E < 1) e = lbs_fail(LBS_INVAL, "lbsprof: no elements on any rank");
  else if (maxid != E - 1)
    e = lbs_fail(LBS_INVAL, "lbsprof: element ids must be 0..%lld over all ranks (largest given: %lld)", (long long)E - 1,
                 (long long)maxid);
  p->n = n;
  p->val = calloc((size_t)(n ? n : 1) * (size_t)(p->M ? p->M : 1), sizeof *p->val);
  if (!e && !p->val) e = lbs_fail(LBS_NOMEM, "lbsprof: %lld elements", (long long)n);
  if (!e && p->M == 0) e = lbs_fail(LBS_INVAL, "lbsprof: no metrics to record");
  if ((e = agree(p, e))) return e;
  /* records: META, then MESH {n, dim, has_adj, gid[n], coords[n*dim], deg[n], adj[]} */
  prof_meta meta;
  memset(&meta, 0, sizeof meta);
  meta.elements = E, meta.nmetrics = p->M, meta.codec = (int32_t)p->codec;
  meta.eps = p->bound.eps, meta.bound_kind = (int32_t)p->bound.kind;
  meta.mesh_kind = kind, meta.dim = kind == 2 && coords ? dim : 0;
  int has_adj = kind == 2 && xadj != NULL;
  MPI_Allreduce(MPI_IN_PLACE, &has_adj, 1, MPI_INT, MPI_MIN, p->comm);
  meta.has_adj = has_adj, meta.sample_every = p->o.sample_every, meta.on_full = p->o.on_full;
  meta.nodes = p->nnodes, meta.ranks = p->size;
  for (int k = 0; k < 3; k++) meta.dims[k] = kind == 1 ? dims[k] : 0;
  for (int i = 0; i < p->M; i++) memcpy(meta.name[i], p->m[i].name, 32), memcpy(meta.unit[i], p->m[i].unit, 16);
  lbs_buf mesh = {0};
  int64_t hdr[3] = {n, meta.dim, has_adj}, ne = has_adj ? xadj[n] - xadj[0] : 0;
  e = lbs_buf_append(&mesh, hdr, sizeof hdr);
  if (!e && n) e = lbs_buf_append(&mesh, gid, (size_t)n * sizeof *gid);
  if (!e && meta.dim) e = lbs_buf_append(&mesh, coords, (size_t)(n * meta.dim) * sizeof *coords);
  for (int64_t i = 0; !e && has_adj && i < n; i++) {
    int64_t deg = xadj[i + 1] - xadj[i];
    e = lbs_buf_append(&mesh, &deg, sizeof deg);
  }
  if (!e && ne) e = lbs_buf_append(&mesh, adj + xadj[0], (size_t)ne * sizeof *adj);
  /* ring capacity: two steps of the largest rank, and the mesh record */
  uint64_t need = 2 * lbs__ring_record_bytes(sizeof(prof_step_hdr) + (size_t)(n * p->M) * sizeof(double));
  uint64_t mrec = lbs__ring_record_bytes(mesh.len) + lbs__ring_record_bytes(sizeof meta) + 64;
  uint64_t cap = p->o.ring_bytes > need ? p->o.ring_bytes : need;
  if (mrec > cap) cap = mrec;
  cap = (cap + 4095) & ~(uint64_t)4095;
  MPI_Allreduce(MPI_IN_PLACE, &cap, 1, MPI_UINT64_T, MPI_MAX, p->comm);
  /* the collector (rank 0), then one agent per node */
  char addr[512] = {0};
  if (!e && p->rank == 0) {
    if (p->o.collector) snprintf(addr, sizeof addr, "%s", p->o.collector);
    else e = start_collector(p, addr, sizeof addr);
  }
  if ((e = agree(p, e))) return lbs_buf_free(&mesh), e;
  MPI_Bcast(addr, sizeof addr, MPI_CHAR, 0, p->comm);
  e = start_node(p, addr, cap);
  if ((e = agree(p, e))) return lbs_buf_free(&mesh), e;
  put_record(p, REC_META, &meta, sizeof meta, NULL, 0, 0);
  put_record(p, REC_MESH, mesh.data, mesh.len, NULL, 0, 0);
  lbs_buf_free(&mesh);
  p->described = 1;
  p->sampled = p->enabled;
  p->time_m = lbsprof_metric_id(p, "time_ns");
  if (p->time_m >= 0 && p->m[p->time_m].kind != K_TIME) p->time_m = -1;
  for (int k = 0; k < p->M; k++) p->slow |= p->m[k].kind == K_PROBE || p->m[k].kind == K_CYCLES || p->m[k].kind == K_INSTR;
  clock_setup(p);
  return 0;
}

int lbsprof_mesh_box(lbsprof *p, const int64_t global[3], const int64_t lo[3], const int64_t hi[3]) {
  int64_t n = 1;
  lbs_err e = LBS_OK;
  for (int k = 0; k < 3; k++) {
    if (global[k] < 1 || lo[k] < 0 || hi[k] < lo[k] || hi[k] > global[k])
      e = lbs_fail(LBS_INVAL, "lbsprof: box [%lld, %lld) of dimension %d is outside 0..%lld", (long long)lo[k],
                   (long long)hi[k], k, (long long)global[k]);
    n *= hi[k] - lo[k];
  }
  int64_t *gid = e ? NULL : malloc((size_t)(n ? n : 1) * sizeof *gid);
  if (!e && !gid) e = lbs_fail(LBS_NOMEM, "lbsprof: %lld cells", (long long)n);
  if ((e = agree(p, e))) return free(gid), e;
  int64_t i = 0;
  for (int64_t z = lo[2]; z < hi[2]; z++)
    for (int64_t y = lo[1]; y < hi[1]; y++)
      for (int64_t x = lo[0]; x < hi[0]; x++) gid[i++] = x + global[0] * (y + global[1] * z);
  int rc = describe(p, 1, global, n, gid, 0, NULL, NULL, NULL);
  free(gid);
  return rc;
}

int lbsprof_mesh_elements(lbsprof *p, int64_t n, const int64_t *gid, int dim, const double *coords, const int64_t *xadj,
                          const int64_t *adj) {
  lbs_err e = LBS_OK;
  if (n < 0 || (n && !gid)) e = lbs_fail(LBS_INVAL, "lbsprof: %lld elements without ids", (long long)n);
  else if (coords && (dim < 1 || dim > 3)) e = lbs_fail(LBS_INVAL, "lbsprof: coordinates of dimension %d", dim);
  for (int64_t i = 0; !e && i < n; i++)
    if (gid[i] < 0) e = lbs_fail(LBS_INVAL, "lbsprof: local element %lld has id %lld", (long long)i, (long long)gid[i]);
  if ((e = agree(p, e))) return e;
  static const int64_t none[3] = {0, 0, 0};
  return describe(p, 2, none, n, gid, dim, coords, xadj, adj);
}

/* ---------------------------------------------------------------- measuring */

static uint64_t mono_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static inline uint64_t read_clock(const lbsprof *p) {
#ifdef HAVE_TSC
  if (p->use_tsc) return __rdtsc();
#endif
  return mono_ns();
}

/* The TSC is used when the CPU says it is invariant (constant_tsc and nonstop_tsc) and
 * LBSPROF_CLOCK is not "monotonic": reading it costs a third of clock_gettime here. Ticks are
 * converted with the ratio of monotonic time to ticks since init (calibrated over 2 ms first). */
static void clock_setup(lbsprof *p) {
  p->use_tsc = 0;
#ifdef HAVE_TSC
  const char *env = getenv("LBSPROF_CLOCK");
  FILE *f = fopen("/proc/cpuinfo", "r");
  char line[4096];
  int cst = 0, nst = 0;
  while (f && fgets(line, sizeof line, f))
    if (!strncmp(line, "flags", 5)) {
      cst = strstr(line, " constant_tsc") != NULL, nst = strstr(line, " nonstop_tsc") != NULL;
      break;
    }
  if (f) fclose(f);
  p->use_tsc = cst && nst && !(env && !strcmp(env, "monotonic"));
  if (p->use_tsc) {
    p->mono0 = mono_ns(), p->tsc0 = __rdtsc();
    while (mono_ns() - p->mono0 < 2000000) {
    }
  }
#endif
}

static double ns_per_tick(const lbsprof *p) {
#ifdef HAVE_TSC
  uint64_t m = mono_ns(), t = __rdtsc();
  return t > p->tsc0 ? (double)(m - p->mono0) / (double)(t - p->tsc0) : 1;
#else
  (void)p;
  return 1;
#endif
}

int lbsprof_sampled(const lbsprof *p) { return p->sampled; }

int lbsprof_set_value(lbsprof *p, int metric, int64_t i, double v) {
  if (metric < 0 || metric >= p->M || p->m[metric].kind != K_VALUE || i < 0 || i >= p->n)
    return lbs_fail(LBS_RANGE, "lbsprof: set_value(metric %d, element %lld) is out of range", metric, (long long)i);
  if (p->sampled) p->val[(size_t)metric * (size_t)p->n + (size_t)i] = v;
  return 0;
}

void lbsprof_elem_begin(lbsprof *p, int64_t i) {
  (void)i;
  if (!p->sampled) return;
  if (p->slow) {
    for (int k = 0; k < p->M; k++)
      if (p->m[k].kind == K_PROBE && p->m[k].begin) p->m[k].begin(p->m[k].arg);
    if (p->papi_n) PAPI_read(p->papi_set, p->papi0);
  }
  p->t0 = read_clock(p);
}

void lbsprof_elem_end(lbsprof *p, int64_t i) {
  if (!p->sampled) return;
  uint64_t t1 = read_clock(p);
  if (i < 0 || i >= p->n) return;
  if (p->time_m >= 0) p->val[(size_t)p->time_m * (size_t)p->n + (size_t)i] += (double)(t1 - p->t0);
  if (!p->slow) return;
  if (p->papi_n) PAPI_read(p->papi_set, p->papi1);
  int c = 0;
  for (int k = 0; k < p->M; k++) {
    double *v = &p->val[(size_t)k * (size_t)p->n + (size_t)i];
    switch (p->m[k].kind) {
    case K_CYCLES:
    case K_INSTR: *v += (double)(p->papi1[c] - p->papi0[c]), c++; break;
    case K_PROBE: *v += p->m[k].end(p->m[k].arg); break;
    default: break;
    }
  }
}

int lbsprof_step_end(lbsprof *p) {
  if (!p->described) return lbs_fail(LBS_INVAL, "lbsprof: step_end before the mesh was described");
  if (p->sampled && !agent_alive(p)) stop_profiling(p, "the node agent is gone");
  if (p->sampled && p->enabled) {
    prof_step_hdr h = {p->step, p->step, p->n, p->M, 0};
    if (p->time_m >= 0 && p->use_tsc) { /* ticks to ns */
      double k = ns_per_tick(p), *v = p->val + (size_t)p->time_m * (size_t)p->n;
      for (int64_t i = 0; i < p->n; i++) v[i] *= k;
    }
    if (put_record(p, REC_STEP, &h, sizeof h, p->val, (size_t)(p->n * p->M) * sizeof *p->val, 1)) {
      if (p->enabled) p->dropped++;
    } else {
      p->sent++;
    }
    memset(p->val, 0, (size_t)(p->n * p->M) * sizeof *p->val);
  }
  p->step++;
  p->sampled = p->enabled && p->step % p->o.sample_every == 0;
  return 0;
}

int lbsprof_finalize(lbsprof **pp) {
  lbsprof *p = *pp;
  if (!p) return 0;
  int rc = 0;
  if (p->described) {
    prof_end end = {p->dropped, p->sent, 0, 0};
    if (p->enabled) put_record(p, REC_END, &end, sizeof end, NULL, 0, 0);
    else atomic_store(&p->shm->ring[p->lrank].done, 1); /* the agent need not wait for it */
    if (p->dropped)
      fprintf(stderr, "lbsprof: rank %d dropped %lld sampled steps (ring full)\n", p->rank, (long long)p->dropped);
    if (p->lrank == 0) agent_alive(p); /* reaps an agent that died */
    if (p->lrank == 0 && p->agent_pid > 0) {
      int st;
      while (waitpid(p->agent_pid, &st, 0) < 0 && errno == EINTR) {
      }
      shm_unlink(p->shm_name);
    }
    MPI_Barrier(p->comm);
    if (p->rank == 0 && p->collector_pid > 0) {
      int st = 0;
      while (waitpid(p->collector_pid, &st, 0) < 0 && errno == EINTR) {
      }
      rc = !(WIFEXITED(st) && WEXITSTATUS(st) == 0);
      if (rc) lbs_fail(LBS_IO, "lbsprof: the collector did not complete the trace %s (status %d)", p->trace_path, st);
    }
    MPI_Bcast(&rc, 1, MPI_INT, 0, p->comm);
    munmap(p->shm, p->shm_bytes);
  }
  if (p->papi_n) {
    PAPI_stop(p->papi_set, NULL);
    PAPI_cleanup_eventset(p->papi_set);
    PAPI_destroy_eventset(&p->papi_set);
  }
  lbs_buf_free(&p->rec);
  free(p->val);
  MPI_Comm_free(&p->node);
  MPI_Comm_free(&p->comm);
  free(p);
  *pp = NULL;
  return rc;
}
