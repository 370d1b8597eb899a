/* test_opencl.c - the device implementations run for real: every kernel's outputs against a plain
 * host reference at several sizes (1, odd, not powers of two, past a work-group), walk bit for
 * bit, on OpenCL (PoCL on the CPU here) and on CUDA (suite cuda: skipped where the build has no
 * CUDA or the machine no GPU; scripts/gpu_check.sh runs it where there is one); a device that is
 * not there fails with a message. And the cuda implementations, when built, open or say why not,
 * without crashing. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kernels.h"
#include "lbs_nbody.h"

extern const lbs_impl_ops *const lbs__impls_cuda[];
extern const int lbs__cuda_built;

/* Opens kernel.target on device 0; fails the test with the message when it cannot, except that a
 * cuda implementation skips the test where the build has no CUDA or the machine no CUDA device. */
static const lbs_impl_ops *open_impl(const char *target, const char *kernel, void **ctx) {
  char name[64], device[160] = "", prefix[16];
  int cuda = !strcmp(target, "cuda");
  if (cuda && !lbs__cuda_built) cr_skip_test("built without CUDA");
  snprintf(name, sizeof name, "%s.%s", kernel, target);
  snprintf(prefix, sizeof prefix, "%s: ", target);
  const lbs_impl_ops *ops;
  cr_assert_eq(lbs_impl_find(name, &ops), LBS_OK, "%s", lbs_errmsg());
  lbs_impl_args args = {0, 0};
  lbs_err e = ops->open(ctx, &args, device, sizeof device);
  if (cuda && e == LBS_NOTFOUND) cr_skip_test("%s: %s", name, lbs_errmsg());
  cr_assert_eq(e, LBS_OK, "%s: %s", name, lbs_errmsg());
  cr_assert(!strncmp(device, prefix, strlen(prefix)), "device '%s'", device);
  if (!cuda) cr_assert(strstr(device, " / "), "device '%s'", device);
  return ops;
}

static double unit(uint64_t seed, uint64_t i) { return 2 * lbs_rng_unit(seed, 7, i) - 1; }

/* |got - want| within rel of scale (the sum of the magnitudes of the terms). */
static void near(double got, double want, double scale, double rel, const char *what,
                 long long at) {
  cr_assert(fabs(got - want) <= rel * scale + 1e-300, "%s[%lld]: %.17g, want %.17g (scale %g)",
            what, at, got, want, scale);
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static void check_sort(const char *target) {
  void *ctx;
  const lbs_impl_ops *ops = open_impl(target, "sort", &ctx);
  const int64_t sizes[] = {1, 2, 3, 7, 255, 512, 513, 1000, 4097, 70001};
  for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
    int64_t n = sizes[s];
    double *a = malloc((size_t)n * sizeof *a), *ref = malloc((size_t)n * sizeof *ref);
    for (int64_t i = 0; i < n; i++)
      a[i] = ref[i] = i % 5 == 3 ? a[i / 2] : 1e3 * unit(s, (uint64_t)i); /* ties too */
    qsort(ref, (size_t)n, sizeof *ref, cmp_double);
    lbs_k_sort p = {n, a};
    cr_assert_eq(ops->execute(ctx, &p), LBS_OK, "n = %lld: %s", (long long)n, lbs_errmsg());
    for (int64_t i = 0; i < n; i++)
      cr_assert_eq(a[i], ref[i], "n = %lld: a[%lld] = %g, want %g", (long long)n, (long long)i,
                   a[i], ref[i]);
    free(a), free(ref);
  }
  ops->close(ctx);
}

static void check_dot(const char *target) {
  void *ctx;
  const lbs_impl_ops *ops = open_impl(target, "dot", &ctx);
  const int64_t sizes[] = {1, 2, 5, 255, 257, 1001, 262145, 300007};
  for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
    int64_t n = sizes[s];
    double *x = malloc((size_t)n * sizeof *x), *y = malloc((size_t)n * sizeof *y), want = 0,
           scale = 0;
    for (int64_t i = 0; i < n; i++) {
      x[i] = unit(2 * s, (uint64_t)i), y[i] = unit(2 * s + 1, (uint64_t)i);
      want += x[i] * y[i], scale += fabs(x[i] * y[i]);
    }
    lbs_k_dot p = {n, x, y, 0};
    cr_assert_eq(ops->execute(ctx, &p), LBS_OK, "n = %lld: %s", (long long)n, lbs_errmsg());
    near(p.result, want, scale, 1e-13, "dot n", (long long)n);
    double first = p.result; /* the same result every time */
    cr_assert_eq(ops->execute(ctx, &p), LBS_OK);
    cr_assert_eq(p.result, first);
    free(x), free(y);
  }
  ops->close(ctx);
}

static void check_conv1d(const char *target) {
  void *ctx;
  const lbs_impl_ops *ops = open_impl(target, "conv1d", &ctx);
  const int64_t sizes[][2] = {{1, 1}, {1, 5}, {7, 1}, {3, 4}, {100, 17}, {257, 300}, {1000, 999}};
  for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
    int64_t na = sizes[s][0], nb = sizes[s][1], no = na + nb - 1;
    double *a = malloc((size_t)na * sizeof *a), *b = malloc((size_t)nb * sizeof *b),
           *out = malloc((size_t)no * sizeof *out);
    for (int64_t i = 0; i < na; i++) a[i] = unit(3 * s, (uint64_t)i);
    for (int64_t i = 0; i < nb; i++) b[i] = unit(3 * s + 1, (uint64_t)i);
    for (int64_t k = 0; k < no; k++) out[k] = NAN;
    lbs_k_conv1d p = {na, nb, a, b, out};
    cr_assert_eq(ops->execute(ctx, &p), LBS_OK, "%lld x %lld: %s", (long long)na, (long long)nb,
                 lbs_errmsg());
    for (int64_t k = 0; k < no; k++) {
      double want = 0, scale = 0;
      for (int64_t i = 0; i < na; i++)
        if (k - i >= 0 && k - i < nb) want += a[i] * b[k - i], scale += fabs(a[i] * b[k - i]);
      near(out[k], want, scale, 1e-13, "conv1d out", (long long)k);
    }
    free(a), free(b), free(out);
  }
  ops->close(ctx);
}

static void check_matmul(const char *target) {
  void *ctx;
  const lbs_impl_ops *ops = open_impl(target, "matmul", &ctx);
  const int sizes[][3] = {{1, 1, 1},    {1, 7, 1},   {3, 1, 5},     {16, 16, 16},
                          {17, 33, 15}, {64, 5, 70}, {100, 129, 31}};
  for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
    int m = sizes[s][0], n = sizes[s][1], q = sizes[s][2];
    double *A = malloc((size_t)m * n * sizeof *A), *B = malloc((size_t)n * q * sizeof *B),
           *C = malloc((size_t)m * q * sizeof *C);
    for (int i = 0; i < m * n; i++) A[i] = unit(3 * s, (uint64_t)i);
    for (int i = 0; i < n * q; i++) B[i] = unit(3 * s + 1, (uint64_t)i);
    for (int i = 0; i < m * q; i++) C[i] = NAN;
    lbs_k_matmul p = {m, n, q, A, B, C};
    cr_assert_eq(ops->execute(ctx, &p), LBS_OK, "%dx%dx%d: %s", m, n, q, lbs_errmsg());
    for (int i = 0; i < m; i++)
      for (int j = 0; j < q; j++) {
        double want = 0, scale = 0;
        for (int e = 0; e < n; e++)
          want += A[i * n + e] * B[e * q + j], scale += fabs(A[i * n + e] * B[e * q + j]);
        near(C[i * q + j], want, scale, 1e-13, "matmul C", (long long)(i * q + j));
      }
    free(A), free(B), free(C);
  }
  ops->close(ctx);
}

/* apps/wave/wave.c's update_H and update_E on one cell (no source), as written there. */
static double ref_update_H(int b, double *F, double S) {
  ptrdiff_t n1 = b + 1, sy = n1, sz = n1 * n1, off = 1 + sy + sz, comp = sz * n1;
  const double *Ex = F, *Ey = F + comp, *Ez = F + 2 * comp;
  double *Hx = F + 3 * comp + off, *Hy = F + 4 * comp + off, *Hz = F + 5 * comp + off;
  double w = 0;
  for (int k = 0; k < b; k++)
    for (int j = 0; j < b; j++)
      for (int i = 0; i < b; i++) {
        ptrdiff_t p = j * sy + k * sz + i;
        double ex = Ex[p], ey = Ey[p], ez = Ez[p];
        double hx = Hx[p] - S * ((Ez[p + sy] - ez) - (Ey[p + sz] - ey));
        double hy = Hy[p] - S * ((Ex[p + sz] - ex) - (Ez[p + 1] - ez));
        double hz = Hz[p] - S * ((Ey[p + 1] - ey) - (Ex[p + sy] - ex));
        w += ex * ex + ey * ey + ez * ez + hx * Hx[p] + hy * Hy[p] + hz * Hz[p];
        Hx[p] = hx, Hy[p] = hy, Hz[p] = hz;
      }
  return w;
}

static double ref_update_E(int b, double *F, double S) {
  ptrdiff_t n1 = b + 1, sy = n1, sz = n1 * n1, off = 1 + sy + sz, comp = sz * n1;
  double *Ex = F, *Ey = F + comp, *Ez = F + 2 * comp;
  const double *Hx = F + 3 * comp + off, *Hy = F + 4 * comp + off, *Hz = F + 5 * comp + off;
  double m = 0;
  for (int k = 0; k < b; k++)
    for (int j = 0; j < b; j++)
      for (int i = 0; i < b; i++) {
        ptrdiff_t p = j * sy + k * sz + i;
        double ex = Ex[p] + S * ((Hz[p] - Hz[p - sy]) - (Hy[p] - Hy[p - sz]));
        double ey = Ey[p] + S * ((Hx[p] - Hx[p - sz]) - (Hz[p] - Hz[p - 1]));
        double ez = Ez[p] + S * ((Hy[p] - Hy[p - 1]) - (Hx[p] - Hx[p - sy]));
        Ex[p] = ex, Ey[p] = ey, Ez[p] = ez;
        double a = fabs(ex) > fabs(ey) ? fabs(ex) : fabs(ey);
        a = fabs(ez) > a ? fabs(ez) : a;
        m = a > m ? a : m;
      }
  return m;
}

static void check_wave(const char *target) {
  void *ctx;
  const lbs_impl_ops *ops = open_impl(target, "wave", &ctx);
  const int64_t cells[] = {1, 3, 100};
  const int blocks[] = {LBS_K_WAVE_B, 3};
  for (size_t bi = 0; bi < 2; bi++)
    for (size_t s = 0; s < sizeof cells / sizeof *cells; s++) {
      int b = blocks[bi];
      int64_t nc = cells[s], per = 6 * (b + 1) * (b + 1) * (b + 1);
      size_t len = (size_t)(nc * per);
      double *F = malloc(len * sizeof *F), *R = malloc(len * sizeof *R);
      for (size_t i = 0; i < len; i++) F[i] = R[i] = unit(s + 10 * bi, i);
      double energy = 0, emax = 0;
      for (int64_t c = 0; c < nc; c++) {
        energy += ref_update_H(b, R + c * per, 0.5);
        double m = ref_update_E(b, R + c * per, 0.5);
        emax = m > emax ? m : emax;
      }
      lbs_k_wave p = {nc, b, 0.5, F, 0, 0};
      cr_assert_eq(ops->execute(ctx, &p), LBS_OK, "%lld cells of %d^3: %s", (long long)nc, b,
                   lbs_errmsg());
      for (size_t i = 0; i < len; i++)
        near(F[i], R[i], fabs(R[i]) + 1, 1e-12, "wave F", (long long)i);
      near(p.energy, energy, fabs(energy), 1e-12, "wave energy, cells", (long long)nc);
      cr_assert_eq(p.emax, emax, "emax %.17g, want %.17g", p.emax, emax);
      free(F), free(R);
    }
  ops->close(ctx);
}

/* apps/laplace-mc's walk(), stream start << 32 | k. */
static int64_t ref_walk(uint64_t seed, int64_t N, int64_t g, uint64_t k, int *hot) {
  int64_t x = g % N, y = g / N;
  uint64_t stream = (uint64_t)g << 32 | k, word = 0, widx = 0;
  int left = 0;
  int64_t steps = 0;
  for (;;) {
    if (!left) word = lbs_rng_u64(seed, stream, widx++), left = 32;
    unsigned d = (unsigned)(word & 3);
    x += (d == 0) - (d == 1), y += (d == 2) - (d == 3);
    word >>= 2, left--, steps++;
    if ((uint64_t)x >= (uint64_t)N || (uint64_t)y >= (uint64_t)N) break;
  }
  *hot = y >= N;
  return steps;
}

static void check_walk(const char *target) {
  void *ctx;
  const lbs_impl_ops *ops = open_impl(target, "walk", &ctx);
  const int64_t walks[] = {1, 3, 257, 5000};
  const int64_t grids[] = {1, 5, 64};
  for (size_t gi = 0; gi < 3; gi++)
    for (size_t s = 0; s < sizeof walks / sizeof *walks; s++) {
      int64_t N = grids[gi], nw = walks[s], *start = malloc((size_t)nw * sizeof *start), hits = 0,
              steps = 0;
      uint64_t seed = 0x5eedULL + s * 1000003ULL;
      for (int64_t k = 0; k < nw; k++) {
        start[k] = (int64_t)(lbs_rng_u64(seed, 99, (uint64_t)k) % (uint64_t)(N * N));
        int hot;
        steps += ref_walk(seed, N, start[k], (uint64_t)k, &hot);
        hits += hot;
      }
      lbs_k_walk p = {N, nw, start, seed, -1, -1};
      cr_assert_eq(ops->execute(ctx, &p), LBS_OK, "%lld walks: %s", (long long)nw, lbs_errmsg());
      cr_assert_eq(p.hits, hits, "N %lld, %lld walks: %lld hits, want %lld", (long long)N,
                   (long long)nw, (long long)p.hits, (long long)hits);
      cr_assert_eq(p.steps, steps, "N %lld, %lld walks: %lld steps, want %lld", (long long)N,
                   (long long)nw, (long long)p.steps, (long long)steps);
      free(start);
    }
  ops->close(ctx);
}

static void check_bhforce(const char *target) {
  void *ctx;
  const lbs_impl_ops *ops = open_impl(target, "bhforce", &ctx);
  const int64_t bodies[] = {1, 9, 3001};
  for (size_t bi = 0; bi < 3; bi++) {
    int64_t n = bodies[bi];
    double *x = malloc(3 * (size_t)n * sizeof *x), *v = malloc(3 * (size_t)n * sizeof *v);
    lbs_nb_plummer(n, 11 + bi, x, v);
    lbs_nb_tree t = {0};
    cr_assert_eq(lbs_nb_build(&t, x, n, 8), LBS_OK, "%s", lbs_errmsg());
    int32_t *stack = malloc((size_t)(t.nn + 1) * sizeof *stack);
    const int64_t targets[] = {1, 7, n, 2 * n + 3};
    for (size_t s = 0; s < 4; s++) {
      int64_t nt = targets[s], *target = malloc((size_t)nt * sizeof *target), want_inter = 0;
      double *acc = malloc(3 * (size_t)nt * sizeof *acc);
      for (int64_t k = 0; k < nt; k++)
        target[k] = (int64_t)(lbs_rng_u64(5, 6, (uint64_t)k) % (uint64_t)n);
      lbs_k_bhforce p = {n, x, 0.7, &t, nt, target, acc, -1};
      cr_assert_eq(ops->execute(ctx, &p), LBS_OK, "%lld bodies, %lld targets: %s", (long long)n,
                   (long long)nt, lbs_errmsg());
      for (int64_t k = 0; k < nt; k++) {
        double a[3];
        want_inter += lbs_nb_accel(&t, x, n, 0.7, target[k], a, stack);
        double mag = sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
        for (int d = 0; d < 3; d++)
          near(acc[3 * k + d], a[d], mag, 1e-12, "bhforce acc", (long long)(3 * k + d));
      }
      cr_assert_eq(p.interactions, want_inter, "%lld interactions, want %lld",
                   (long long)p.interactions, (long long)want_inter);
      free(target), free(acc);
    }
    free(stack), free(x), free(v);
    lbs_nb_tree_free(&t);
  }
  ops->close(ctx);
}

/* Each kernel on each device target. */
#define ON_DEVICES(kernel)                                                                         \
  Test(opencl, kernel) { check_##kernel("opencl"); }                                               \
  Test(cuda, kernel) { check_##kernel("cuda"); }
ON_DEVICES(sort)
ON_DEVICES(dot)
ON_DEVICES(conv1d)
ON_DEVICES(matmul)
ON_DEVICES(wave)
ON_DEVICES(walk)
ON_DEVICES(bhforce)

/* Every opencl implementation: a device index past the last fails cleanly, with a message. */
Test(opencl, device_out_of_range) {
  for (int i = 0; lbs_impl_at(i); i++) {
    const lbs_impl_ops *ops = lbs_impl_at(i);
    if (strcmp(ops->target, "opencl")) continue;
    void *ctx = (void *)1;
    char device[160] = "";
    lbs_impl_args args = {0, 4096};
    lbs_clear_error();
    cr_assert_eq(ops->open(&ctx, &args, device, sizeof device), LBS_NOTFOUND, "%s", ops->kernel);
    cr_assert_null(ctx);
    cr_assert(strstr(lbs_errmsg(), "4096"), "%s: message '%s'", ops->kernel, lbs_errmsg());
    ops->close(NULL); /* NULL-safe */
  }
}

Test(opencl, all_seven_registered) {
  const char *k[] = {"sort", "dot", "conv1d", "matmul", "wave", "walk", "bhforce"};
  for (int i = 0; i < 7; i++) {
    char name[32];
    const lbs_impl_ops *ops;
    snprintf(name, sizeof name, "%s.opencl", k[i]);
    cr_assert_eq(lbs_impl_find(name, &ops), LBS_OK, "%s", lbs_errmsg());
    cr_assert_str_eq(ops->target, "opencl");
  }
}

/* The cuda implementations, when built: open() succeeds or says there is no device; never crashes.
 */
Test(cuda, open_or_notfound) {
  if (!lbs__cuda_built) {
    const lbs_impl_ops *ops;
    cr_assert_eq(lbs_impl_find("sort.cuda", &ops), LBS_NOTFOUND);
    cr_assert(strstr(lbs_errmsg(), "without CUDA"), "%s", lbs_errmsg());
    return;
  }
  int n = 0;
  for (int i = 0; lbs__impls_cuda[i]; i++, n++) {
    const lbs_impl_ops *ops = lbs__impls_cuda[i];
    cr_assert_str_eq(ops->target, "cuda");
    void *ctx = NULL;
    char device[160] = "";
    lbs_impl_args args = {0, 0};
    lbs_clear_error();
    lbs_err e = ops->open(&ctx, &args, device, sizeof device);
    cr_assert(e == LBS_OK || e == LBS_NOTFOUND, "%s.cuda: %s: %s", ops->kernel, lbs_strerror(e),
              lbs_errmsg());
    if (e == LBS_OK)
      cr_assert(!strncmp(device, "cuda: ", 6), "device '%s'", device);
    else
      cr_assert(strlen(lbs_errmsg()) > 0, "%s.cuda: no message", ops->kernel);
    ops->close(ctx);
    ops->close(NULL);
  }
  cr_assert_eq(n, 7);
}
