/* cpu.c - the cpu target: every kernel on one thread, in plain C (seed 004's single-threaded
 * implementations). The serial kernels here also run each chunk of the threads target
 * (threads.c, through cpu_int.h).
 *
 * Summation orders are fixed and documented in cpu_int.h, so that the threads target, which
 * splits the same loops into chunks, gives the same bits wherever a chunk's outputs do not
 * depend on the others (sort, conv1d, matmul, wave's fields, walk, bhforce). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_int.h"
#include "lbs_nbody.h"
#include "lbs_walk.h"
#include "lbs_wave.h"

/* ---------------------------------------------------------------- sort: introsort */

#define SORT_SMALL 24 /* insertion sort below this many elements */

static void insertion(double *a, int64_t n) {
  for (int64_t i = 1; i < n; i++) {
    double v = a[i];
    int64_t j = i;
    for (; j > 0 && a[j - 1] > v; j--) a[j] = a[j - 1];
    a[j] = v;
  }
}

static void sift_down(double *a, int64_t root, int64_t n) {
  double v = a[root];
  for (;;) {
    int64_t c = 2 * root + 1;
    if (c >= n) break;
    if (c + 1 < n && a[c + 1] > a[c]) c++;
    if (!(a[c] > v)) break;
    a[root] = a[c];
    root = c;
  }
  a[root] = v;
}

static void heap_sort(double *a, int64_t n) {
  for (int64_t i = n / 2; i-- > 0;) sift_down(a, i, n);
  for (int64_t end = n - 1; end > 0; end--) {
    double t = a[0];
    a[0] = a[end], a[end] = t;
    sift_down(a, 0, end);
  }
}

static inline void swap_d(double *x, double *y) {
  double t = *x;
  *x = *y, *y = t;
}

/* Quicksort with the median of the first, middle and last elements as pivot and Hoare's
 * partition (equal keys are split evenly, so runs of duplicates cost n log n, not n^2); recurses
 * into the smaller side, loops on the larger; heapsort once depth levels are used up. */
static void intro(double *a, int64_t n, int depth) {
  while (n > SORT_SMALL) {
    if (depth-- == 0) {
      heap_sort(a, n);
      return;
    }
    int64_t m = (n - 1) / 2;
    if (a[m] < a[0]) swap_d(&a[m], &a[0]);
    if (a[n - 1] < a[m]) {
      swap_d(&a[n - 1], &a[m]);
      if (a[m] < a[0]) swap_d(&a[m], &a[0]);
    }
    double piv = a[m];
    int64_t i = -1, j = n;
    for (;;) {
      do i++;
      while (a[i] < piv);
      do j--;
      while (piv < a[j]);
      if (i >= j) break;
      swap_d(&a[i], &a[j]);
    }
    /* [0, j] <= piv <= [j+1, n), both sides non-empty */
    int64_t nl = j + 1, nr = n - nl;
    if (nl < nr) {
      intro(a, nl, depth);
      a += nl, n = nr;
    } else {
      intro(a + nl, nr, depth);
      n = nl;
    }
  }
  insertion(a, n);
}

void lbs__sort_doubles(double *a, int64_t n) {
  int depth = 0;
  for (int64_t k = n; k > 1; k >>= 1) depth += 2;
  intro(a, n, depth);
}

/* How many of the first k outputs of the merge come from A: the smallest i with
 * B[k-i-1] < A[i] (ties go to A). */
static int64_t corank(int64_t k, const double *A, int64_t la, const double *B, int64_t lb) {
  int64_t lo = k > lb ? k - lb : 0, hi = k < la ? k : la;
  while (lo < hi) {
    int64_t mid = lo + (hi - lo) / 2;
    if (A[mid] <= B[k - mid - 1])
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

void lbs__merge_range(const double *A, int64_t la, const double *B, int64_t lb, int64_t k0,
                      int64_t k1, double *out) {
  int64_t i = corank(k0, A, la, B, lb), j = k0 - i, i1 = corank(k1, A, la, B, lb), j1 = k1 - i1;
  while (i < i1 && j < j1) *out++ = B[j] < A[i] ? B[j++] : A[i++];
  while (i < i1) *out++ = A[i++];
  while (j < j1) *out++ = B[j++];
}

/* ---------------------------------------------------------------- dense kernels */

/* Four interleaved partial sums (element i into sum i mod 4, from lo), added as
 * (s0 + s1) + (s2 + s3): a fixed order the compiler can keep in registers. */
double lbs__dot_range(const double *x, const double *y, int64_t lo, int64_t hi) {
  double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  int64_t i = lo;
  for (; i + 4 <= hi; i += 4) {
    s0 += x[i] * y[i];
    s1 += x[i + 1] * y[i + 1];
    s2 += x[i + 2] * y[i + 2];
    s3 += x[i + 3] * y[i + 3];
  }
  for (; i < hi; i++) s0 += x[i] * y[i];
  return (s0 + s1) + (s2 + s3);
}

void lbs__conv1d_range(const lbs_k_conv1d *p, int64_t k0, int64_t k1) {
  const double *l = p->a, *s = p->b;
  int64_t nl = p->na, ns = p->nb;
  if (ns > nl) {
    const double *t = l;
    l = s, s = t;
    int64_t u = nl;
    nl = ns, ns = u;
  }
  double *out = p->out;
  for (int64_t k = k0; k < k1; k++) out[k] = 0;
  /* out[i + j] += l[i] s[j] for the (i, j) with k0 <= i + j < k1: the short operand's window
   * slides along the long one, in cache */
  int64_t i0 = k0 - ns + 1 > 0 ? k0 - ns + 1 : 0, i1 = k1 < nl ? k1 : nl;
  for (int64_t i = i0; i < i1; i++) {
    int64_t j0 = k0 - i > 0 ? k0 - i : 0, j1 = k1 - i < ns ? k1 - i : ns;
    double li = l[i];
    double *o = out + i;
    for (int64_t j = j0; j < j1; j++) o[j] += li * s[j];
  }
}

void lbs__matmul_rows(const lbs_k_matmul *p, int r0, int r1) {
  const size_t n = (size_t)p->n, np = (size_t)p->p;
  for (size_t i = (size_t)r0; i < (size_t)r1; i++) {
    double *c = p->C + i * np;
    const double *a = p->A + i * n;
    for (size_t j = 0; j < np; j++) c[j] = 0;
    for (size_t k = 0; k < n; k++) {
      const double aik = a[k], *b = p->B + k * np;
      for (size_t j = 0; j < np; j++) c[j] += aik * b[j];
    }
  }
}

/* ---------------------------------------------------------------- wave: apps/wave's update */

/* workloads/lbs_wave.h: the update apps/wave runs (the source term dropped: src is NULL). */
void lbs__wave_cells(const lbs_k_wave *p, int64_t c0, int64_t c1, double *energy, double *emax) {
  lbs_wave_geom g = lbs_wave_geom_of(p->b);
  double w = 0, m = 0;
  for (int64_t c = c0; c < c1; c++) {
    double *F = p->F + (size_t)c * 6 * (size_t)g.comp;
    w += lbs_wave_update_H(&g, F, p->S);
    double e = lbs_wave_update_E(&g, F, p->S, NULL);
    m = e > m ? e : m;
  }
  *energy = w, *emax = m;
}

/* ---------------------------------------------------------------- walk: apps/laplace-mc's walk */

void lbs__walk_range(const lbs_k_walk *p, int64_t k0, int64_t k1, int64_t *hits, int64_t *steps) {
  int64_t h = 0, s = 0;
  for (int64_t k = k0; k < k1; k++) {
    int64_t g = p->start[k];
    int hot;
    s += lbs_walk_one(p->seed, p->N, g, g % p->N, g / p->N, (uint64_t)k, &hot);
    h += hot;
  }
  *hits = h, *steps = s;
}

/* ---------------------------------------------------------------- bhforce: lbs_nb_accel */

int64_t lbs__bhforce_range(const lbs_k_bhforce *p, int64_t t0, int64_t t1, int32_t *stack) {
  int64_t inter = 0;
  for (int64_t t = t0; t < t1; t++)
    inter += lbs_nb_accel(p->tree, p->x, p->nbody, p->theta, p->target[t], p->acc + 3 * t, stack);
  return inter;
}

/* ---------------------------------------------------------------- the device */

void lbs__cpu_model(char *buf, size_t n) {
  snprintf(buf, n, "unknown");
  FILE *f = fopen("/proc/cpuinfo", "r");
  if (!f) return;
  char line[512];
  while (fgets(line, sizeof line, f)) {
    if (strncmp(line, "model name", 10)) continue;
    const char *v = strchr(line, ':');
    if (!v) continue;
    for (v++; *v == ' ' || *v == '\t'; v++) {}
    size_t len = strcspn(v, "\n");
    if (len) snprintf(buf, n, "%.*s", (int)len, v);
    break;
  }
  fclose(f);
}

/* ---------------------------------------------------------------- the implementations */

/* The cpu target keeps no state: ctx stays NULL. */
static lbs_err cpu_open(void **ctx, const lbs_impl_args *args, char *device, size_t n) {
  (void)args;
  char model[256];
  lbs__cpu_model(model, sizeof model);
  snprintf(device, n, "cpu: %s", model);
  *ctx = NULL;
  return LBS_OK;
}

static void cpu_close(void *ctx) { (void)ctx; }

static lbs_err sort_exec(void *ctx, void *params) {
  (void)ctx;
  lbs_k_sort *p = params;
  lbs__sort_doubles(p->a, p->n);
  return LBS_OK;
}

static lbs_err dot_exec(void *ctx, void *params) {
  (void)ctx;
  lbs_k_dot *p = params;
  p->result = lbs__dot_range(p->x, p->y, 0, p->n);
  return LBS_OK;
}

static lbs_err conv1d_exec(void *ctx, void *params) {
  (void)ctx;
  lbs_k_conv1d *p = params;
  lbs__conv1d_range(p, 0, p->na + p->nb - 1);
  return LBS_OK;
}

static lbs_err matmul_exec(void *ctx, void *params) {
  (void)ctx;
  lbs_k_matmul *p = params;
  lbs__matmul_rows(p, 0, p->m);
  return LBS_OK;
}

static lbs_err wave_exec(void *ctx, void *params) {
  (void)ctx;
  lbs_k_wave *p = params;
  lbs__wave_cells(p, 0, p->ncells, &p->energy, &p->emax);
  return LBS_OK;
}

static lbs_err walk_exec(void *ctx, void *params) {
  (void)ctx;
  lbs_k_walk *p = params;
  lbs__walk_range(p, 0, p->nwalks, &p->hits, &p->steps);
  return LBS_OK;
}

static lbs_err bhforce_exec(void *ctx, void *params) {
  (void)ctx;
  lbs_k_bhforce *p = params;
  const lbs_nb_tree *t = p->tree;
  int32_t *stack = malloc((size_t)(t->nn + 1) * sizeof *stack);
  if (!stack)
    return lbs_fail(LBS_NOMEM, "bhforce.cpu: a stack of %lld nodes", (long long)(t->nn + 1));
  p->interactions = lbs__bhforce_range(p, 0, p->ntarget, stack);
  free(stack);
  return LBS_OK;
}

#define CPU_IMPL(k)                                                                                \
  static const lbs_impl_ops k##_cpu = {                                                            \
      .kernel = #k, .target = "cpu", .open = cpu_open, .execute = k##_exec, .close = cpu_close};
CPU_IMPL(sort)
CPU_IMPL(dot)
CPU_IMPL(conv1d)
CPU_IMPL(matmul)
CPU_IMPL(wave)
CPU_IMPL(walk)
CPU_IMPL(bhforce)
#undef CPU_IMPL

const lbs_impl_ops *const lbs__impls_cpu[] = {&sort_cpu, &dot_cpu,  &conv1d_cpu,  &matmul_cpu,
                                              &wave_cpu, &walk_cpu, &bhforce_cpu, NULL};
