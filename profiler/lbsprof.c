/* lbsprof.c - the profiling library linked into the application (see lbsprof.h). */
#include "lbsprof.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <netdb.h>
#include <netinet/in.h>
#include <openssl/crypto.h>
#include <papi.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define HAVE_TSC 1
#endif

#include "lbs_mpi.h"
#include "lbs_traces.h"
#include "prof_int.h"

extern char **environ;

enum { K_TIME, K_CYCLES, K_INSTR, K_PROBE, K_VALUE, K_PHASE };

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
  char trace_path[4096], agent_path[4096], collector[512], metrics[256], token_file[4096],
      bind_host[256];
  char sock_dir[4096];                  /* rank 0's private directory for the collector's socket */
  uint8_t secret[LBSPROF_SECRET_BYTES]; /* the run's (every rank has it) */
  int shm_fd;                           /* the node's segment until it is mapped, else -1 */
  lbs_bound bound;                      /* the whole path's */
  lbs_codec codec;
  metric m[LBSPROF_MAX_METRICS];
  int M, described, enabled, warned;
  int papi_set, papi_n; /* PAPI event set and its events (cycles first if present) */
  long long papi0[2], papi1[2];
  int64_t n;   /* local elements */
  int64_t E;   /* elements over all ranks */
  double *val; /* M x n, then K: the step's record after its header */
  int begun;   /* an element measured or a value set in this sampled step (lbsprof_remap) */
  char ev_name[LBSPROF_MAX_EVENTS][32]; /* the application's events (lbsprof_event_register) */
  int K;
  double ev[LBSPROF_MAX_EVENTS]; /* seconds since the last sampled step's end */
  int ev_out;     /* the event outside_s that the library records itself (describe), or -1 */
  uint64_t mark;  /* the clock when the last lbsprof_step_end began (or the first element's) */
  double ev_step; /* the application's event seconds added since then */
  int ph_m[LBSPROF_MAX_PHASES]; /* the phases' metrics (time_ns.NAME, lbsprof_phase_register) */
  int NP;
  int ph_cur; /* the metric of the selected phase (lbsprof_phase), or -1 */
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
  char app[LBSPROF_APP_META]; /* lbsprof_meta's "key=value\n" lines */
  /* per-step arc weights (lbsprof_meta "edge_weight" = stored@step, lbsprof_edge_weights) */
  int edge_steps;  /* declared */
  int ew_set;      /* this sampled step's weights are in val, after the events */
  int64_t nw;      /* arcs of the local elements (the sum of ldeg) */
  int64_t *gid;    /* with edge_steps: the local elements' ids (for messages) */
  int64_t *ldeg;   /* with edge_steps: their degrees in the mesh */
  int64_t *deg;    /* with edge_steps and elements: every element's degree (box: computed) */
  int64_t dims[3]; /* a box's size */
  pid_t agent_pid, collector_pid;
  int agent_status; /* the reaped agent's wait status (node's first rank) */
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

/* Every rank agrees on failure: the code and message of the first failing rank (0 if none). */
static lbs_err agree(lbsprof *p, lbs_err e) { return lbs_mpi_agree(p->comm, e); }

static int add_metric(lbsprof *p, const char *name, const char *unit, int kind) {
  if (p->described)
    return -lbs_fail(LBS_INVAL, "lbsprof: metric '%s' comes after the mesh was described", name);
  if (!name || !*name || strlen(name) >= sizeof p->m[0].name)
    return -lbs_fail(LBS_INVAL, "lbsprof: metric names are 1 to 31 characters");
  for (int i = 0; i < p->M; i++)
    if (!strcmp(p->m[i].name, name))
      return -lbs_fail(LBS_INVAL, "lbsprof: metric '%s' exists", name);
  if (p->M == LBSPROF_MAX_METRICS)
    return -lbs_fail(LBS_RANGE, "lbsprof: at most %d metrics", LBSPROF_MAX_METRICS);
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
      (want_ins && PAPI_add_event(p->papi_set, PAPI_TOT_INS) != PAPI_OK) ||
      PAPI_start(p->papi_set) != PAPI_OK) {
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

/* The codec and bound into p: the defaults d, then what the program set (what differs from the
 * defaults), then LBSPROF_CODEC and LBSPROF_BOUND; a level that sets one of the pair decides the
 * other. */
static lbs_err settle_encoding(lbsprof *p, const lbsprof_opts *d) {
  lbsprof_opts *o = &p->o;
  lbs_codec c, pc;
  lbs_bound b, pb;
  lbs_codec_from_name(d->codec, &c);
  lbs_bound_parse(d->bound, &b);
  int has_pc = o->codec && strcmp(o->codec, d->codec),
      has_pb = o->bound && strcmp(o->bound, d->bound);
  if (has_pc && lbs_codec_from_name(o->codec, &pc))
    return lbs_fail(LBS_INVAL, "lbsprof: codec: %s", lbs_errmsg());
  if (has_pb && lbs_bound_parse(o->bound, &pb))
    return lbs_fail(LBS_INVAL, "lbsprof: bound: %s", lbs_errmsg());
  lbs_encoding_apply(&c, &b, has_pc ? &pc : NULL, has_pb ? &pb : NULL);
  const char *ec = getenv("LBSPROF_CODEC"), *eb = getenv("LBSPROF_BOUND");
  int has_ec = ec && *ec, has_eb = eb && *eb;
  if (has_eb && lbs_bound_parse(eb, &pb))
    return lbs_fail(LBS_INVAL, "lbsprof: LBSPROF_BOUND='%s': %s", eb, lbs_errmsg());
  if (has_ec && lbs_codec_from_name(ec, &pc))
    return lbs_fail(LBS_INVAL, "lbsprof: LBSPROF_CODEC='%s': %s", ec, lbs_errmsg());
  lbs_encoding_apply(&c, &b, has_ec ? &pc : NULL, has_eb ? &pb : NULL);
  if (lbs_codec_check(c, b)) return lbs_fail(LBS_INVAL, "lbsprof: %s", lbs_errmsg());
  p->codec = c, p->bound = b;
  return LBS_OK;
}

/* The other LBSPROF_* variables over the program's options: the log level (the profiler's
 * agents and collector read the same variable), sampling, collector, token file, bind address,
 * metrics, what a full ring does. The strings stay the environment's. */
static lbs_err read_environment(lbsprof *p) {
  lbsprof_opts *o = &p->o;
  const char *v;
  lbs_log_level level = lbs_log_get_level();
  if (lbs_log_level_from_env("LBSPROF_LOG", &level))
    return lbs_fail(LBS_INVAL, "lbsprof: %s", lbs_errmsg());
  lbs_log_set_level(level);
  if ((v = getenv("LBSPROF_SAMPLE_EVERY")) && *v) {
    int64_t k;
    if (lbs_parse_i64(v, 1, 1000000000, &k))
      return lbs_fail(LBS_INVAL, "lbsprof: LBSPROF_SAMPLE_EVERY='%s' is not an integer in [1, 1e9]",
                      v);
    o->sample_every = (int)k;
  }
  /* the agents' and the collector's numbers, which they read when they start: refused here, before
   * anything starts, rather than read as 0 */
  if (lbs__env_check(LBS_ENV_RETRY_S, LBS_ENV_N))
    return lbs_fail(LBS_INVAL, "lbsprof: %s", lbs_errmsg());
  if ((v = getenv("LBSPROF_COLLECTOR")) && *v) {
    if (strncmp(v, "unix:", 5) && strncmp(v, "tcp:", 4))
      return lbs_fail(LBS_INVAL,
                      "lbsprof: LBSPROF_COLLECTOR='%s' is not unix:/path or tcp:HOST:PORT", v);
    o->collector = v;
  }
  if ((v = getenv("LBSPROF_TOKEN_FILE")) && *v) o->token_file = v;
  if ((v = getenv("LBSPROF_COLLECTOR_BIND")) && *v) {
    if (strlen(v) >= sizeof p->bind_host)
      return lbs_fail(LBS_INVAL, "lbsprof: LBSPROF_COLLECTOR_BIND is too long");
    snprintf(p->bind_host, sizeof p->bind_host, "%s", v);
  }
  if ((v = getenv("LBSPROF_METRICS")) && *v) o->metrics = v;
  /* read by the agents (agent.c), refused here before they start */
  if ((v = getenv("LBSPROF_COMPACT")) && *v && strcmp(v, "auto") && strcmp(v, "stream") &&
      strcmp(v, "deferred"))
    return lbs_fail(LBS_INVAL, "lbsprof: LBSPROF_COMPACT='%s' is not auto, stream or deferred", v);
  if ((v = getenv("LBSPROF_ON_FULL")) && *v) {
    if (!strcmp(v, "wait"))
      o->on_full = LBSPROF_WAIT;
    else if (!strcmp(v, "drop"))
      o->on_full = LBSPROF_DROP;
    else
      return lbs_fail(LBS_INVAL, "lbsprof: LBSPROF_ON_FULL='%s' is not wait or drop", v);
  }
  return LBS_OK;
}

/* The defaults d for what is still unset, then the checks every rank makes: sampling, on_full,
 * somewhere to send the steps, a new trace in a writable folder (rank 0), the agent program. */
static lbs_err check_options(lbsprof *p, const lbsprof_opts *d) {
  lbsprof_opts *o = &p->o;
  if (!o->metrics) o->metrics = d->metrics;
  if (!o->ring_bytes) o->ring_bytes = d->ring_bytes;
  if (o->sample_every < 1)
    return lbs_fail(LBS_INVAL, "lbsprof: sample_every must be at least 1 (got %d)",
                    o->sample_every);
  if (o->on_full != LBSPROF_WAIT && o->on_full != LBSPROF_DROP)
    return lbs_fail(LBS_INVAL, "lbsprof: on_full must be WAIT or DROP");
  if (!o->collector && (!o->trace_path || !*o->trace_path))
    return lbs_fail(
        LBS_INVAL,
        "lbsprof: give trace_path, or collector (LBSPROF_COLLECTOR) for a running 'lbsim collect'");
  if (!o->collector && p->rank == 0 && access(o->trace_path, F_OK) == 0)
    return lbs_fail(LBS_IO, "lbsprof: %s exists; the profiler does not overwrite traces",
                    o->trace_path);
  if (!o->collector && p->rank == 0 && lbs_parent_writable(o->trace_path))
    return lbs_fail(LBS_IO, "lbsprof: %s", lbs_errmsg()); /* now, not when the run ends */
  if (!find_agent(o))
    return lbs_fail(LBS_NOTFOUND,
                    "lbsprof: the lbsprof-agent program is not found (set LBSPROF_AGENT)");
  return LBS_OK;
}

/* Rank 0 checks what it can now, before the application computes: the collector's token and
 * address, or the address to bind, and draws the run's secret when it runs the collector. */
static lbs_err check_rank0(lbsprof *p) {
  lbsprof_opts *o = &p->o;
  if (p->rank == 0 && o->collector) {
    if (!o->token_file || !*o->token_file)
      return lbs_fail(LBS_INVAL,
                      "lbsprof: a collector (%s) needs its token file: set LBSPROF_TOKEN_FILE (or "
                      "opts.token_file) to the file 'lbsim collect' wrote",
                      o->collector);
    if (lbs__token_read(o->token_file, p->secret))
      return lbs_fail(LBS_IO, "lbsprof: %s", lbs_errmsg());
    if (!strncmp(o->collector, "tcp:", 4) && lbs__resolve(o->collector, 0))
      return lbs_fail(LBS_IO, "lbsprof: collector: %s", lbs_errmsg());
  }
  if (p->rank == 0 && !o->collector && p->bind_host[0]) {
    char a[300];
    snprintf(a, sizeof a, "tcp:%s:0", p->bind_host);
    if (lbs__resolve(a, 1))
      return lbs_fail(LBS_IO, "lbsprof: LBSPROF_COLLECTOR_BIND: %s", lbs_errmsg());
  }
  if (p->rank == 0 && !o->collector && lbs__random(p->secret, sizeof p->secret))
    return lbs_fail(LBS_IO, "lbsprof: %s", lbs_errmsg());
  return LBS_OK;
}

/* The strings of p->o may be the environment's or the caller's: p keeps copies and p->o points
 * at them; the codec and bound are p's from here on. */
static void keep_strings(lbsprof *p) {
  lbsprof_opts *o = &p->o;
  snprintf(p->trace_path, sizeof p->trace_path, "%s", o->trace_path ? o->trace_path : "");
  snprintf(p->agent_path, sizeof p->agent_path, "%s", find_agent(o));
  snprintf(p->collector, sizeof p->collector, "%s", o->collector ? o->collector : "");
  snprintf(p->metrics, sizeof p->metrics, "%s", o->metrics);
  o->trace_path = p->trace_path, o->agent_path = p->agent_path, o->metrics = p->metrics;
  o->collector = o->collector ? p->collector : NULL;
  snprintf(p->token_file, sizeof p->token_file, "%s", o->token_file ? o->token_file : "");
  o->token_file = p->token_file;
  o->bound = NULL, o->codec = NULL; /* p->bound and p->codec from here on */
}

/* The LBSPROF_* variables over the program's options, then the checks; the strings end up in p.
 * A bad variable is an error naming it. */
static lbs_err settle_options(lbsprof *p, const lbsprof_opts *d) {
  lbs_err e;
  if ((e = settle_encoding(p, d)) || (e = read_environment(p)) || (e = check_options(p, d)) ||
      (e = check_rank0(p)))
    return e;
  keep_strings(p);
  return LBS_OK;
}

/* The node's shared-memory segment, made in init so that its name is gone when init returns:
 * the node's first rank creates it under a random name (mode 0600, O_EXCL: nothing there is
 * touched), every local rank opens it, then the name is unlinked; each keeps a descriptor,
 * sized and mapped when the mesh is described, and the agent inherits the first rank's. */
static lbs_err open_segment(lbsprof *p) {
  lbs_err e = LBS_OK;
  int pid0 = p->rank == 0 ? (int)getpid() : 0;
  MPI_Bcast(&pid0, 1, MPI_INT, 0, p->comm);
  if (p->lrank == 0) {
    for (int tries = 0; tries < 8; tries++) {
      uint8_t r[8];
      char hex[17];
      if ((e = lbs__random(r, sizeof r))) break;
      lbs__hex(r, sizeof r, hex);
      snprintf(p->shm_name, sizeof p->shm_name, "/lbsprof-%d-%d-%s", pid0, p->nodeid, hex);
      p->shm_fd = shm_open(p->shm_name, O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC, 0600);
      if (p->shm_fd >= 0 || errno != EEXIST) break;
    }
    if (!e && p->shm_fd < 0)
      e = lbs_fail(LBS_IO, "lbsprof: shared memory %s: %s", p->shm_name, strerror(errno));
  }
  if ((e = lbs_mpi_agree(p->node, e))) return e; /* the node's first rank's failure, on the node */
  MPI_Bcast(p->shm_name, sizeof p->shm_name, MPI_CHAR, 0, p->node);
  if (p->lrank != 0 && (p->shm_fd = shm_open(p->shm_name, O_RDWR | O_CLOEXEC, 0)) < 0)
    e = lbs_fail(LBS_IO, "lbsprof: open %s: %s", p->shm_name, strerror(errno));
  MPI_Barrier(p->node);
  if (p->lrank == 0) shm_unlink(p->shm_name); /* ours: made above with O_EXCL */
  return e;
}

/* Collective over comm: p's communicators (a duplicate of comm, and the node's), its ranks in
 * them, the number of nodes and its node's number; leaders are numbered in rank order. */
static void join_ranks(lbsprof *p, MPI_Comm comm) {
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
}

/* The built-in metrics p->o.metrics names (time_ns, cycles, instructions). Collective when the
 * list is good and names cycles or instructions: the counters are kept only where PAPI gives
 * them on every rank, else rank 0 warns and they are left out. An unknown name is this rank's
 * error, not agreed. */
static lbs_err builtin_metrics(lbsprof *p) {
  lbs_err e = LBS_OK;
  char list[256];
  snprintf(list, sizeof list, "%s", p->o.metrics);
  int cyc = 0, ins = 0;
  for (char *save, *tok = strtok_r(list, ",", &save); tok && !e; tok = strtok_r(NULL, ",", &save)) {
    if (!strcmp(tok, "time_ns"))
      e = add_metric(p, "time_ns", "ns", K_TIME) < 0 ? LBS_INVAL : LBS_OK;
    else if (!strcmp(tok, "cycles"))
      cyc = 1;
    else if (!strcmp(tok, "instructions"))
      ins = 1;
    else
      e = lbs_fail(LBS_NOTFOUND,
                   "lbsprof: unknown built-in metric '%s' (known: time_ns, cycles, instructions)",
                   tok);
  }
  if (e || !(cyc || ins)) return e;
  int ok = papi_setup(p, cyc, ins), all;
  MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, p->comm);
  if (all) {
    if (cyc) add_metric(p, "cycles", "cycles", K_CYCLES);
    if (ins) add_metric(p, "instructions", "instructions", K_INSTR);
  } else {
    if (ok)
      PAPI_stop(p->papi_set, NULL), PAPI_cleanup_eventset(p->papi_set),
          PAPI_destroy_eventset(&p->papi_set);
    p->papi_n = 0;
    if (p->rank == 0)
      lbs_log(LBS_LOG_WARN,
              "lbsprof: warning: hardware counters are not available here (PAPI); the metrics%s%s "
              "are left out",
              cyc ? " cycles" : "", ins ? " instructions" : "");
  }
  return LBS_OK;
}

/* Collective over comm (see lbsprof.h): the profiler into *out, the caller's until
 * lbsprof_finalize. The ranks agree on every error, and nothing of p is left after one. */
int lbsprof_init(MPI_Comm comm, const lbsprof_opts *opts, lbsprof **out) {
  *out = NULL;
  lbsprof *p = calloc(1, sizeof *p);
  if (!p) return lbs_fail(LBS_NOMEM, "lbsprof");
  p->ph_cur = -1, p->ev_out = -1;
  lbsprof_opts d;
  lbsprof_opts_default(&d);
  if (opts)
    p->o = *opts;
  else
    p->o = d, p->o.bound = NULL, p->o.codec = NULL;
  join_ranks(p, comm);
  /* every rank agrees before the probes' collective set-up (rank 0 alone checks the path) */
  lbs_err e = agree(p, settle_options(p, &d));
  if (!e) e = builtin_metrics(p);
  p->shm_fd = -1;
  if (!(e = agree(p, e))) {
    MPI_Bcast(p->secret, sizeof p->secret, MPI_BYTE, 0, p->comm);
    e = open_segment(p);
  }
  if ((e = agree(p, e))) {
    if (p->shm_fd >= 0) close(p->shm_fd);
    OPENSSL_cleanse(p->secret, sizeof p->secret);
    MPI_Comm_free(&p->node), MPI_Comm_free(&p->comm);
    free(p);
    return e;
  }
  p->enabled = 1;
  if (p->rank == 0 && lbs_log_enabled(LBS_LOG_DEBUG)) {
    char b[LBS_BOUND_STRLEN];
    lbs_log(LBS_LOG_DEBUG,
            "lbsprof: %d ranks on %d nodes, metrics %s, codec %s, bound %s, sample every %d, to %s",
            p->size, p->nnodes, p->o.metrics, lbs_codec_name(p->codec),
            lbs_bound_format(p->bound, b), p->o.sample_every,
            p->collector[0] ? p->collector : p->trace_path);
  }
  *out = p;
  return 0;
}

int lbsprof_probe_register(lbsprof *p, const char *name, const char *unit, void (*begin)(void *),
                           double (*end)(void *), void *arg) {
  if (!end)
    return -lbs_fail(LBS_INVAL, "lbsprof: probe '%s' needs an end callback", name ? name : "");
  int id = add_metric(p, name, unit, K_PROBE);
  if (id >= 0) p->m[id].begin = begin, p->m[id].end = end, p->m[id].arg = arg;
  return id;
}

int lbsprof_value_metric(lbsprof *p, const char *name, const char *unit) {
  return add_metric(p, name, unit, K_VALUE);
}

int lbsprof_meta(lbsprof *p, const char *key, const char *value) {
  if (!p || !key || !value) return lbs_fail(LBS_INVAL, "lbsprof_meta: a NULL argument");
  if (p->described)
    return lbs_fail(LBS_INVAL, "lbsprof_meta('%s'): after the mesh was described", key);
  size_t kl = strlen(key), vl = strlen(value);
  if (!kl || kl > 64 ||
      strspn(key, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-") != kl)
    return lbs_fail(LBS_INVAL, "lbsprof_meta: key '%.64s' must be 1-64 of [A-Za-z0-9_.-]", key);
  for (size_t i = 0; i < vl; i++)
    if ((unsigned char)value[i] < 0x20 || value[i] == 0x7f)
      return lbs_fail(
          LBS_INVAL, "lbsprof_meta('%s'): the value holds a control character at byte %zu", key, i);
  /* the one key the replay reads as a rule: a value it does not know would fail only there */
  if (!strcmp(key, "edge_weight") && strcmp(value, LBS_EDGE_RULE) && strcmp(value, LBS_EDGE_STEPS))
    return lbs_fail(LBS_INVAL,
                    "lbsprof_meta('edge_weight', '%.64s'): the profiler records the edge rule "
                    "'" LBS_EDGE_RULE "' or weights given per step, '" LBS_EDGE_STEPS "'",
                    value);
  if (!strcmp(key, "edge_weight")) p->edge_steps = !strcmp(value, LBS_EDGE_STEPS);
  /* a key given again replaces its value */
  char *at = p->app;
  while (*at) {
    char *nl = strchr(at, '\n');
    if (!strncmp(at, key, kl) && at[kl] == '=') {
      memmove(at, nl + 1, strlen(nl + 1) + 1);
      continue;
    }
    at = nl + 1;
  }
  size_t used = strlen(p->app);
  if (used + kl + vl + 2 >= sizeof p->app)
    return lbs_fail(LBS_RANGE, "lbsprof_meta('%s'): the application's keys exceed %zu bytes", key,
                    sizeof p->app - 1);
  snprintf(p->app + used, sizeof p->app - used, "%s=%s\n", key, value);
  return 0;
}

int lbsprof_event_register(lbsprof *p, const char *name) {
  if (!p || !name) return -lbs_fail(LBS_INVAL, "lbsprof_event_register: a NULL argument");
  if (p->described)
    return -lbs_fail(LBS_INVAL, "lbsprof_event_register('%.31s'): after the mesh was described",
                     name);
  size_t len = strlen(name);
  if (!len || len > 31 ||
      strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-") != len)
    return -lbs_fail(LBS_INVAL,
                     "lbsprof_event_register: event '%.40s' must be 1-31 of [A-Za-z0-9_.-]", name);
  for (int k = 0; k < p->K; k++)
    if (!strcmp(p->ev_name[k], name))
      return -lbs_fail(LBS_INVAL, "lbsprof_event_register: event '%s' exists", name);
  if (!strcmp(name, LBSPROF_EVENT_OUTSIDE))
    return -lbs_fail(LBS_INVAL,
                     "lbsprof_event_register: the profiler records the event '%s' itself", name);
  /* the last of the trace's events is kept for outside_s */
  if (p->K == LBSPROF_MAX_EVENTS - 1)
    return -lbs_fail(LBS_RANGE, "lbsprof_event_register('%s'): at most %d events", name,
                     LBSPROF_MAX_EVENTS - 1);
  snprintf(p->ev_name[p->K], sizeof p->ev_name[0], "%s", name);
  p->ev[p->K] = 0;
  return p->K++;
}

int lbsprof_event_add(lbsprof *p, int id, double seconds) {
  if (!p || id < 0 || id >= p->K)
    return lbs_fail(LBS_RANGE, "lbsprof_event_add: no event %d (%d registered)", id, p ? p->K : 0);
  if (id == p->ev_out)
    return lbs_fail(LBS_INVAL, "lbsprof_event_add: the profiler records '%s' itself",
                    p->ev_name[id]);
  if (!isfinite(seconds) || seconds < 0)
    return lbs_fail(LBS_INVAL, "lbsprof_event_add('%s', %g): seconds are finite and >= 0",
                    p->ev_name[id], seconds);
  p->ev[id] += seconds;
  p->ev_step += seconds; /* not the step's time outside its elements (lbsprof_step_end) */
  return 0;
}

int lbsprof_phase_register(lbsprof *p, const char *name) {
  if (!p || !name) return -lbs_fail(LBS_INVAL, "lbsprof_phase_register: a NULL argument");
  if (p->described)
    return -lbs_fail(LBS_INVAL, "lbsprof_phase_register('%.23s'): after the mesh was described",
                     name);
  size_t len = strlen(name);
  if (!len || len > 23 ||
      strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-") != len)
    return -lbs_fail(LBS_INVAL,
                     "lbsprof_phase_register: phase '%.40s' must be 1-23 of [A-Za-z0-9_.-]", name);
  int t = lbsprof_metric_id(p, "time_ns");
  if (t < 0 || p->m[t].kind != K_TIME)
    return -lbs_fail(LBS_INVAL,
                     "lbsprof_phase_register('%s'): phases divide the time_ns metric, which this "
                     "run does not measure (opts.metrics / LBSPROF_METRICS)",
                     name);
  char mname[32];
  snprintf(mname, sizeof mname, "time_ns.%s", name);
  for (int k = 0; k < p->NP; k++)
    if (!strcmp(p->m[p->ph_m[k]].name, mname))
      return -lbs_fail(LBS_INVAL, "lbsprof_phase_register: phase '%s' exists", name);
  if (p->NP == LBSPROF_MAX_PHASES)
    return -lbs_fail(LBS_RANGE, "lbsprof_phase_register('%s'): at most %d phases", name,
                     LBSPROF_MAX_PHASES);
  int id = add_metric(p, mname, "ns", K_PHASE);
  if (id < 0) return id;
  p->ph_m[p->NP] = id;
  return p->NP++;
}

int lbsprof_phase(lbsprof *p, int id) {
  if (!p) return lbs_fail(LBS_INVAL, "lbsprof_phase: a NULL profiler");
  if (id >= -1 && id < p->NP) {
    p->ph_cur = id < 0 ? -1 : p->ph_m[id];
    return 0;
  }
  p->ph_cur = -1;
  return lbs_fail(LBS_RANGE, "lbsprof_phase: no phase %d (%d registered)", id, p->NP);
}

/* Collective: every rank registered the same list of what (events or phases) in the same order
 * (rank 0's): names[k] for k < n. The error names this rank's list and rank 0's; not agreed. */
static lbs_err check_list(lbsprof *p, const char *what, int n, const char *const *names) {
  char mine[LBSPROF_MAX_METRICS * 33] = "", first[sizeof mine];
  for (int k = 0; k < n; k++)
    snprintf(mine + strlen(mine), sizeof mine - strlen(mine), "%s%s", k ? "," : "", names[k]);
  memcpy(first, mine, sizeof first);
  MPI_Bcast(first, sizeof first, MPI_CHAR, 0, p->comm);
  if (strcmp(first, mine))
    return lbs_fail(LBS_INVAL,
                    "lbsprof: rank %d registered the %s '%s', rank 0 '%s': every rank "
                    "registers the same %s in the same order",
                    p->rank, what, mine, first, what);
  return LBS_OK;
}

/* Collective: the events, then the phases, checked as above. */
static lbs_err check_events(lbsprof *p) {
  const char *names[LBSPROF_MAX_EVENTS + LBSPROF_MAX_PHASES];
  for (int k = 0; k < p->K; k++) names[k] = p->ev_name[k];
  lbs_err e = agree(p, check_list(p, "events", p->K, names));
  for (int k = 0; k < p->NP; k++) names[k] = p->m[p->ph_m[k]].name + strlen("time_ns.");
  return e ? e : agree(p, check_list(p, "phases", p->NP, names));
}

int lbsprof_metric_id(const lbsprof *p, const char *name) {
  for (int i = 0; i < p->M; i++)
    if (!strcmp(p->m[i].name, name)) return i;
  return -1;
}

/* ---------------------------------------------------------------- start-up */

/* Starts an agent or the collector: keep_fd becomes its descriptor 3, and the run's secret is
 * in its environment only (LBSPROF_SECRET), never on a command line. */
static pid_t spawn(lbsprof *p, char *const argv[], int keep_fd) {
  posix_spawn_file_actions_t fa;
  posix_spawnattr_t at;
  posix_spawn_file_actions_init(&fa);
  posix_spawnattr_init(&at);
  /* its own session: a signal to the application's process group does not reach it */
  posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSID);
  if (keep_fd >= 0) posix_spawn_file_actions_adddup2(&fa, keep_fd, 3);
  size_t n = 0;
  while (environ[n]) n++;
  char **env = malloc((n + 2) * sizeof *env),
       var[sizeof LBSPROF_SECRET_ENV + 2 * LBSPROF_SECRET_BYTES + 1];
  pid_t pid = -1;
  int rc = ENOMEM;
  if (env) {
    size_t k = 0, pre = strlen(LBSPROF_SECRET_ENV);
    for (size_t i = 0; i < n; i++)
      if (strncmp(environ[i], LBSPROF_SECRET_ENV, pre) || environ[i][pre] != '=')
        env[k++] = environ[i];
    snprintf(var, sizeof var, "%s=", LBSPROF_SECRET_ENV);
    lbs__hex(p->secret, sizeof p->secret, var + pre + 1);
    env[k++] = var, env[k] = NULL;
    rc = posix_spawn(&pid, argv[0], &fa, &at, argv, env);
    OPENSSL_cleanse(var, sizeof var);
    free(env);
  }
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&at);
  if (rc) return lbs_fail(LBS_IO, "lbsprof: cannot start %s: %s", argv[0], strerror(rc)), -1;
  /* not the rank's CPU binding (mpiexec binds each rank to a core by default, and a child
   * inherits it): the agent and the collector would take their time from the node's first
   * rank alone, inside its measured elements. Every CPU the node lets this job use instead
   * (the kernel keeps the cpuset's); best effort. */
  cpu_set_t all;
  CPU_ZERO(&all);
  for (int c = 0; c < CPU_SETSIZE; c++) CPU_SET(c, &all);
  sched_setaffinity(pid, sizeof all, &all);
  return pid;
}

/* The address of rank 0's host that the other nodes reach it from: for each other node's name
 * (from MPI), the local address the kernel routes to it from (a UDP connect sends nothing); else
 * the host name's address unless it is a loopback one. */
static lbs_err pick_bind_host(const char *names, int nnodes, char *host, size_t len) {
  for (int k = 1; k < nnodes; k++) {
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_DGRAM}, *res;
    if (getaddrinfo(names + (size_t)k * MPI_MAX_PROCESSOR_NAME, "9", &hints, &res)) continue;
    int fd = socket(res->ai_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    struct sockaddr_storage ss;
    socklen_t sl = sizeof ss;
    int ok =
        fd >= 0 && connect(fd, res->ai_addr, res->ai_addrlen) == 0 &&
        getsockname(fd, (struct sockaddr *)&ss, &sl) == 0 &&
        getnameinfo((struct sockaddr *)&ss, sl, host, (socklen_t)len, NULL, 0, NI_NUMERICHOST) == 0;
    if (fd >= 0) close(fd);
    freeaddrinfo(res);
    if (ok) return LBS_OK;
  }
  struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM}, *res;
  if (!getaddrinfo(names, NULL, &hints, &res)) {
    int ok = 0;
    for (struct addrinfo *r = res; r && !ok; r = r->ai_next) {
      int loop = (r->ai_family == AF_INET &&
                  (ntohl(((struct sockaddr_in *)r->ai_addr)->sin_addr.s_addr) >> 24) == 127) ||
                 (r->ai_family == AF_INET6 &&
                  IN6_IS_ADDR_LOOPBACK(&((struct sockaddr_in6 *)r->ai_addr)->sin6_addr));
      ok = !loop &&
           !getnameinfo(r->ai_addr, r->ai_addrlen, host, (socklen_t)len, NULL, 0, NI_NUMERICHOST);
    }
    freeaddrinfo(res);
    if (ok) return LBS_OK;
  }
  return lbs_fail(
      LBS_IO,
      "lbsprof: cannot tell which address of %s the other nodes reach; set LBSPROF_COLLECTOR_BIND",
      names);
}

/* Rank 0 starts the collector on a socket it opened itself, so its address is known now: a
 * unix socket in a fresh private directory on one node, else TCP on the address that reaches
 * the other nodes (or LBSPROF_COLLECTOR_BIND's). names: the nodes' processor names. */
static lbs_err start_collector(lbsprof *p, const char *names, char *addr, size_t addr_len) {
  char want[4200], host[NI_MAXHOST];
  lbs_err e = LBS_OK;
  if (p->bind_host[0])
    snprintf(want, sizeof want, "tcp:%s:0", p->bind_host);
  else if (p->nnodes > 1) {
    if ((e = pick_bind_host(names, p->nnodes, host, sizeof host))) return e;
    snprintf(want, sizeof want, "tcp:%s:0", host);
  } else {
    const char *tmp = getenv("TMPDIR");
    snprintf(p->sock_dir, sizeof p->sock_dir, "%s/lbsprof-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (strlen(p->sock_dir) + sizeof "/collector.sock" >
        sizeof(((struct sockaddr_un *)0)->sun_path))
      snprintf(p->sock_dir, sizeof p->sock_dir,
               "/tmp/lbsprof-XXXXXX"); /* a TMPDIR too long for a socket path */
    if (!mkdtemp(p->sock_dir)) {       /* mode 0700 */
      e = lbs_fail(LBS_IO, "lbsprof: cannot make a private directory %s: %s", p->sock_dir,
                   strerror(errno));
      p->sock_dir[0] = '\0';
      return e;
    }
    snprintf(want, sizeof want, "unix:%s/collector.sock", p->sock_dir);
  }
  int fd = lbs__listen(want, addr, addr_len);
  if (fd < 0) {
    if (p->sock_dir[0]) rmdir(p->sock_dir), p->sock_dir[0] = '\0';
    return lbs_fail(LBS_IO, "lbsprof: %s", lbs_errmsg());
  }
  char nodes[16];
  snprintf(nodes, sizeof nodes, "%d", p->nnodes);
  char *argv[] = {p->agent_path,
                  "collect",
                  "--fd",
                  "3",
                  "--addr",
                  addr,
                  "--nodes",
                  nodes,
                  "-o",
                  p->trace_path,
                  p->sock_dir[0] ? "--private-dir" : NULL,
                  p->sock_dir,
                  NULL};
  p->collector_pid = spawn(p, argv, fd);
  close(fd);
  if (p->collector_pid < 0 &&
      p->sock_dir[0]) { /* nobody will: the socket and its directory go now */
    unlink(addr + 5), rmdir(p->sock_dir);
    p->sock_dir[0] = '\0';
  }
  return p->collector_pid < 0 ? LBS_IO : LBS_OK;
}

/* How the agents compact (LBSPROF_COMPACT, agent.c), the same on every node: stream or
 * deferred as the variable says, and for auto deferred when any node's ranks have every CPU the
 * job may use there (one node streaming beside one deferring would make the collector hold every
 * step of the run, waiting for the deferring node's parts). The node's first rank counts them by
 * widening its own binding for a moment, as the agent's is widened (spawn), and restores it.
 * Collective. */
static const char *compact_mode(lbsprof *p) {
  const char *v = getenv("LBSPROF_COMPACT");
  if (v && (!strcmp(v, "stream") || !strcmp(v, "deferred"))) return v;
  int defer = 0, cpus = 0;
  cpu_set_t mine, all, got;
  if (p->lrank == 0 && !sched_getaffinity(0, sizeof mine, &mine)) {
    CPU_ZERO(&all);
    for (int c = 0; c < CPU_SETSIZE; c++) CPU_SET(c, &all);
    if (!sched_setaffinity(0, sizeof all, &all) && !sched_getaffinity(0, sizeof got, &got))
      cpus = CPU_COUNT(&got);
    sched_setaffinity(0, sizeof mine, &mine);
    defer = cpus > 0 && cpus <= p->lsize;
  }
  int any = defer;
  MPI_Allreduce(MPI_IN_PLACE, &any, 1, MPI_INT, MPI_MAX, p->comm);
  if (p->lrank == 0)
    lbs_log(LBS_LOG_DEBUG, "lbsprof: node %d: %d local ranks on %d CPUs: %s", p->nodeid, p->lsize,
            cpus,
            defer ? "no spare CPU, compacting after the run"
            : any ? "a spare CPU, but another node has none: compacting after the run"
                  : "a spare CPU, compacting as the steps come");
  return any ? "deferred" : "stream";
}

static lbs_err start_node(lbsprof *p, const char *addr, uint64_t cap, const char *compact) {
  lbs_err e = LBS_OK;
  size_t hdr = (sizeof(prof_shm) + (size_t)p->lsize * sizeof(prof_ring) + 4095) & ~(size_t)4095;
  p->shm_bytes = hdr + (size_t)p->lsize * cap;
  if (p->lrank == 0) {
    if (ftruncate(p->shm_fd, (off_t)p->shm_bytes))
      e = lbs_fail(LBS_IO, "lbsprof: shared memory %s: %s", p->shm_name, strerror(errno));
    void *m =
        e ? MAP_FAILED : mmap(NULL, p->shm_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, p->shm_fd, 0);
    if (!e && m == MAP_FAILED)
      e = lbs_fail(LBS_IO, "lbsprof: mmap %s: %s", p->shm_name, strerror(errno));
    if (!e) {
      prof_shm *s = p->shm = m;
      s->magic = LBSPROF_SHM_MAGIC, s->version = LBSPROF_PROTO_VERSION, s->nlocal = p->lsize,
      s->bytes = p->shm_bytes;
      for (int r = 0; r < p->lsize; r++)
        s->ring[r].cap = cap, s->ring[r].off = hdr + (uint64_t)r * cap;
      char node[16], label[80];
      snprintf(node, sizeof node, "%d", p->nodeid);
      snprintf(label, sizeof label, "%s",
               p->shm_name + 1); /* lbsprof-PID-NODE-RANDOM: names the run in ps */
      char *argv[] = {p->agent_path, "agent",         "--shm-fd", "3",           "--label",
                      label,         "--node",        node,       "--collector", (char *)addr,
                      "--compact",   (char *)compact, NULL};
      p->agent_pid = spawn(p, argv, p->shm_fd);
      if (p->agent_pid < 0)
        e = LBS_IO;
      else
        atomic_store(&s->agent_pid, (int32_t)p->agent_pid);
    }
  }
  if ((e = lbs_mpi_agree(p->node, e))) return e; /* the node's first rank's failure, on the node */
  if (p->lrank != 0) {
    void *m = mmap(NULL, p->shm_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, p->shm_fd, 0);
    if (m == MAP_FAILED)
      return lbs_fail(LBS_IO, "lbsprof: attach %s: %s", p->shm_name, strerror(errno));
    p->shm = m;
  }
  close(p->shm_fd);
  p->shm_fd = -1;
  atomic_store(&p->shm->ring[p->lrank].pid, (int32_t)getpid());
  return LBS_OK;
}

/* Puts one record into this rank's ring: waits (or drops) while it is full; 0 on success,
 * 1 when dropped or profiling stopped. */
static int agent_alive(lbsprof *p) {
  /* the node's first rank is the agent's parent: a dead agent is a zombie until it is reaped */
  int status;
  if (p->agent_pid > 0 && waitpid(p->agent_pid, &status, WNOHANG) == p->agent_pid) {
    p->agent_pid = 0, p->agent_status = status;
    atomic_store(&p->shm->agent_state, AGENT_GONE);
  }
  int32_t st = atomic_load(&p->shm->agent_state), pid = atomic_load(&p->shm->agent_pid);
  return st != AGENT_GONE && !(pid > 0 && kill(pid, 0) && errno == ESRCH);
}

static void stop_profiling(lbsprof *p, const char *why) {
  if (!p->warned)
    lbs_log(
        LBS_LOG_WARN,
        "lbsprof: warning: rank %d: %s; profiling stops here, the trace keeps the steps completed so far",
        p->rank, why);
  p->warned = 1;
  p->enabled = 0;
}

static int put_record(lbsprof *p, uint32_t type, const void *a, size_t alen, const void *b,
                      size_t blen, int may_drop) {
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

/* Collective: counts the elements of every rank into *E and checks the mesh (a box's cells, ids
 * 0..E-1, some metric), then makes this rank's values. The error is this rank's, not agreed. */
static lbs_err check_elements(lbsprof *p, int kind, const int64_t dims[3], int64_t n,
                              const int64_t *gid, int64_t *E) {
  lbs_err e = LBS_OK;
  int64_t maxid = -1, mine = n;
  MPI_Allreduce(&mine, E, 1, MPI_INT64_T, MPI_SUM, p->comm);
  for (int64_t i = 0; i < n; i++) maxid = gid[i] > maxid ? gid[i] : maxid;
  MPI_Allreduce(MPI_IN_PLACE, &maxid, 1, MPI_INT64_T, MPI_MAX, p->comm);
  if (kind == 1 && *E != dims[0] * dims[1] * dims[2])
    e = lbs_fail(LBS_INVAL,
                 "lbsprof: the ranks' boxes hold %lld cells, the mesh %lld x %lld x %lld",
                 (long long)*E, (long long)dims[0], (long long)dims[1], (long long)dims[2]);
  else if (*E < 1)
    e = lbs_fail(LBS_INVAL, "lbsprof: no elements on any rank");
  else if (maxid != *E - 1)
    e = lbs_fail(LBS_INVAL,
                 "lbsprof: element ids must be 0..%lld over all ranks (largest given: %lld)",
                 (long long)*E - 1, (long long)maxid);
  p->n = n, p->E = *E;
  p->val = calloc((size_t)(n ? n : 1) * (size_t)(p->M ? p->M : 1) + (size_t)p->K, sizeof *p->val);
  if (!e && !p->val) e = lbs_fail(LBS_NOMEM, "lbsprof: %lld elements", (long long)n);
  if (!e && p->M == 0) e = lbs_fail(LBS_INVAL, "lbsprof: no metrics to record");
  return e;
}

/* The application's edge rule (lbsprof_meta "edge_weight", whose value it checked) reads the
 * metric LBS_EDGE_RULE_METRIC of each arc's target: the run must record it. The same on every
 * rank (the keys and metrics are). */
static lbs_err check_rule(const lbsprof *p) {
  int has =
      !p->edge_steps && (!strncmp(p->app, "edge_weight=", 12) || strstr(p->app, "\nedge_weight="));
  if (has && lbsprof_metric_id(p, LBS_EDGE_RULE_METRIC) < 0)
    return lbs_fail(LBS_INVAL, "lbsprof: the edge rule " LBS_EDGE_RULE
                               " reads the metric " LBS_EDGE_RULE_METRIC
                               ", which this run does not record (lbsprof_value_metric)");
  return LBS_OK;
}

/* Collective: the run's META record for a mesh of E elements: the encoding, the coordinates'
 * dimension (every rank that has elements gives them, or none does), whether every rank gives
 * its adjacency (*has_adj), the sampling, the metrics. The same error on every rank. */
static lbs_err make_meta(lbsprof *p, int kind, const int64_t dims[3], int64_t n, int dim,
                         const double *coords, const int64_t *xadj, const double *adjw, int64_t E,
                         prof_meta *meta, int *has_adj) {
  memset(meta, 0, sizeof *meta);
  meta->elements = E, meta->nmetrics = p->M, meta->codec = (int32_t)p->codec;
  meta->eps = p->bound.eps, meta->bound_kind = (int32_t)p->bound.kind;
  /* coordinates from every rank that has elements, or from none */
  int cd[2] = {n > 0 ? (kind == 2 && coords ? dim : 0) : -1,
               n > 0 ? -(kind == 2 && coords ? dim : 0) : -4};
  MPI_Allreduce(MPI_IN_PLACE, cd, 2, MPI_INT, MPI_MAX, p->comm);
  if (cd[0] != -cd[1] && cd[0] >= 0)
    return lbs_fail(
        LBS_INVAL,
        "lbsprof: the ranks disagree on coordinates (dimensions %d and %d); give them on every "
        "rank or on none",
        -cd[1], cd[0]);
  meta->mesh_kind = kind, meta->dim = cd[0] > 0 ? cd[0] : 0;
  *has_adj = kind == 2 && xadj != NULL;
  MPI_Allreduce(MPI_IN_PLACE, has_adj, 1, MPI_INT, MPI_MIN, p->comm);
  meta->has_adj = *has_adj, meta->sample_every = p->o.sample_every, meta->on_full = p->o.on_full;
  /* arc weights from every rank or from none, as the coordinates: a trace's arcs all weigh what
   * the application says, or all weigh 1 */
  int wt[2] = {n > 0 ? adjw != NULL : 1, n > 0 ? adjw != NULL : 0}; /* a rank with none: either */
  MPI_Allreduce(MPI_IN_PLACE, wt, 1, MPI_INT, MPI_MIN, p->comm);
  MPI_Allreduce(MPI_IN_PLACE, wt + 1, 1, MPI_INT, MPI_MAX, p->comm);
  if (wt[0] != wt[1])
    return lbs_fail(LBS_INVAL, "lbsprof: some ranks give arc weights and some do not; give them "
                               "on every rank or on none");
  if (wt[0] && !*has_adj)
    return lbs_fail(LBS_INVAL, "lbsprof: arc weights without the adjacency they weigh");
  meta->adj_weights = wt[0];
  /* weights per step weigh the mesh's arcs: a box has its own, elements must give them */
  if (p->edge_steps && kind == 2 && !*has_adj)
    return lbs_fail(LBS_INVAL,
                    "lbsprof: edge_weight = " LBS_EDGE_STEPS " weighs the mesh's arcs, but the "
                    "elements have no adjacency (give xadj and adj on every rank)");
  meta->edge_steps = p->edge_steps;
  meta->nodes = p->nnodes, meta->ranks = p->size;
  for (int k = 0; k < 3; k++) meta->dims[k] = kind == 1 ? dims[k] : 0;
  for (int i = 0; i < p->M; i++)
    memcpy(meta->name[i], p->m[i].name, 32), memcpy(meta->unit[i], p->m[i].unit, 16);
  /* rank 0's; the collector checks every node gives the same */
  memcpy(meta->app, p->app, sizeof meta->app);
  meta->nevents = p->K;
  for (int k = 0; k < p->K; k++) memcpy(meta->event[k], p->ev_name[k], 32);
  for (int k = 0; k < p->NP; k++) meta->phases |= 1u << p->ph_m[k];
  return check_rule(p);
}

/* Collective: this rank's MESH record into mesh, {n, dim, has_adj, rank, gid[n],
 * coords[n*dim], deg[n], adj[], adjw[]} (prof_int.h), and into meta the adjacency entries of all
 * ranks (the collector's bound on a mesh). The error is this rank's. */
static lbs_err pack_mesh(lbsprof *p, int64_t n, const int64_t *gid, const double *coords,
                         const int64_t *xadj, const int64_t *adj, const double *adjw, int has_adj,
                         prof_meta *meta, lbs_buf *mesh) {
  int64_t hdr[4] = {n, meta->dim, has_adj, p->rank}, ne = has_adj ? xadj[n] - xadj[0] : 0;
  MPI_Allreduce(&ne, &meta->adj_entries, 1, MPI_INT64_T, MPI_SUM, p->comm);
  lbs_err e = lbs_buf_append(mesh, hdr, sizeof hdr);
  if (!e && n) e = lbs_buf_append(mesh, gid, (size_t)n * sizeof *gid);
  if (!e && meta->dim) e = lbs_buf_append(mesh, coords, (size_t)(n * meta->dim) * sizeof *coords);
  for (int64_t i = 0; !e && has_adj && i < n; i++) {
    int64_t deg = xadj[i + 1] - xadj[i];
    e = lbs_buf_append(mesh, &deg, sizeof deg);
  }
  if (!e && ne) e = lbs_buf_append(mesh, adj + xadj[0], (size_t)ne * sizeof *adj);
  if (!e && ne && meta->adj_weights)
    e = lbs_buf_append(mesh, adjw + xadj[0], (size_t)ne * sizeof *adjw);
  return e;
}

/* Collective: the rings' capacity, the same on every rank: two steps of the largest rank (this
 * rank's: step_d doubles after the header, step_doubles), and the mesh record (mesh_bytes) with
 * the META one, at least ring_bytes, in whole pages. */
static uint64_t ring_capacity(lbsprof *p, size_t step_d, size_t mesh_bytes) {
  uint64_t need = 2 * lbs__ring_record_bytes(sizeof(prof_step_hdr) + step_d * sizeof(double));
  uint64_t mrec =
      lbs__ring_record_bytes(mesh_bytes) + lbs__ring_record_bytes(sizeof(prof_meta)) + 64;
  uint64_t cap = p->o.ring_bytes > need ? p->o.ring_bytes : need;
  if (mrec > cap) cap = mrec;
  cap = (cap + 4095) & ~(uint64_t)4095;
  MPI_Allreduce(MPI_IN_PLACE, &cap, 1, MPI_UINT64_T, MPI_MAX, p->comm);
  return cap;
}

/* Collective: the nodes' leaders send rank 0 their names, and rank 0 puts the collector's
 * address in addr (addr_len bytes): the one given, or that of the collector it starts. e is
 * the error so far: the names still travel, the collector is not started. Returns this rank's
 * error, not agreed. */
static lbs_err reach_collector(lbsprof *p, lbs_err e, char *addr, size_t addr_len) {
  char me[MPI_MAX_PROCESSOR_NAME] = {0}, *names = NULL;
  int len, leader = p->lrank == 0;
  MPI_Get_processor_name(me, &len);
  MPI_Comm lead;
  MPI_Comm_split(p->comm, leader ? 0 : MPI_UNDEFINED, p->rank, &lead);
  if (leader) { /* rank 0 leads node 0, the leaders are numbered in rank order */
    int have =
        p->rank == 0 ? (names = calloc((size_t)p->nnodes, MPI_MAX_PROCESSOR_NAME)) != NULL : 1;
    MPI_Bcast(&have, 1, MPI_INT, 0, lead); /* every leader gathers, or none does */
    if (have)
      MPI_Gather(me, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, names, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, 0,
                 lead);
    else if (p->rank == 0)
      e = lbs_fail(LBS_NOMEM, "lbsprof: the nodes' names");
    MPI_Comm_free(&lead);
  }
  if (!e && p->rank == 0) {
    if (p->o.collector)
      snprintf(addr, addr_len, "%s", p->o.collector);
    else
      e = start_collector(p, names, addr, addr_len);
  }
  free(names);
  return e;
}

/* Sampling starts once the mesh is described: which metric is the step's time, whether any
 * metric is slow to read, the clock. */
static void start_sampling(lbsprof *p) {
  p->described = 1;
  p->sampled = p->enabled;
  p->time_m = lbsprof_metric_id(p, "time_ns");
  if (p->time_m >= 0 && p->m[p->time_m].kind != K_TIME) p->time_m = -1;
  for (int k = 0; k < p->M; k++)
    p->slow |= p->m[k].kind == K_PROBE || p->m[k].kind == K_CYCLES || p->m[k].kind == K_INSTR;
  clock_setup(p);
}

/* ---------------------------------------------------------------- arc weights per step */

/* The degree of cell g of a box of dims in the trace's graph: its face neighbours inside the
 * box (traces/mesh.c, structured_graph). */
static int64_t box_degree(const int64_t dims[3], int64_t g) {
  int64_t c[3] = {g % dims[0], (g / dims[0]) % dims[1], g / (dims[0] * dims[1])}, d = 0;
  for (int k = 0; k < 3; k++) d += (c[k] > 0) + (c[k] + 1 < dims[k]);
  return d;
}

/* Element g's degree in the mesh (with stored@step). */
static int64_t degree_of(const lbsprof *p, int64_t g) {
  return p->deg ? p->deg[g] : box_degree(p->dims, g);
}

/* The arcs of the n elements gid: what a step's weights hold (0 without stored@step). */
static int64_t arcs_of(const lbsprof *p, int64_t n, const int64_t *gid) {
  int64_t nw = 0;
  for (int64_t i = 0; p->edge_steps && i < n; i++) nw += degree_of(p, gid[i]);
  return nw;
}

/* The doubles of a step record after its header: M x n values, K events, nw arc weights. */
static size_t step_doubles(const lbsprof *p, int64_t n, int64_t nw) {
  return (size_t)(n * p->M + p->K + nw);
}

/* A rank's layout: n elements, their values (step_doubles, zeroed) and, with stored@step, their
 * ids and degrees and their nw arcs. */
typedef struct {
  int64_t n, nw, *gid, *deg;
  double *val;
} layout_mem;

/* Makes the layout of n elements gid into l (nothing of p changes); LBS_NOMEM. */
static lbs_err layout_new(const lbsprof *p, int64_t n, const int64_t *gid, layout_mem *l) {
  size_t cells = (size_t)(n ? n : 1);
  *l = (layout_mem){n, arcs_of(p, n, gid), NULL, NULL, NULL};
  l->val = calloc(cells * (size_t)(p->M ? p->M : 1) + (size_t)p->K + (size_t)l->nw, sizeof *l->val);
  if (p->edge_steps)
    l->gid = malloc(cells * sizeof *l->gid), l->deg = malloc(cells * sizeof *l->deg);
  if (!l->val || (p->edge_steps && (!l->gid || !l->deg))) {
    free(l->val), free(l->gid), free(l->deg);
    return lbs_fail(LBS_NOMEM, "lbsprof: %lld elements", (long long)n);
  }
  for (int64_t i = 0; p->edge_steps && i < n; i++)
    l->gid[i] = gid[i], l->deg[i] = degree_of(p, gid[i]);
  return LBS_OK;
}

/* l in force from now (p takes its arrays). */
static void layout_use(lbsprof *p, layout_mem *l) {
  free(p->val), free(p->gid), free(p->ldeg);
  p->val = l->val, p->gid = l->gid, p->ldeg = l->deg, p->n = l->n, p->nw = l->nw;
  p->ew_set = 0;
}

/* Collective, with stored@step: every element's degree (a box's are computed; elements' are
 * summed over the ranks into an E-sized array, each rank adding its own), then this rank's
 * layout with room for its arcs' weights. Agreed. */
static lbs_err edge_setup(lbsprof *p, int kind, const int64_t dims[3], int64_t n,
                          const int64_t *gid, const int64_t *xadj) {
  free(p->deg), p->deg = NULL; /* a failed description may be retried */
  lbs_err e = LBS_OK;
  if (kind == 1)
    memcpy(p->dims, dims, sizeof p->dims);
  else if (!(p->deg = calloc((size_t)p->E, sizeof *p->deg)))
    e = lbs_fail(LBS_NOMEM, "lbsprof: the degrees of %lld elements", (long long)p->E);
  if ((e = agree(p, e))) return e;
  for (int64_t i = 0; p->deg && i < n; i++) p->deg[gid[i]] = xadj[i + 1] - xadj[i];
  for (int64_t at = 0; p->deg && at < p->E; at += 1 << 27) { /* MPI counts are ints */
    int len = (int)(p->E - at < (1 << 27) ? p->E - at : (1 << 27));
    MPI_Allreduce(MPI_IN_PLACE, p->deg + at, len, MPI_INT64_T, MPI_SUM, p->comm);
  }
  layout_mem l;
  if ((e = agree(p, layout_new(p, n, gid, &l)))) return e;
  layout_use(p, &l);
  return LBS_OK;
}

/* lbsprof_edge_weights' checks of xadj and w against this rank's elements: the error names the
 * rank, the element (local index and id) and the arc. */
static lbs_err check_weights(const lbsprof *p, const int64_t *xadj, const double *w) {
  if (!xadj || (p->nw && !w))
    return lbs_fail(LBS_INVAL, "lbsprof_edge_weights: rank %d gives no %s", p->rank,
                    xadj ? "weights" : "xadj");
  if (xadj[0] != 0)
    return lbs_fail(LBS_INVAL, "lbsprof_edge_weights: rank %d's xadj[0] is %lld, not 0", p->rank,
                    (long long)xadj[0]);
  for (int64_t i = 0; i < p->n; i++) {
    int64_t d = xadj[i + 1] - xadj[i];
    if (d < 0)
      return lbs_fail(LBS_INVAL,
                      "lbsprof_edge_weights: rank %d's xadj decreases at local element %lld "
                      "(element %lld): %lld, then %lld",
                      p->rank, (long long)i, (long long)p->gid[i], (long long)xadj[i],
                      (long long)xadj[i + 1]);
    if (d != p->ldeg[i])
      return lbs_fail(LBS_INVAL,
                      "lbsprof_edge_weights: rank %d's element %lld (local %lld) has %lld arcs in "
                      "the mesh, xadj gives it %lld",
                      p->rank, (long long)p->gid[i], (long long)i, (long long)p->ldeg[i],
                      (long long)d);
  }
  for (int64_t i = 0; i < p->n; i++)
    for (int64_t k = xadj[i]; k < xadj[i + 1]; k++)
      if (!isfinite(w[k]) || w[k] < 0)
        return lbs_fail(LBS_INVAL,
                        "lbsprof_edge_weights: rank %d's arc %lld of element %lld (local %lld) "
                        "weighs %g: arc weights are finite and >= 0",
                        p->rank, (long long)(k - xadj[i]), (long long)p->gid[i], (long long)i,
                        w[k]);
  return LBS_OK;
}

/* Collective: describes the mesh (kind 1: a box of dims, 2: elements with ids, coordinates and
 * adjacency): checks it, makes the META and MESH records, sizes the rings, starts the collector
 * (rank 0) and an agent per node, sends them the records, and starts sampling. */
static int describe(lbsprof *p, int kind, const int64_t dims[3], int64_t n, const int64_t *gid,
                    int dim, const double *coords, const int64_t *xadj, const int64_t *adj,
                    const double *adjw) {
  if (p->described) return lbs_fail(LBS_INVAL, "lbsprof: the mesh is described already");
  int64_t E = 0;
  lbs_err e = check_events(p); /* agreed */
  if (e) return e;
  /* outside_s, the last event, where the run measures time_ns (the same on every rank: the
   * metrics are): the step's time outside its elements (lbsprof_step_end) */
  int t = lbsprof_metric_id(p, "time_ns");
  if (t >= 0 && p->m[t].kind == K_TIME && p->ev_out < 0) { /* once: a failed call may be retried */
    snprintf(p->ev_name[p->K], sizeof p->ev_name[0], "%s", LBSPROF_EVENT_OUTSIDE);
    p->ev[p->K] = 0, p->ev_out = p->K++;
  }
  e = check_elements(p, kind, dims, n, gid, &E);
  if ((e = agree(p, e))) return e;
  prof_meta meta;
  int has_adj;
  if ((e = make_meta(p, kind, dims, n, dim, coords, xadj, adjw, E, &meta, &has_adj))) return e;
  if (p->edge_steps && (e = edge_setup(p, kind, dims, n, gid, xadj))) return e;
  lbs_buf mesh = {0};
  e = pack_mesh(p, n, gid, coords, xadj, adj, adjw, has_adj, &meta, &mesh);
  uint64_t cap = ring_capacity(p, step_doubles(p, n, p->nw), mesh.len);
  /* the collector (rank 0), then one agent per node; rank 0 learns the nodes' names */
  char addr[512] = {0};
  e = reach_collector(p, e, addr, sizeof addr);
  if ((e = agree(p, e))) return lbs_buf_free(&mesh), e;
  MPI_Bcast(addr, sizeof addr, MPI_CHAR, 0, p->comm);
  e = start_node(p, addr, cap, compact_mode(p));
  if ((e = agree(p, e))) return lbs_buf_free(&mesh), e;
  put_record(p, REC_META, &meta, sizeof meta, NULL, 0, 0);
  put_record(p, REC_MESH, mesh.data, mesh.len, NULL, 0, 0);
  lbs_buf_free(&mesh);
  start_sampling(p);
  return 0;
}

int lbsprof_mesh_box(lbsprof *p, const int64_t global[3], const int64_t lo[3],
                     const int64_t hi[3]) {
  int64_t n = 1;
  lbs_err e = LBS_OK;
  for (int k = 0; k < 3; k++) {
    if (global[k] < 1 || lo[k] < 0 || hi[k] < lo[k] || hi[k] > global[k])
      e = lbs_fail(LBS_INVAL, "lbsprof: box [%lld, %lld) of dimension %d is outside 0..%lld",
                   (long long)lo[k], (long long)hi[k], k, (long long)global[k]);
    n *= hi[k] - lo[k];
  }
  int64_t *gid = e ? NULL : malloc((size_t)(n ? n : 1) * sizeof *gid);
  if (!e && !gid) e = lbs_fail(LBS_NOMEM, "lbsprof: %lld cells", (long long)n);
  if ((e = agree(p, e))) return free(gid), e;
  int64_t i = 0;
  for (int64_t z = lo[2]; z < hi[2]; z++)
    for (int64_t y = lo[1]; y < hi[1]; y++)
      for (int64_t x = lo[0]; x < hi[0]; x++) gid[i++] = x + global[0] * (y + global[1] * z);
  int rc = describe(p, 1, global, n, gid, 0, NULL, NULL, NULL, NULL);
  free(gid);
  return rc;
}

int lbsprof_mesh_weighted(lbsprof *p, int64_t n, const int64_t *gid, int dim, const double *coords,
                          const int64_t *xadj, const int64_t *adj, const double *adjw) {
  lbs_err e = LBS_OK;
  if (n < 0 || (n && !gid))
    e = lbs_fail(LBS_INVAL, "lbsprof: %lld elements without ids", (long long)n);
  else if (coords && (dim < 1 || dim > 3))
    e = lbs_fail(LBS_INVAL, "lbsprof: coordinates of dimension %d", dim);
  else if (adjw && (!xadj || (n && xadj[n] > xadj[0] && !adj)))
    e = lbs_fail(LBS_INVAL, "lbsprof: arc weights without the adjacency they weigh");
  for (int64_t i = 0; !e && i < n; i++)
    if (gid[i] < 0)
      e = lbs_fail(LBS_INVAL, "lbsprof: local element %lld has id %lld", (long long)i,
                   (long long)gid[i]);
  /* here, where the element and the arc can be named: the collector only sees a bad record */
  for (int64_t i = 0; !e && adjw && i < n; i++)
    for (int64_t k = xadj[i]; !e && k < xadj[i + 1]; k++)
      if (!isfinite(adjw[k]) || adjw[k] < 0)
        e = lbs_fail(LBS_INVAL,
                     "lbsprof: arc %lld -> %lld (local element %lld) weighs %g: arc weights are "
                     "finite and >= 0",
                     (long long)gid[i], (long long)adj[k], (long long)i, adjw[k]);
  if ((e = agree(p, e))) return e;
  static const int64_t none[3] = {0, 0, 0};
  return describe(p, 2, none, n, gid, dim, coords, xadj, adj, adjw);
}

int lbsprof_mesh_elements(lbsprof *p, int64_t n, const int64_t *gid, int dim, const double *coords,
                          const int64_t *xadj, const int64_t *adj) {
  return lbsprof_mesh_weighted(p, n, gid, dim, coords, xadj, adj, NULL);
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
    while (mono_ns() - p->mono0 < 2000000) {}
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
    return lbs_fail(LBS_RANGE, "lbsprof: set_value(metric %d, element %lld) is out of range",
                    metric, (long long)i);
  if (p->sampled) p->val[(size_t)metric * (size_t)p->n + (size_t)i] = v, p->begun = 1;
  return 0;
}

int lbsprof_edge_weights(lbsprof *p, const int64_t *xadj, const double *w) {
  if (!p) return lbs_fail(LBS_INVAL, "lbsprof_edge_weights: a NULL profiler");
  if (!p->edge_steps)
    return lbs_fail(LBS_INVAL, "lbsprof_edge_weights: the run did not declare lbsprof_meta(p, "
                               "\"edge_weight\", \"" LBS_EDGE_STEPS "\") before its mesh");
  if (!p->described)
    return lbs_fail(LBS_INVAL, "lbsprof_edge_weights: before the mesh was described");
  if (!p->sampled || !p->enabled) return 0;
  p->ew_set = 0; /* a bad call records nothing for the step, not even an earlier call's */
  lbs_err e = check_weights(p, xadj, w);
  if (e) return e;
  if (p->nw)
    memcpy(p->val + (size_t)p->n * (size_t)p->M + (size_t)p->K, w, (size_t)p->nw * sizeof *w);
  p->ew_set = 1, p->begun = 1;
  return 0;
}

void lbsprof_elem_begin(lbsprof *p, int64_t i) {
  (void)i;
  if (!p->sampled) return;
  p->begun = 1;
  if (p->slow) {
    for (int k = 0; k < p->M; k++)
      if (p->m[k].kind == K_PROBE && p->m[k].begin) p->m[k].begin(p->m[k].arg);
    if (p->papi_n) PAPI_read(p->papi_set, p->papi0);
  }
  p->t0 = read_clock(p);
  if (!p->mark) p->mark = p->t0; /* the first step starts at its first element */
}

void lbsprof_elem_end(lbsprof *p, int64_t i) {
  if (!p->sampled) return;
  uint64_t t1 = read_clock(p);
  if (i < 0 || i >= p->n) return;
  if (p->time_m >= 0) {
    double d = (double)(t1 - p->t0);
    p->val[(size_t)p->time_m * (size_t)p->n + (size_t)i] += d;
    if (p->ph_cur >= 0) p->val[(size_t)p->ph_cur * (size_t)p->n + (size_t)i] += d;
  }
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

/* The step's time outside its elements, in seconds (the event outside_s): the wall time from
 * the last lbsprof_step_end's start (the first element's for the first step) to now, less the
 * elements' measured times (time_ns, in clock units) and the application's events added
 * meanwhile (its partitioning and migration are charged as themselves). It holds what the
 * trace does not: halo packing and MPI calls, the code between element loops, the profiler's
 * own work per element and per step, and waiting for slower ranks at exchanges. k: ns a unit. */
static double outside_s(const lbsprof *p, uint64_t now, double k) {
  if (!p->mark || now < p->mark) return 0;
  const double *v = p->val + (size_t)p->time_m * (size_t)p->n;
  double in = 0;
  for (int64_t i = 0; i < p->n; i++) in += v[i];
  double s = ((double)(now - p->mark) - in) * k * 1e-9 - p->ev_step;
  return s > 0 ? s : 0; /* events the application times otherwise may exceed the wall time */
}

int lbsprof_step_end(lbsprof *p) {
  if (!p->described) return lbs_fail(LBS_INVAL, "lbsprof: step_end before the mesh was described");
  /* first: what follows is the profiler's work of this step, charged to the next one's
   * outside time (the profiled run's steps include it) */
  uint64_t now = read_clock(p);
  if (p->sampled && !agent_alive(p)) stop_profiling(p, "the node agent is gone");
  if (p->sampled && p->enabled) {
    prof_step_hdr h = {p->step, p->step, p->n, p->M, p->K, p->ew_set ? p->nw : -1};
    size_t nv = (size_t)(p->n * p->M); /* the values, then the events since the last sample */
    size_t nd = step_doubles(p, p->n, p->ew_set ? p->nw : 0); /* and the arcs' weights given */
    double k = p->use_tsc ? ns_per_tick(p) : 1;
    /* this step's own (an unsampled step's elements are not measured: it has none) */
    if (p->ev_out >= 0) p->ev[p->ev_out] = outside_s(p, now, k);
    memcpy(p->val + nv, p->ev, (size_t)p->K * sizeof *p->ev);
    if (p->time_m >= 0 && p->use_tsc) { /* ticks to ns: time_ns and its phases */
      for (int m = 0; m < p->M; m++) {
        double *v = p->val + (size_t)m * (size_t)p->n;
        if (m == p->time_m || p->m[m].kind == K_PHASE)
          for (int64_t i = 0; i < p->n; i++) v[i] *= k;
      }
    }
    if (put_record(p, REC_STEP, &h, sizeof h, p->val, nd * sizeof *p->val, 1)) {
      if (p->enabled) p->dropped++; /* the events go on to the next sampled step */
    } else {
      p->sent++;
      memset(p->ev, 0, sizeof p->ev);
    }
    memset(p->val, 0, nv * sizeof *p->val);
  }
  p->mark = now, p->ev_step = 0;
  p->step++, p->begun = 0, p->ew_set = 0;
  p->sampled = p->enabled && p->step % p->o.sample_every == 0;
  return 0;
}

/* Collective: do the ranks' new elements, n here and ids gid, cover the mesh's 0..E-1 once each?
 * The ids are counted in an E-sized array summed over the ranks; the first element on no rank or
 * on several is named. The same error on every rank. */
static lbs_err check_remap(lbsprof *p, int64_t n, const int64_t *gid) {
  int64_t tot = 0, steps[2] = {p->step, -p->step};
  MPI_Allreduce(&n, &tot, 1, MPI_INT64_T, MPI_SUM, p->comm);
  MPI_Allreduce(MPI_IN_PLACE, steps, 2, MPI_INT64_T, MPI_MAX, p->comm);
  if (steps[0] != -steps[1])
    return lbs_fail(LBS_INVAL,
                    "lbsprof_remap: the ranks are at different steps (%lld and %lld); every rank "
                    "remaps after the same lbsprof_step_end",
                    (long long)-steps[1], (long long)steps[0]);
  if (tot != p->E)
    return lbs_fail(LBS_INVAL,
                    "lbsprof_remap: the ranks give %lld elements in all, the mesh has %lld: every "
                    "element must be on one rank",
                    (long long)tot, (long long)p->E);
  lbs_err e = LBS_OK;
  for (int64_t i = 0; !e && i < n; i++)
    if (gid[i] < 0 || gid[i] >= p->E)
      e = lbs_fail(LBS_INVAL,
                   "lbsprof_remap: rank %d's local element %lld has id %lld, outside 0..%lld",
                   p->rank, (long long)i, (long long)gid[i], (long long)p->E - 1);
  int *count = e ? NULL : calloc((size_t)p->E, sizeof *count);
  if (!e && !count) e = lbs_fail(LBS_NOMEM, "lbsprof_remap: %lld elements", (long long)p->E);
  if ((e = agree(p, e))) return free(count), e;
  for (int64_t i = 0; i < n; i++) count[gid[i]]++;
  for (int64_t at = 0; at < p->E; at += 1 << 28) { /* MPI counts are ints */
    int len = (int)(p->E - at < (1 << 28) ? p->E - at : (1 << 28));
    MPI_Allreduce(MPI_IN_PLACE, count + at, len, MPI_INT, MPI_SUM, p->comm);
  }
  for (int64_t g = 0; !e && g < p->E; g++)
    if (count[g] != 1)
      e = lbs_fail(
          LBS_INVAL,
          "lbsprof_remap: element %lld is given %d times over the ranks (each must be given once)",
          (long long)g, count[g]);
  free(count);
  return e;
}

/* Collective (lbsprof.h): the rank's elements from the next step on. Checked on every rank
 * first; then the values are sized for n and the node agent told (REC_REMAP). */
int lbsprof_remap(lbsprof *p, int64_t n, const int64_t *gid) {
  lbs_err e = LBS_OK;
  if (!p->described)
    e = lbs_fail(LBS_INVAL, "lbsprof_remap: before the mesh was described");
  else if (n < 0 || (n && !gid))
    e = lbs_fail(LBS_INVAL, "lbsprof_remap: rank %d gives %lld elements%s", p->rank, (long long)n,
                 n < 0 ? "" : " without ids");
  else if (p->begun)
    e = lbs_fail(
        LBS_INVAL,
        "lbsprof_remap: rank %d is in the middle of step %lld (elements measured or values "
        "set); call it after lbsprof_step_end",
        p->rank, (long long)p->step);
  if ((e = agree(p, e)) || (e = agree(p, check_remap(p, n, gid)))) return e;
  /* a step of the largest rank (its elements' arcs too), and the remap record, must fit the
   * rings sized at the mesh */
  int64_t most[2] = {n, (int64_t)step_doubles(p, n, arcs_of(p, n, gid))};
  MPI_Allreduce(MPI_IN_PLACE, most, 2, MPI_INT64_T, MPI_MAX, p->comm);
  uint64_t need = lbs__ring_record_bytes(sizeof(prof_step_hdr) + (size_t)most[1] * sizeof(double));
  if (lbs__ring_record_bytes(16 + (size_t)most[0] * sizeof *gid) > need)
    need = lbs__ring_record_bytes(16 + (size_t)most[0] * sizeof *gid);
  if (need > p->shm->ring[p->lrank].cap)
    e = lbs_fail(
        LBS_RANGE,
        "lbsprof_remap: a rank would hold %lld elements, whose step takes %llu bytes, over "
        "its ring of %llu bytes sized when the mesh was described: set opts.ring_bytes to "
        "at least %llu",
        (long long)most[0], (unsigned long long)need,
        (unsigned long long)p->shm->ring[p->lrank].cap, (unsigned long long)need);
  layout_mem l = {0};
  if (!e) e = layout_new(p, n, gid, &l);
  if ((e = agree(p, e))) return free(l.val), free(l.gid), free(l.deg), e;
  layout_use(p, &l);
  int64_t h[2] = {p->step, n};
  if (p->enabled) put_record(p, REC_REMAP, h, sizeof h, gid, (size_t)n * sizeof *gid, 0);
  return 0;
}

int lbsprof_finalize(lbsprof **pp) {
  lbsprof *p = *pp;
  if (!p) return 0;
  int rc = 0;
  if (p->described) {
    prof_end end = {p->dropped, p->sent, 0, 0};
    if (p->enabled)
      put_record(p, REC_END, &end, sizeof end, NULL, 0, 0);
    else
      atomic_store(&p->shm->ring[p->lrank].done, 1); /* the agent need not wait for it */
    if (p->dropped)
      lbs_log(LBS_LOG_WARN, "lbsprof: rank %d dropped %lld sampled steps (ring full)", p->rank,
              (long long)p->dropped);
    if (p->lrank == 0) agent_alive(p); /* reaps an agent that died */
    if (p->lrank == 0 && p->agent_pid > 0) {
      int st;
      while (waitpid(p->agent_pid, &st, 0) < 0 && errno == EINTR) {}
      p->agent_status = st;
    }
    /* an agent that gave up, lost a rank or died did not deliver every step */
    lbs_err agent_e = LBS_OK;
    if (p->lrank == 0 && !(WIFEXITED(p->agent_status) && WEXITSTATUS(p->agent_status) == 0))
      agent_e = lbs_fail(
          LBS_IO, "lbsprof: a node agent did not deliver every step (see its messages above)");
    agent_e = agree(p, agent_e);
    MPI_Barrier(p->comm);
    lbs_err coll_e = LBS_OK; /* rank 0's: the collector's outcome, whose message comes first */
    if (p->rank == 0 && p->collector_pid > 0) {
      int st = 0;
      while (waitpid(p->collector_pid, &st, 0) < 0 && errno == EINTR) {}
      if (!(WIFEXITED(st) && WEXITSTATUS(st) == 0))
        coll_e =
            lbs_fail(LBS_IO, "lbsprof: the collector did not complete the trace %s (status %d)",
                     p->trace_path, st);
    }
    if (p->sock_dir[0]) { /* the collector removes them; this is in case it could not */
      char sock[4200];
      struct stat sb;
      snprintf(sock, sizeof sock, "%s/collector.sock", p->sock_dir);
      if (lstat(sock, &sb) == 0 && S_ISSOCK(sb.st_mode)) unlink(sock);
      rmdir(p->sock_dir);
    }
    /* without the collector's failure, the agents' message stands */
    rc = agree(p, coll_e) || agent_e;
    munmap(p->shm, p->shm_bytes);
  }
  if (p->papi_n) {
    PAPI_stop(p->papi_set, NULL);
    PAPI_cleanup_eventset(p->papi_set);
    PAPI_destroy_eventset(&p->papi_set);
  }
  if (p->shm_fd >= 0) close(p->shm_fd);
  OPENSSL_cleanse(p->secret, sizeof p->secret);
  lbs_buf_free(&p->rec);
  free(p->val), free(p->gid), free(p->ldeg), free(p->deg);
  MPI_Comm_free(&p->node);
  MPI_Comm_free(&p->comm);
  free(p);
  *pp = NULL;
  return rc;
}
