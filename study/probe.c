/* probe.c - the machine measured with short real MPI calls and written as a grid file
 * (lbs_probe.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zoltan.h>

#include "lbs_grid.h"
#include "lbs_mpi.h"
#include "lbs_part.h"
#include "lbs_probe.h"
#include "study_int.h"

static int cmp_d(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp_d);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Least squares y = a + b x weighted by 1 / y^2 (relative errors: the small samples count as
 * much as the large ones); *rms the relative RMS residual. */
static void fit_line(const double *x, const double *y, int n, double *a, double *b, double *rms) {
  double s = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (int i = 0; i < n; i++) {
    double w = y[i] > 0 ? 1 / (y[i] * y[i]) : 1;
    s += w, sx += w * x[i], sy += w * y[i], sxx += w * x[i] * x[i], sxy += w * x[i] * y[i];
  }
  double d = s * sxx - sx * sx;
  *b = d != 0 ? (s * sxy - sx * sy) / d : 0;
  *a = (sy - *b * sx) / s;
  double r = 0;
  for (int i = 0; i < n; i++) {
    double e = (y[i] - (*a + *b * x[i])) / (y[i] > 0 ? y[i] : 1);
    r += e * e;
  }
  *rms = sqrt(r / n);
}

/* Ping-pong between ranks a and b of comm (collective: every rank calls it; the others wait). */
static void ping_pong(MPI_Comm comm, int a, int b, int quick, char *buf, lbs_probe_link *pp) {
  int rank;
  MPI_Comm_rank(comm, &rank);
  memset(pp, 0, sizeof *pp);
  pp->measured = 1;
  for (int k = 0; k < LBS_PROBE_SIZES; k++) {
    int len = k == 0 ? 8 : 1024 << (k - 1);
    int reps = len <= 65536 ? (quick ? 30 : 200) : (quick ? 6 : 30);
    double t[200];
    for (int r = -3; r < reps; r++) { /* 3 warm-up round trips */
      double t0 = MPI_Wtime();
      if (rank == a) {
        MPI_Send(buf, len, MPI_BYTE, b, 7, comm);
        MPI_Recv(buf, len, MPI_BYTE, b, 7, comm, MPI_STATUS_IGNORE);
      } else if (rank == b) {
        MPI_Recv(buf, len, MPI_BYTE, a, 7, comm, MPI_STATUS_IGNORE);
        MPI_Send(buf, len, MPI_BYTE, a, 7, comm);
      }
      if (r >= 0) t[r] = (MPI_Wtime() - t0) / 2 * 1e6;
    }
    double us = rank == a ? median(t, reps) : 0;
    MPI_Bcast(&us, 1, MPI_DOUBLE, a, comm);
    pp->size[k] = len, pp->oneway_us[k] = us;
  }
  /* latency: the smallest message; bandwidth: the slope over 64 KiB and more */
  pp->latency_us = pp->oneway_us[0];
  double a0, slope;
  int n = LBS_PROBE_SIZES - 7;
  fit_line(pp->size + 7, pp->oneway_us + 7, n, &a0, &slope, &pp->fit_rms);
  pp->bandwidth_gbps =
      slope > 0 ? 8.0 / (slope * 1e3)
                : 8.0 * pp->size[LBS_PROBE_SIZES - 1] / (pp->oneway_us[LBS_PROBE_SIZES - 1] * 1e3);
}

/* The nodes: ranks sharing memory, each node's first rank in first[] and its ranks in p->cores.
 * LBS_INVAL when a node's ranks are not numbered one after the other. */
static lbs_err nodes_of(MPI_Comm comm, lbs_probe *p, int *first) {
  int rank, size = p->ranks, leader;
  MPI_Comm node;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
  leader = rank;
  MPI_Bcast(&leader, 1, MPI_INT, 0, node); /* node k's first rank */
  MPI_Comm_free(&node);
  int *leaders = malloc((size_t)size * sizeof *leaders), contiguous = 1;
  p->cores = calloc((size_t)size, sizeof *p->cores);
  if (!leaders || !p->cores)
    return free(leaders), lbs_fail(LBS_NOMEM, "grid probe: %d ranks", size);
  MPI_Allgather(&leader, 1, MPI_INT, leaders, 1, MPI_INT, comm);
  for (int r = 0; r < size; r++) {
    if (r == 0 || leaders[r] != leaders[r - 1]) {
      for (int k = 0; k < p->nodes; k++)
        if (first[k] == leaders[r]) contiguous = 0;
      first[p->nodes++] = leaders[r];
    }
    p->cores[p->nodes - 1]++;
  }
  free(leaders);
  if (!contiguous)
    return lbs_fail(
        LBS_INVAL,
        "the ranks are not numbered node by node (as lbsim numbers processors); map them by "
        "slot (mpiexec --map-by slot)");
  return LBS_OK;
}

/* One MPI_Barrier over all ranks: the median of batches of 100, the slowest rank's. */
static double barrier_us(MPI_Comm comm, int quick) {
  double bt[40];
  int nb = quick ? 10 : 40;
  for (int i = 0; i < 100; i++) MPI_Barrier(comm);
  for (int k = 0; k < nb; k++) {
    double t0 = MPI_Wtime();
    for (int i = 0; i < 100; i++) MPI_Barrier(comm);
    bt[k] = (MPI_Wtime() - t0) / 100 * 1e6;
  }
  MPI_Allreduce(MPI_IN_PLACE, bt, nb, MPI_DOUBLE, MPI_MAX, comm);
  return median(bt, nb);
}

/* The partitioner on a 3-D box of E cells with unit weights, one part per rank: the median of
 * its runs' times (the slowest rank's), in us. */
static lbs_err part_time(MPI_Comm comm, lbs_partitioner *part, int64_t E, int quick, double *us) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  int64_t f0 = E * rank / size, f1 = E * (rank + 1) / size, n = f1 - f0, side = 1, m = n ? n : 1;
  while (side * side * side < E) side++;
  int64_t *gid = malloc((size_t)m * sizeof *gid), *rf = malloc((size_t)(size + 1) * sizeof *rf);
  double *w = malloc((size_t)m * sizeof *w), *co = malloc((size_t)(3 * m) * sizeof *co);
  int *cur = malloc((size_t)m * sizeof *cur), *np = malloc((size_t)m * sizeof *np);
  double *ps = malloc((size_t)size * sizeof *ps);
  lbs_err e = !gid || !rf || !w || !co || !cur || !np || !ps
                  ? lbs_fail(LBS_NOMEM, "grid probe: %lld elements", (long long)E)
                  : LBS_OK;
  for (int r = 0; !e && r <= size; r++) rf[r] = E * r / size;
  for (int p = 0; !e && p < size; p++) ps[p] = 1.0 / size;
  for (int64_t i = 0; !e && i < n; i++) {
    int64_t id = f0 + i;
    gid[i] = id, w[i] = 1, cur[i] = rank;
    co[3 * i] = (double)(id % side), co[3 * i + 1] = (double)(id / side % side),
           co[3 * i + 2] = (double)(id / side / side);
  }
  e = lbs_mpi_agree(comm, e);
  lbs_part_input in = {.comm = comm,
                       .nlocal = n,
                       .gid = gid,
                       .weight = w,
                       .dim = 3,
                       .coords = co,
                       .rank_first = rf,
                       .current = cur,
                       .nparts = size,
                       .part_sizes = ps};
  double t[7];
  int reps = quick ? 3 : 7;
  for (int r = 0; r < reps && !e; r++) {
    MPI_Barrier(comm);
    double t0 = MPI_Wtime();
    lbs_err pe = lbs_part_run(part, &in, np);
    t[r] = MPI_Wtime() - t0;
    MPI_Allreduce(MPI_IN_PLACE, &t[r], 1, MPI_DOUBLE, MPI_MAX, comm);
    e = lbs_mpi_agree(comm, pe); /* the first failing rank's code and message */
  }
  *us = e ? 0 : median(t, reps) * 1e6;
  free(gid), free(rf), free(w), free(co), free(cur), free(np), free(ps);
  return e;
}

/* The partitioner at 4 sizes, fitted as fixed + per element. */
static lbs_err part_fit(MPI_Comm comm, lbs_partitioner *part, int quick, lbs_probe *p) {
  static const int64_t sizes[4] = {4096, 16384, 65536, 262144};
  lbs_err e = LBS_OK;
  for (int k = 0; k < 4 && !e; k++) {
    p->part_elems[k] = (double)sizes[k];
    e = part_time(comm, part, sizes[k], quick, &p->part_us[k]);
  }
  if (e) {
    char why[1024];
    snprintf(why, sizeof why, "%s", *lbs_errmsg() ? lbs_errmsg() : lbs_strerror(e));
    return lbs_fail(e, "the partitioner: %s", why);
  }
  double slope;
  fit_line(p->part_elems, p->part_us, 4, &p->part_fixed_us, &slope, &p->part_rms);
  if (p->part_fixed_us < 0)
    p->part_fixed_us = 0; /* a fit below zero at E = 0: no fixed cost to speak of */
  p->part_per_elem_ns = slope < 0 ? 0 : slope * 1e3;
  return LBS_OK;
}

/* The migration samples: elements each rank exports (and imports), x bytes per element. */
static const int mig_counts[3] = {512, 2048, 8192}, mig_sizes[3] = {64, 512, 4096};

/* The elements the callbacks pack and unpack: nslots of size bytes, each its own allocation, as
 * an application's elements are (the exported ones freed after packing, the imported ones
 * allocated as they are unpacked); next: the slot the next import takes. */
typedef struct mig_store {
  char **slot;
  int nslots, size, next, fail;
} mig_store;

static int mig_size(void *d, int ng, int nl, ZOLTAN_ID_PTR gid, ZOLTAN_ID_PTR lid, int *ierr) {
  (void)ng, (void)nl, (void)gid, (void)lid;
  *ierr = ZOLTAN_OK;
  return ((const mig_store *)d)->size;
}

static void mig_pack(void *d, int ng, int nl, ZOLTAN_ID_PTR gid, ZOLTAN_ID_PTR lid, int dest,
                     int size, char *buf, int *ierr) {
  const mig_store *m = d;
  (void)ng, (void)nl, (void)gid, (void)dest;
  memcpy(buf, m->slot[*lid], (size_t)size);
  *ierr = ZOLTAN_OK;
}

/* Between packing and unpacking: the exported elements leave. */
static void mig_mid(void *d, int ng, int nl, int nimp, ZOLTAN_ID_PTR igid, ZOLTAN_ID_PTR ilid,
                    int *iproc, int *ipart, int nexp, ZOLTAN_ID_PTR egid, ZOLTAN_ID_PTR elid,
                    int *eproc, int *epart, int *ierr) {
  mig_store *m = d;
  (void)ng, (void)nl, (void)nimp, (void)igid, (void)ilid, (void)iproc, (void)ipart, (void)egid,
      (void)eproc, (void)epart;
  for (int k = 0; k < nexp; k++) free(m->slot[elid[k]]), m->slot[elid[k]] = NULL;
  m->next = 0;
  *ierr = ZOLTAN_OK;
}

static void mig_unpack(void *d, int ng, ZOLTAN_ID_PTR gid, int size, char *buf, int *ierr) {
  mig_store *m = d;
  (void)ng, (void)gid;
  char *at = m->next < m->nslots ? calloc(1, (size_t)size) : NULL;
  if (at) memcpy(at, buf, (size_t)size), m->slot[m->next++] = at;
  m->fail |= !at;
  *ierr = at ? ZOLTAN_OK : ZOLTAN_MEMERR;
}

/* Least squares y = c[0] + c[1] x1 + c[2] x2 over the columns use[] says (the others 0),
 * unweighted: absolute errors, so the large samples set the slopes (unlike fit_line, see
 * migration()); *rms the relative RMS residual. */
static void fit_plane(const double *x1, const double *x2, const double *y, int n, const int use[3],
                      double c[3], double *rms) {
  double A[3][4] = {{0}};
  for (int i = 0; i < n; i++) {
    double w = 1, v[3] = {1, x1[i], x2[i]};
    for (int r = 0; r < 3; r++) {
      for (int k = 0; k < 3; k++) A[r][k] += w * v[r] * v[k];
      A[r][3] += w * v[r] * y[i];
    }
  }
  for (int r = 0; r < 3; r++) /* a column not used: its unknown pinned to 0 */
    if (!use[r]) {
      for (int k = 0; k < 4; k++) A[r][k] = 0;
      for (int k = 0; k < 3; k++) A[k][r] = 0;
      A[r][r] = 1;
    }
  for (int col = 0; col < 3; col++) { /* Gauss-Jordan with partial pivoting */
    int piv = col;
    for (int r = col + 1; r < 3; r++)
      if (fabs(A[r][col]) > fabs(A[piv][col])) piv = r;
    for (int k = 0; k < 4; k++) {
      double t = A[col][k];
      A[col][k] = A[piv][k], A[piv][k] = t;
    }
    if (A[col][col] == 0) continue;
    for (int r = 0; r < 3; r++)
      if (r != col) {
        double f = A[r][col] / A[col][col];
        for (int k = 0; k < 4; k++) A[r][k] -= f * A[col][k];
      }
  }
  for (int r = 0; r < 3; r++) c[r] = A[r][r] != 0 && use[r] ? A[r][3] / A[r][r] : 0;
  double q = 0;
  for (int i = 0; i < n; i++) {
    double e = (y[i] - (c[0] + c[1] * x1[i] + c[2] * x2[i])) / (y[i] > 0 ? y[i] : 1);
    q += e * e;
  }
  *rms = sqrt(q / n);
}

/* One sample: each rank exports count elements of size bytes, spread over the other ranks, and
 * imports as many, with Zoltan_Migrate and pack/unpack callbacks (as applications migrate); the
 * median of repeats of the slowest rank's time, in us. */
static lbs_err mig_sample(MPI_Comm comm, struct Zoltan_Struct *zz, int count, int size, int quick,
                          double *us) {
  int rank, P;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &P);
  mig_store m = {calloc((size_t)count, sizeof(char *)), count, size, 0, 0};
  ZOLTAN_ID_PTR eg = malloc((size_t)count * sizeof *eg), el = malloc((size_t)count * sizeof *el),
                ig = malloc((size_t)count * sizeof *ig), il = malloc((size_t)count * sizeof *il);
  int *ep = malloc((size_t)count * sizeof *ep), *ip = malloc((size_t)count * sizeof *ip),
      *epart = malloc((size_t)count * sizeof *epart),
      *ipart = malloc((size_t)count * sizeof *ipart), ni = 0, bad = 0;
  for (int i = 0; m.slot && i < count; i++)
    if ((m.slot[i] = malloc((size_t)size)))
      memset(m.slot[i], rank, (size_t)size);
    else
      bad = 1;
  lbs_err e = lbs_mpi_agree(comm, bad || !m.slot || !eg || !el || !ig || !il || !ep || !ip ||
                                          !epart || !ipart
                                      ? lbs_fail(LBS_NOMEM, "grid probe: %d elements", count)
                                      : LBS_OK);
  /* element i of rank r (global id r * count + i) goes to rank r + 1 + i % (P - 1), mod P */
  for (int i = 0; !e && i < count; i++) {
    eg[i] = (ZOLTAN_ID_TYPE)rank * (ZOLTAN_ID_TYPE)count + (ZOLTAN_ID_TYPE)i;
    el[i] = (ZOLTAN_ID_TYPE)i, ep[i] = epart[i] = (rank + 1 + i % (P - 1)) % P;
  }
  for (int src = 0; !e && src < P; src++)
    for (int i = (rank - src - 1 + 2 * P) % P; src != rank && i < count; i += P - 1) {
      ig[ni] = (ZOLTAN_ID_TYPE)src * (ZOLTAN_ID_TYPE)count + (ZOLTAN_ID_TYPE)i;
      il[ni] = (ZOLTAN_ID_TYPE)i, ip[ni] = src, ipart[ni] = rank, ni++;
    }
  if (!e) {
    Zoltan_Set_Obj_Size_Fn(zz, mig_size, &m);
    Zoltan_Set_Pack_Obj_Fn(zz, mig_pack, &m);
    Zoltan_Set_Mid_Migrate_PP_Fn(zz, mig_mid, &m);
    Zoltan_Set_Unpack_Obj_Fn(zz, mig_unpack, &m);
  }
  double t[7];
  int reps = quick ? 3 : 7;
  /* one warm-up; every element leaves and as many arrive, so each repeat starts as the first */
  for (int r = -1; !e && r < reps; r++) {
    MPI_Barrier(comm);
    double t0 = MPI_Wtime();
    int rc = Zoltan_Migrate(zz, ni, ig, il, ip, ipart, count, eg, el, ep, epart);
    double dt = MPI_Wtime() - t0;
    e = lbs_mpi_agree(comm, rc != ZOLTAN_OK || m.fail || m.next != count
                                ? lbs_fail(LBS_INVAL, "grid probe: Zoltan_Migrate failed")
                                : LBS_OK);
    MPI_Allreduce(MPI_IN_PLACE, &dt, 1, MPI_DOUBLE, MPI_MAX, comm);
    if (r >= 0) t[r] = dt;
  }
  if (!e) *us = median(t, reps) * 1e6;
  for (int i = 0; m.slot && i < count; i++) free(m.slot[i]);
  free(m.slot), free(eg), free(el), free(ig), free(il), free(ep), free(ip), free(epart),
      free(ipart);
  return e;
}

/* Migrations at 3 element counts x 3 element sizes, fitted as fixed + per element + bytes at a
 * rate, elements and bytes counted as the replay counts them: those a rank sends or receives.
 * Fitted on absolute errors: a migration's cost is not linear in its bytes (a few hundred KB
 * stay in cache; megabytes go through fresh buffers and memory at a fraction of the rate), and
 * the replay's migrations are megabytes (apps/wave's: 1.5-5 MB), so the large samples must set
 * the rate rather than the microsecond ones a relative-error fit follows. */
static lbs_err migration(MPI_Comm comm, int quick, lbs_probe *p) {
  float ver;
  char *argv0[] = {"lbsim", NULL};
  if (Zoltan_Initialize(1, argv0, &ver) != ZOLTAN_OK)
    return lbs_fail(LBS_INVAL, "grid probe: Zoltan_Initialize failed");
  struct Zoltan_Struct *zz = Zoltan_Create(comm);
  lbs_err e = lbs_mpi_agree(comm, zz ? LBS_OK : lbs_fail(LBS_NOMEM, "grid probe: Zoltan_Create"));
  if (!e) Zoltan_Set_Param(zz, "DEBUG_LEVEL", "0");
  for (int k = 0; !e && k < LBS_PROBE_MIG; k++) {
    int count = mig_counts[k / 3], size = mig_sizes[k % 3];
    p->mig_elems[k] = 2.0 * count, p->mig_bytes[k] = 2.0 * count * size;
    e = mig_sample(comm, zz, count, size, quick, &p->mig_us[k]);
  }
  Zoltan_Destroy(&zz);
  if (e) return e;
  /* a term that fits below zero is noise: fit without it */
  int use[3] = {1, 1, 1};
  double c[3];
  for (int round = 0; round < 3; round++) {
    fit_plane(p->mig_elems, p->mig_bytes, p->mig_us, LBS_PROBE_MIG, use, c, &p->mig_rms);
    int drop = c[1] < 0 ? 1 : c[2] < 0 ? 2 : 0;
    if (!drop) break;
    use[drop] = 0;
  }
  p->mig_fixed_us = c[0] > 0 ? c[0] : 0;
  p->mig_per_elem_ns = c[1] > 0 ? c[1] * 1e3 : 0;
  p->mig_gbps = c[2] > 0 ? 8.0 / (c[2] * 1e3) : 0;
  return LBS_OK;
}

lbs_err lbs_probe_run(const char *partitioner, int quick, MPI_Comm comm, lbs_probe *p) {
  *p = (lbs_probe){.partitioner = partitioner};
  int hl, size;
  MPI_Comm_size(comm, &size);
  MPI_Get_processor_name(p->host, &hl);
  p->ranks = size;
  if (size < 2)
    return lbs_fail(LBS_INVAL,
                    "grid probe: needs at least 2 MPI ranks to measure links between them");
  lbs_partitioner *part = NULL;
  lbs_err e = lbs_part_create(partitioner, NULL, comm, &part);
  if (e) return e;
  int *first = malloc((size_t)size * sizeof *first);
  char *buf = calloc(4u << 20, 1);
  e = lbs_mpi_agree(comm, !first || !buf ? lbs_fail(LBS_NOMEM, "grid probe: buffers") : LBS_OK);
  if (!e) e = nodes_of(comm, p, first);
  /* 1. ping-pongs: two ranks of the first node that has two, the first ranks of two nodes */
  int two = -1;
  for (int k = 0; !e && k < p->nodes && two < 0; k++)
    if (p->cores[k] >= 2) two = first[k];
  if (!e && two >= 0) ping_pong(comm, two, two + 1, quick, buf, &p->intra);
  if (!e && p->nodes >= 2) ping_pong(comm, first[0], first[1], quick, buf, &p->inter);
  /* 2. the barrier, 3. the partitioner, 4. the exchange */
  if (!e) p->barrier_us = barrier_us(comm, quick);
  if (!e) e = part_fit(comm, part, quick, p);
  if (!e) e = migration(comm, quick, p);
  lbs_part_destroy(&part);
  free(first), free(buf);
  return e;
}

void lbs_probe_free(lbs_probe *p) {
  if (!p) return;
  free(p->cores);
  p->cores = NULL;
}

/* The measurements as comments, then [grid]. */
static lbs_err grid_head(const lbs_probe *p, lbs_buf *b) {
  char when[64];
  time_t now = time(NULL);
  strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S UTC", gmtime(&now));
  lbs_err e =
      lbs__bprintf(b, "; written by 'lbsim grid probe' on %s at %s: %d MPI ranks on %d node%s\n",
                   p->host, when, p->ranks, p->nodes, p->nodes > 1 ? "s" : "");
  if (!e)
    e = lbs__bprintf(
        b,
        "; speed 1 and ns_per_work 1: a trace profiled here (time_ns) replays as this machine.\n");
  if (!e && p->intra.measured)
    e = lbs__bprintf(b,
                     "; ping-pong inside a node: %.3f us for 8 B, %.3f Gbit/s fitted over 64 "
                     "KiB..2 MiB (rms %.1f%%)\n",
                     p->intra.latency_us, p->intra.bandwidth_gbps, 100 * p->intra.fit_rms);
  if (!e && p->inter.measured)
    e = lbs__bprintf(b, "; ping-pong between nodes: %.3f us for 8 B, %.3f Gbit/s (rms %.1f%%)\n",
                     p->inter.latency_us, p->inter.bandwidth_gbps, 100 * p->inter.fit_rms);
  if (!e)
    e = lbs__bprintf(b, "; MPI_Barrier over %d ranks: %.3f us (charged per bsp step)\n", p->ranks,
                     p->barrier_us);
  if (!e)
    e = lbs__bprintf(
        b, "; %s: %.1f us + %.2f ns per element (fit over 4096..262144 elements, rms %.1f%%)\n",
        p->partitioner, p->part_fixed_us, p->part_per_elem_ns, 100 * p->part_rms);
  if (!e)
    e = lbs__bprintf(
        b,
        "; Zoltan_Migrate with pack/unpack callbacks: %.1f us + %.2f ns per element + "
        "bytes at %.3f Gbit/s, per rank, elements and bytes sent or received (fit over "
        "512..8192 elements x 64..4096 B, rms %.1f%%; charged per repartition in "
        "place of the links)\n",
        p->mig_fixed_us, p->mig_per_elem_ns, p->mig_gbps, 100 * p->mig_rms);
  if (!e)
    e = lbs__bprintf(b,
                     "[grid]\nname = probed-%s\nns_per_work = 1\nbarrier_us = %.6g\n"
                     "migration_fixed_us = %.6g\nmigration_per_elem_ns = %.6g\n"
                     "migration_gbps = %.6g\n",
                     p->host, p->barrier_us, p->mig_fixed_us, p->mig_per_elem_ns, p->mig_gbps);
  if (!e && p->inter.measured)
    e = lbs__bprintf(b,
                     "inter_latency_us = %.6g\ninter_bandwidth_gbps = %.6g\ninter_shared = false\n",
                     p->inter.latency_us, p->inter.bandwidth_gbps);
  return e;
}

lbs_err lbs_probe_grid(const lbs_probe *p, lbs_buf *ini) {
  lbs_err e = grid_head(p, ini);
  const lbs_probe_link *l = p->intra.measured ? &p->intra : &p->inter;
  for (int k = 0; !e && k < p->nodes; k++)
    e = lbs__bprintf(ini,
                     "\n[nodetype node%d]\nspeed = 1\ncores = %d\n\n[cluster node%d]\nnodes = "
                     "1\nnodetype = node%d\n"
                     "latency_us = %.6g\nbandwidth_gbps = %.6g\nshared = false\n",
                     k, p->cores[k], k, k, l->latency_us, l->bandwidth_gbps);
  if (!e)
    e = lbs__bprintf(
        ini, "\n[sim]\n; fitted for %s\npartition_fixed_us = %.6g\npartition_per_elem_ns = %.6g\n",
        p->partitioner, p->part_fixed_us, p->part_per_elem_ns);
  if (!e) e = lbs_buf_reserve(ini, 1); /* NUL-terminated for the parser, not counted */
  if (e) return e;
  ini->data[ini->len] = '\0';
  return lbs_grid_check_text("probed grid", (const char *)ini->data); /* it must load */
}

/* [[x, y], ...], x a whole number, y to 6 digits; NULL when out of memory. */
static json_t *samples_json(const double *x, const double *y, int n) {
  json_t *a = json_array();
  for (int i = 0; a && i < n; i++)
    if (json_array_append_new(a,
                              json_pack("[I,o]", (json_int_t)llround(x[i]), lbs_json_sig(y[i], 6))))
      json_decref(a), a = NULL;
  return a;
}

/* A ping-pong's fit and its samples, null when not measured. */
static json_t *link_json(const lbs_probe_link *pp) {
  if (!pp->measured) return json_null();
  return json_pack("{s:o,s:o,s:o,s:o}", "latency_us", lbs_json_sig(pp->latency_us, 6),
                   "bandwidth_gbps", lbs_json_sig(pp->bandwidth_gbps, 6), "fit_rms",
                   lbs_json_sig(pp->fit_rms, 4), "sizes",
                   samples_json(pp->size, pp->oneway_us, LBS_PROBE_SIZES));
}

/* The migrations: [[elements, bytes, us], ...] (each rank's sent or received); NULL when out of
 * memory. */
static json_t *mig_samples_json(const lbs_probe *p) {
  json_t *a = json_array();
  for (int i = 0; a && i < LBS_PROBE_MIG; i++)
    if (json_array_append_new(a, json_pack("[I,I,o]", (json_int_t)llround(p->mig_elems[i]),
                                           (json_int_t)llround(p->mig_bytes[i]),
                                           lbs_json_sig(p->mig_us[i], 6))))
      json_decref(a), a = NULL;
  return a;
}

json_t *lbs_probe_json(const lbs_probe *p, const char *output) {
  json_t *o = json_object();
  int bad =
      lbs_json_set(o, "host", lbs_json_str(p->host)) ||
      lbs_json_set(o, "ranks", lbs_json_int(p->ranks)) ||
      lbs_json_set(o, "nodes", lbs_json_int(p->nodes)) ||
      lbs_json_set(o, "intra_node", link_json(&p->intra)) ||
      lbs_json_set(o, "inter_node", link_json(&p->inter)) ||
      lbs_json_set(o, "barrier_us", lbs_json_sig(p->barrier_us, 6)) ||
      lbs_json_set(o, "partition",
                   json_pack("{s:o,s:o,s:o,s:o,s:o}", "partitioner", lbs_json_str(p->partitioner),
                             "fixed_us", lbs_json_sig(p->part_fixed_us, 6), "per_elem_ns",
                             lbs_json_sig(p->part_per_elem_ns, 6), "fit_rms",
                             lbs_json_sig(p->part_rms, 4), "samples",
                             samples_json(p->part_elems, p->part_us, 4))) ||
      lbs_json_set(o, "migration",
                   json_pack("{s:o,s:o,s:o,s:o,s:o}", "fixed_us", lbs_json_sig(p->mig_fixed_us, 6),
                             "per_elem_ns", lbs_json_sig(p->mig_per_elem_ns, 6), "gbps",
                             lbs_json_sig(p->mig_gbps, 6), "fit_rms", lbs_json_sig(p->mig_rms, 4),
                             "samples", mig_samples_json(p))) ||
      lbs_json_set(o, "output", lbs_json_str(output));
  if (bad) json_decref(o), o = NULL;
  return o;
}
