/* cuda.cu - the cuda implementations: the seven kernels on an NVIDIA GPU (built for sm_80 and
 * sm_90 with PTX, static cudart), the designs of the opencl target (opencl_kernels.cl) in CUDA.
 *
 * open() counts the devices (LBS_NOTFOUND "no CUDA device (<why>)" where there is none, as on a
 * machine without a GPU or driver), selects args->device, makes its primary context and checks
 * that this build has code for it. Not timed. execute() is the measured invocation: device
 * buffers, copies in, kernels, copies out, frees. Every CUDA call is checked; a failure is LBS_IO
 * "cuda <kernel>: <call>: <error name>".
 *
 * wave, walk and bhforce keep the host's arithmetic: products that feed a sum are __dmul_rn, which
 * nvcc never contracts into a fused multiply-add, so their results match the CPU's. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>

extern "C" {
#include "bhtree_int.h"
#include "kernels.h"
}

#define WG 256 /* threads of the 1-D kernels' blocks */
#define TS 16  /* matmul tile */

/* ---------------------------------------------------------------- kernels: sort (bitonic) */

__device__ static void cmpx(double *s, unsigned i, unsigned j, bool up) {
  double a = s[i], b = s[i + j];
  if ((a > b) == up) s[i] = b, s[i + j] = a;
}

/* Every stage k = 2 .. 2L of each block of 2L values, in shared memory (L = blockDim.x). */
__global__ static void bsort_local_init(double *v) {
  extern __shared__ double s[];
  unsigned L = blockDim.x, t = threadIdx.x, base = 2 * L * blockIdx.x;
  s[t] = v[base + t], s[t + L] = v[base + t + L];
  __syncthreads();
  for (unsigned k = 2; k <= 2 * L; k <<= 1)
    for (unsigned j = k >> 1; j > 0; j >>= 1) {
      unsigned i = 2 * j * (t / j) + t % j;
      cmpx(s, i, j, ((base + i) & k) == 0);
      __syncthreads();
    }
  v[base + t] = s[t], v[base + t + L] = s[t + L];
}

/* Stages j = L .. 1 of stage k (> 2L) in shared memory. */
__global__ static void bsort_local_merge(double *v, unsigned k) {
  extern __shared__ double s[];
  unsigned L = blockDim.x, t = threadIdx.x, base = 2 * L * blockIdx.x;
  s[t] = v[base + t], s[t + L] = v[base + t + L];
  __syncthreads();
  for (unsigned j = L; j > 0; j >>= 1) {
    unsigned i = 2 * j * (t / j) + t % j;
    cmpx(s, i, j, ((base + i) & k) == 0);
    __syncthreads();
  }
  v[base + t] = s[t], v[base + t + L] = s[t + L];
}

/* One stage (k, j >= 2L) over the whole array. */
__global__ static void bsort_global(double *v, unsigned k, unsigned j) {
  unsigned t = blockIdx.x * blockDim.x + threadIdx.x, i = 2 * j * (t / j) + t % j;
  double a = v[i], b = v[i + j];
  if ((a > b) == ((i & k) == 0)) v[i] = b, v[i + j] = a;
}

/* ---------------------------------------------------------------- dot, conv1d, matmul */

/* Grid-stride sums, a tree in shared memory per block into part[block]; the host adds the parts. */
__global__ static void dot_part(int64_t n, const double *x, const double *y, double *part) {
  __shared__ double s[WG];
  int64_t G = (int64_t)gridDim.x * blockDim.x;
  unsigned t = threadIdx.x;
  double acc = 0;
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + t; i < n; i += G) acc += x[i] * y[i];
  s[t] = acc;
  __syncthreads();
  for (unsigned h = blockDim.x >> 1; h > 0; h >>= 1) {
    if (t < h) s[t] += s[t + h];
    __syncthreads();
  }
  if (t == 0) part[blockIdx.x] = s[0];
}

/* One thread per output of the full convolution. */
__global__ static void conv1d(int64_t na, int64_t nb, const double *a, const double *b, double *out) {
  int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= na + nb - 1) return;
  int64_t lo = k - nb + 1 > 0 ? k - nb + 1 : 0, hi = k < na - 1 ? k : na - 1;
  double acc = 0;
  for (int64_t i = lo; i <= hi; i++) acc += a[i] * b[k - i];
  out[k] = acc;
}

/* C = A B, row-major, TS x TS tiles of A and B in shared memory; x runs along C's columns. */
__global__ static void matmul_tiled(int m, int n, int p, const double *A, const double *B, double *C) {
  __shared__ double As[TS][TS], Bs[TS][TS];
  int lx = threadIdx.x, ly = threadIdx.y;
  int64_t col = (int64_t)blockIdx.x * TS + lx, row = (int64_t)blockIdx.y * TS + ly;
  double acc = 0;
  for (int t0 = 0; t0 < n; t0 += TS) {
    As[ly][lx] = row < m && t0 + lx < n ? A[row * n + t0 + lx] : 0.0;
    Bs[ly][lx] = t0 + ly < n && col < p ? B[(int64_t)(t0 + ly) * p + col] : 0.0;
    __syncthreads();
    for (int e = 0; e < TS; e++) acc += As[ly][e] * Bs[e][lx];
    __syncthreads();
  }
  if (row < m && col < p) C[row * p + col] = acc;
}

/* ---------------------------------------------------------------- wave */

#define M(a, b) __dmul_rn(a, b) /* a product that is never fused with the sum it feeds */

/* apps/wave's update_H then update_E: a block per cell, a thread per point (i fastest), the
 * energy terms summed by thread 0 in the CPU's order; the host adds the cells in order. */
__global__ static void wave(int b, double S, double *Fall, double *energy, double *emax) {
  extern __shared__ double sh[];
  double *we = sh, *wm = sh + b * b * b;
  int n1 = b + 1;
  int64_t sy = n1, sz = (int64_t)n1 * n1, off = 1 + sy + sz, comp = sz * n1;
  double *F = Fall + (int64_t)blockIdx.x * 6 * comp;
  int t = threadIdx.x, i = t % b, j = t / b % b, k = t / (b * b);
  int64_t p = i + j * sy + k * sz;
  double *Ex = F, *Ey = F + comp, *Ez = F + 2 * comp;
  double *Hx = F + 3 * comp + off, *Hy = F + 4 * comp + off, *Hz = F + 5 * comp + off;
  {
    double ex = Ex[p], ey = Ey[p], ez = Ez[p];
    double hx = Hx[p] - M(S, (Ez[p + sy] - ez) - (Ey[p + sz] - ey));
    double hy = Hy[p] - M(S, (Ex[p + sz] - ex) - (Ez[p + 1] - ez));
    double hz = Hz[p] - M(S, (Ey[p + 1] - ey) - (Ex[p + sy] - ex));
    we[t] = M(ex, ex) + M(ey, ey) + M(ez, ez) + M(hx, Hx[p]) + M(hy, Hy[p]) + M(hz, Hz[p]);
    Hx[p] = hx, Hy[p] = hy, Hz[p] = hz;
  }
  __syncthreads(); /* makes the block's global writes visible to the block */
  {
    double ex = Ex[p] + M(S, (Hz[p] - Hz[p - sy]) - (Hy[p] - Hy[p - sz]));
    double ey = Ey[p] + M(S, (Hx[p] - Hx[p - sz]) - (Hz[p] - Hz[p - 1]));
    double ez = Ez[p] + M(S, (Hy[p] - Hy[p - 1]) - (Hx[p] - Hx[p - sy]));
    Ex[p] = ex, Ey[p] = ey, Ez[p] = ez;
    wm[t] = fmax(fabs(ex), fmax(fabs(ey), fabs(ez)));
  }
  __syncthreads();
  if (t == 0) {
    double w = 0, m = 0;
    for (int q = 0; q < b * b * b; q++) w += we[q], m = wm[q] > m ? wm[q] : m;
    energy[blockIdx.x] = w, emax[blockIdx.x] = m;
  }
}

/* ---------------------------------------------------------------- walk */

/* lbs_rng_u64 of core/core.c (splitmix64), bit for bit. */
__device__ static uint64_t mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}
__device__ static uint64_t rng_u64(uint64_t seed, uint64_t stream, uint64_t index) {
  return mix64(mix64(seed * 0x9e3779b97f4a7c15ULL + stream) ^ (index + 0x632be59bd9b4e019ULL));
}

/* apps/laplace-mc's walk() from start[k], one thread per walk; per-block sums of steps and hits. */
__global__ static void walk(int64_t N, int64_t nwalks, const int64_t *start, uint64_t seed, long long *steps_part,
                            long long *hits_part) {
  __shared__ long long ss[WG], hs[WG];
  int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  unsigned t = threadIdx.x;
  long long steps = 0, hot = 0;
  if (k < nwalks) {
    int64_t g = start[k], x = g % N, y = g / N;
    uint64_t stream = (uint64_t)g << 32 | (uint64_t)k, word = 0, widx = 0;
    int left = 0;
    for (;;) {
      if (!left) word = rng_u64(seed, stream, widx++), left = 32;
      unsigned d = (unsigned)(word & 3); /* 0: +x, 1: -x, 2: +y, 3: -y */
      x += (d == 0) - (d == 1), y += (d == 2) - (d == 3);
      word >>= 2, left--, steps++;
      if ((uint64_t)x >= (uint64_t)N || (uint64_t)y >= (uint64_t)N) break;
    }
    hot = y >= N;
  }
  ss[t] = steps, hs[t] = hot;
  __syncthreads();
  for (unsigned h = blockDim.x >> 1; h > 0; h >>= 1) {
    if (t < h) ss[t] += ss[t + h], hs[t] += hs[t + h];
    __syncthreads();
  }
  if (t == 0) steps_part[blockIdx.x] = ss[0], hits_part[blockIdx.x] = hs[0];
}

/* ---------------------------------------------------------------- bhforce */

#define SOFT2 (LBS_NB_SOFT * LBS_NB_SOFT)

/* lbs_nb_accel on the flattened tree (bhtree_int.h): no stack, the CPU's order of interactions. */
__global__ static void bhforce(int nn, int64_t nbody, double theta, const double *nd, const int32_t *ni,
                               const double *xs, const int64_t *idx, int64_t ntarget, const int64_t *target,
                               const double *xt, double *acc, long long *inter) {
  int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= ntarget) return;
  int64_t self = target[t];
  double mb = 1.0 / (double)nbody, xi0 = xt[3 * t], xi1 = xt[3 * t + 1], xi2 = xt[3 * t + 2];
  double a0 = 0, a1 = 0, a2 = 0;
  long long cnt = 0;
  int v = 0;
  while (v < nn) {
    const double *q = nd + 5 * (int64_t)v;
    const int32_t *r = ni + 4 * (int64_t)v;
    double d0 = q[0] - xi0, d1 = q[1] - xi1, d2 = q[2] - xi2;
    double r2 = M(d0, d0) + M(d1, d1) + M(d2, d2);
    if (r[0] < 0 && M(M(4, q[3]), q[3]) < M(M(theta, theta), r2)) {
      double f = M(q[4], mb) / M(r2 + SOFT2, sqrt(r2 + SOFT2));
      a0 += M(f, d0), a1 += M(f, d1), a2 += M(f, d2);
      cnt++;
      v = r[3];
    } else if (r[0] >= 0) {
      for (int j = r[1]; j < r[1] + r[2]; j++) {
        if (idx[j] == self) continue;
        double e0 = xs[3 * (int64_t)j] - xi0, e1 = xs[3 * (int64_t)j + 1] - xi1, e2 = xs[3 * (int64_t)j + 2] - xi2;
        double s2 = M(e0, e0) + M(e1, e1) + M(e2, e2) + SOFT2, f = mb / M(s2, sqrt(s2));
        a0 += M(f, e0), a1 += M(f, e1), a2 += M(f, e2);
        cnt++;
      }
      v = r[3];
    } else {
      v++;
    }
  }
  acc[3 * t] = a0, acc[3 * t + 1] = a1, acc[3 * t + 2] = a2;
  inter[t] = cnt;
}

/* ---------------------------------------------------------------- the host side */

typedef struct cu {
  const char *kernel; /* ours, for messages */
  int dev;            /* the device number */
} cu;

static lbs_err cufail(const cu *o, const char *call, cudaError_t err) {
  return lbs_fail(LBS_IO, "cuda %s: %s: %s", o->kernel, call, cudaGetErrorName(err));
}

/* Checks a CUDA call inside a function with `lbs_err e` and a `done:` label. */
#define CK(call, what)            \
  do {                            \
    cudaError_t ck_ = (call);     \
    if (ck_ != cudaSuccess) {     \
      e = cufail(o, what, ck_);   \
      goto done;                  \
    }                             \
  } while (0)
/* After a launch: its configuration error, if any. */
#define LAUNCHED(what) CK(cudaGetLastError(), what)

static void cu_close(void *ctx) { free(ctx); } /* the primary context stays with the runtime */

/* The kernels an implementation launches, to check at open() that this build has code for the
 * device (cudaFuncGetAttributes fails where it has not). */
typedef struct {
  const char *kernel;
  const void *fn[3];
} kernel_fns;

static lbs_err cu_open(const kernel_fns *k, void **out, const lbs_impl_args *args, char *device, size_t n) {
  *out = NULL;
  int count = 0, want = args ? args->device : 0;
  cudaError_t r = cudaGetDeviceCount(&count);
  if (r != cudaSuccess) return lbs_fail(LBS_NOTFOUND, "no CUDA device (%s)", cudaGetErrorString(r));
  if (count == 0) return lbs_fail(LBS_NOTFOUND, "no CUDA device (cudaGetDeviceCount: 0 devices)");
  if (want < 0 || want >= count)
    return lbs_fail(LBS_NOTFOUND, "cuda %s: no CUDA device %d: there %s %d", k->kernel, want, count == 1 ? "is" : "are",
                    count);
  cu *o = (cu *)calloc(1, sizeof *o);
  if (!o) return lbs_fail(LBS_NOMEM, "cuda %s: context", k->kernel);
  o->kernel = k->kernel, o->dev = want;
  lbs_err e = LBS_OK;
  cudaDeviceProp prop;
  CK(cudaSetDevice(want), "cudaSetDevice");
  CK(cudaGetDeviceProperties(&prop, want), "cudaGetDeviceProperties");
  CK(cudaFree(NULL), "cudaFree"); /* makes the context now, not in the first measured call */
  for (int i = 0; i < 3 && k->fn[i]; i++) {
    cudaFuncAttributes fa;
    if ((r = cudaFuncGetAttributes(&fa, k->fn[i])) != cudaSuccess) {
      e = lbs_fail(LBS_NOTFOUND, "cuda %s: no code for %s (sm_%d%d) in this build: %s", k->kernel, prop.name,
                   prop.major, prop.minor, cudaGetErrorName(r));
      goto done;
    }
  }
  if (device && n) snprintf(device, n, "cuda: %s", prop.name);
done:
  if (e) cu_close(o);
  else *out = o;
  return e;
}

/* Device memory of bytes (at least 1), copied from host when host is not NULL. */
static lbs_err mkbuf(const cu *o, size_t bytes, const void *host, void **out) {
  cudaError_t r = cudaMalloc(out, bytes ? bytes : 1);
  if (r != cudaSuccess) {
    *out = NULL;
    return cufail(o, "cudaMalloc", r);
  }
  if (host && bytes && (r = cudaMemcpy(*out, host, bytes, cudaMemcpyHostToDevice)) != cudaSuccess)
    return cufail(o, "cudaMemcpy", r);
  return LBS_OK;
}

static lbs_err readbuf(const cu *o, const void *dev, size_t bytes, void *host) {
  cudaError_t r = bytes ? cudaMemcpy(host, dev, bytes, cudaMemcpyDeviceToHost) : cudaSuccess;
  return r == cudaSuccess ? LBS_OK : cufail(o, "cudaMemcpy", r);
}

static void release(void **b, int n) {
  for (int i = 0; i < n; i++)
    if (b[i]) cudaFree(b[i]), b[i] = NULL;
}

static unsigned blocks(size_t n, size_t per) { return (unsigned)((n + per - 1) / per); }

/* ---------------------------------------------------------------- execute */

static lbs_err sort_execute(void *ctx, void *params) {
  cu *o = (cu *)ctx;
  lbs_k_sort *p = (lbs_k_sort *)params;
  lbs_err e = LBS_OK;
  void *v = NULL;
  if (p->n <= 0) return LBS_OK;
  size_t n = (size_t)p->n, N = 1;
  while (N < n) N <<= 1;
  if (N > ((size_t)1 << 31)) return lbs_fail(LBS_RANGE, "cuda sort: %zu values: at most 2^31", n);
  double *pad = NULL;
  CK(cudaSetDevice(o->dev), "cudaSetDevice");
  if ((e = mkbuf(o, N * sizeof(double), NULL, &v))) goto done;
  CK(cudaMemcpy(v, p->a, n * sizeof(double), cudaMemcpyHostToDevice), "cudaMemcpy");
  if (N > n) { /* +infinity past the values: they stay at the end */
    if (!(pad = (double *)malloc((N - n) * sizeof *pad))) {
      e = lbs_fail(LBS_NOMEM, "cuda sort: %zu values", N);
      goto done;
    }
    for (size_t i = 0; i < N - n; i++) pad[i] = INFINITY;
    CK(cudaMemcpy((double *)v + n, pad, (N - n) * sizeof *pad, cudaMemcpyHostToDevice), "cudaMemcpy");
  }
  if (N >= 2) {
    unsigned L = (unsigned)(WG < N / 2 ? WG : N / 2), nb = (unsigned)(N / 2 / L);
    bsort_local_init<<<nb, L, 2 * L * sizeof(double)>>>((double *)v);
    LAUNCHED("bsort_local_init");
    for (size_t k = 4 * (size_t)L; k <= N; k <<= 1) {
      for (size_t j = k >> 1; j >= 2 * (size_t)L; j >>= 1) {
        bsort_global<<<nb, L>>>((double *)v, (unsigned)k, (unsigned)j);
        LAUNCHED("bsort_global");
      }
      bsort_local_merge<<<nb, L, 2 * L * sizeof(double)>>>((double *)v, (unsigned)k);
      LAUNCHED("bsort_local_merge");
    }
  }
  e = readbuf(o, v, n * sizeof(double), p->a);
done:
  release(&v, 1);
  free(pad);
  return e;
}

#define DOT_MAX_BLOCKS 1024

static lbs_err dot_execute(void *ctx, void *params) {
  cu *o = (cu *)ctx;
  lbs_k_dot *p = (lbs_k_dot *)params;
  lbs_err e = LBS_OK;
  void *b[3] = {NULL, NULL, NULL};
  double part[DOT_MAX_BLOCKS], s = 0;
  p->result = 0;
  if (p->n <= 0) return LBS_OK;
  size_t n = (size_t)p->n;
  unsigned G = blocks(n, WG);
  if (G > DOT_MAX_BLOCKS) G = DOT_MAX_BLOCKS;
  CK(cudaSetDevice(o->dev), "cudaSetDevice");
  if ((e = mkbuf(o, n * sizeof(double), p->x, &b[0])) || (e = mkbuf(o, n * sizeof(double), p->y, &b[1])) ||
      (e = mkbuf(o, G * sizeof(double), NULL, &b[2])))
    goto done;
  dot_part<<<G, WG>>>(p->n, (const double *)b[0], (const double *)b[1], (double *)b[2]);
  LAUNCHED("dot_part");
  if ((e = readbuf(o, b[2], G * sizeof(double), part))) goto done;
  for (unsigned g = 0; g < G; g++) s += part[g]; /* a fixed order: the same result every time */
  p->result = s;
done:
  release(b, 3);
  return e;
}

static lbs_err conv1d_execute(void *ctx, void *params) {
  cu *o = (cu *)ctx;
  lbs_k_conv1d *p = (lbs_k_conv1d *)params;
  lbs_err e = LBS_OK;
  void *b[3] = {NULL, NULL, NULL};
  if (p->na <= 0 || p->nb <= 0) { /* an empty factor: every output (if any) is an empty sum */
    for (int64_t k = 0; k < p->na + p->nb - 1; k++) p->out[k] = 0;
    return LBS_OK;
  }
  size_t na = (size_t)p->na, nb = (size_t)p->nb, nout = na + nb - 1;
  CK(cudaSetDevice(o->dev), "cudaSetDevice");
  if ((e = mkbuf(o, na * sizeof(double), p->a, &b[0])) || (e = mkbuf(o, nb * sizeof(double), p->b, &b[1])) ||
      (e = mkbuf(o, nout * sizeof(double), NULL, &b[2])))
    goto done;
  conv1d<<<blocks(nout, WG), WG>>>(p->na, p->nb, (const double *)b[0], (const double *)b[1], (double *)b[2]);
  LAUNCHED("conv1d");
  e = readbuf(o, b[2], nout * sizeof(double), p->out);
done:
  release(b, 3);
  return e;
}

static lbs_err matmul_execute(void *ctx, void *params) {
  cu *o = (cu *)ctx;
  lbs_k_matmul *p = (lbs_k_matmul *)params;
  lbs_err e = LBS_OK;
  void *b[3] = {NULL, NULL, NULL};
  if (p->m <= 0 || p->p <= 0) return LBS_OK;
  size_t m = (size_t)p->m, nn = p->n > 0 ? (size_t)p->n : 0, pp = (size_t)p->p;
  if (nn == 0) { /* C = 0: no product to compute */
    memset(p->C, 0, m * pp * sizeof *p->C);
    return LBS_OK;
  }
  CK(cudaSetDevice(o->dev), "cudaSetDevice");
  if ((e = mkbuf(o, m * nn * sizeof(double), p->A, &b[0])) || (e = mkbuf(o, nn * pp * sizeof(double), p->B, &b[1])) ||
      (e = mkbuf(o, m * pp * sizeof(double), NULL, &b[2])))
    goto done;
  {
    dim3 grid(blocks(pp, TS), blocks(m, TS)), block(TS, TS);
    matmul_tiled<<<grid, block>>>(p->m, p->n, p->p, (const double *)b[0], (const double *)b[1], (double *)b[2]);
  }
  LAUNCHED("matmul_tiled");
  e = readbuf(o, b[2], m * pp * sizeof(double), p->C);
done:
  release(b, 3);
  return e;
}

static lbs_err wave_execute(void *ctx, void *params) {
  cu *o = (cu *)ctx;
  lbs_k_wave *p = (lbs_k_wave *)params;
  lbs_err e = LBS_OK;
  void *b[3] = {NULL, NULL, NULL};
  double *en = NULL, *em = NULL, energy = 0, emax = 0;
  p->energy = 0, p->emax = 0;
  if (p->ncells <= 0) return LBS_OK;
  size_t B = p->b > 0 ? (size_t)p->b : 0, pts = B * B * B;
  if (B == 0 || pts > 1024)
    return lbs_fail(LBS_RANGE, "cuda wave: a cell of %d^3 points is more than a block (1024 threads)", p->b);
  size_t nc = (size_t)p->ncells, cellsz = 6 * (B + 1) * (B + 1) * (B + 1);
  en = (double *)malloc(nc * sizeof *en), em = (double *)malloc(nc * sizeof *em);
  if (!en || !em) {
    e = lbs_fail(LBS_NOMEM, "cuda wave: %zu cells", nc);
    goto done;
  }
  CK(cudaSetDevice(o->dev), "cudaSetDevice");
  if ((e = mkbuf(o, nc * cellsz * sizeof(double), p->F, &b[0])) || (e = mkbuf(o, nc * sizeof(double), NULL, &b[1])) ||
      (e = mkbuf(o, nc * sizeof(double), NULL, &b[2])))
    goto done;
  wave<<<(unsigned)nc, (unsigned)pts, 2 * pts * sizeof(double)>>>(p->b, p->S, (double *)b[0], (double *)b[1],
                                                                  (double *)b[2]);
  LAUNCHED("wave");
  if ((e = readbuf(o, b[0], nc * cellsz * sizeof(double), p->F)) || (e = readbuf(o, b[1], nc * sizeof(double), en)) ||
      (e = readbuf(o, b[2], nc * sizeof(double), em)))
    goto done;
  for (size_t c = 0; c < nc; c++) energy += en[c], emax = em[c] > emax ? em[c] : emax; /* cells in order */
  p->energy = energy, p->emax = emax;
done:
  release(b, 3);
  free(en), free(em);
  return e;
}

static lbs_err walk_execute(void *ctx, void *params) {
  cu *o = (cu *)ctx;
  lbs_k_walk *p = (lbs_k_walk *)params;
  lbs_err e = LBS_OK;
  void *b[3] = {NULL, NULL, NULL};
  long long *part = NULL;
  p->hits = p->steps = 0;
  if (p->nwalks <= 0) return LBS_OK;
  size_t nw = (size_t)p->nwalks;
  unsigned G = blocks(nw, WG);
  if (!(part = (long long *)malloc(2 * (size_t)G * sizeof *part))) {
    e = lbs_fail(LBS_NOMEM, "cuda walk: %u blocks", G);
    goto done;
  }
  CK(cudaSetDevice(o->dev), "cudaSetDevice");
  if ((e = mkbuf(o, nw * sizeof(int64_t), p->start, &b[0])) || (e = mkbuf(o, G * sizeof(long long), NULL, &b[1])) ||
      (e = mkbuf(o, G * sizeof(long long), NULL, &b[2])))
    goto done;
  walk<<<G, WG>>>(p->N, p->nwalks, (const int64_t *)b[0], p->seed, (long long *)b[1], (long long *)b[2]);
  LAUNCHED("walk");
  if ((e = readbuf(o, b[1], G * sizeof(long long), part)) || (e = readbuf(o, b[2], G * sizeof(long long), part + G)))
    goto done;
  for (unsigned g = 0; g < G; g++) p->steps += part[g], p->hits += part[G + g];
done:
  release(b, 3);
  free(part);
  return e;
}

static lbs_err bhforce_execute(void *ctx, void *params) {
  cu *o = (cu *)ctx;
  lbs_k_bhforce *p = (lbs_k_bhforce *)params;
  const lbs_nb_tree *t = (const lbs_nb_tree *)p->tree;
  lbs_err e = LBS_OK;
  void *b[8] = {NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL};
  double *nd = NULL, *xs = NULL, *xt = NULL;
  int32_t *ni = NULL;
  long long *inter = NULL;
  size_t nn, nb, nt;
  p->interactions = 0;
  if (p->ntarget <= 0) return LBS_OK;
  if (!t || t->nn <= 0 || p->nbody <= 0) return lbs_fail(LBS_INVAL, "cuda bhforce: no tree");
  nn = (size_t)t->nn, nb = (size_t)p->nbody, nt = (size_t)p->ntarget;
  nd = (double *)malloc(5 * nn * sizeof *nd), ni = (int32_t *)malloc(4 * nn * sizeof *ni);
  xs = (double *)malloc(3 * nb * sizeof *xs), xt = (double *)malloc(3 * nt * sizeof *xt);
  inter = (long long *)malloc(nt * sizeof *inter);
  if (!nd || !ni || !xs || !xt || !inter) {
    e = lbs_fail(LBS_NOMEM, "cuda bhforce: %zu nodes, %zu targets", nn, nt);
    goto done;
  }
  if ((e = lbs__bh_flatten(t, nd, ni))) goto done;
  for (size_t j = 0; j < nb; j++) memcpy(xs + 3 * j, p->x + 3 * t->idx[j], 3 * sizeof *xs);
  for (size_t k = 0; k < nt; k++) memcpy(xt + 3 * k, p->x + 3 * p->target[k], 3 * sizeof *xt);
  CK(cudaSetDevice(o->dev), "cudaSetDevice");
  if ((e = mkbuf(o, 5 * nn * sizeof *nd, nd, &b[0])) || (e = mkbuf(o, 4 * nn * sizeof *ni, ni, &b[1])) ||
      (e = mkbuf(o, 3 * nb * sizeof *xs, xs, &b[2])) || (e = mkbuf(o, nb * sizeof(int64_t), t->idx, &b[3])) ||
      (e = mkbuf(o, nt * sizeof(int64_t), p->target, &b[4])) || (e = mkbuf(o, 3 * nt * sizeof *xt, xt, &b[5])) ||
      (e = mkbuf(o, 3 * nt * sizeof(double), NULL, &b[6])) || (e = mkbuf(o, nt * sizeof(long long), NULL, &b[7])))
    goto done;
  bhforce<<<blocks(nt, WG), WG>>>((int)nn, p->nbody, p->theta, (const double *)b[0], (const int32_t *)b[1],
                                  (const double *)b[2], (const int64_t *)b[3], p->ntarget, (const int64_t *)b[4],
                                  (const double *)b[5], (double *)b[6], (long long *)b[7]);
  LAUNCHED("bhforce");
  if ((e = readbuf(o, b[6], 3 * nt * sizeof(double), p->acc)) || (e = readbuf(o, b[7], nt * sizeof(long long), inter)))
    goto done;
  for (size_t k = 0; k < nt; k++) p->interactions += inter[k];
done:
  release(b, 8);
  free(nd), free(ni), free(xs), free(xt), free(inter);
  return e;
}

/* ---------------------------------------------------------------- the table */

#define OPEN(name, ...)                                                                                   \
  static lbs_err name##_open(void **ctx, const lbs_impl_args *args, char *device, size_t n) {             \
    static const kernel_fns k = {#name, {__VA_ARGS__}};                                                   \
    return cu_open(&k, ctx, args, device, n);                                                             \
  }                                                                                                       \
  static const lbs_impl_ops name##_ops = {.kernel = #name,                                                \
                                          .target = "cuda",                                               \
                                          .open = name##_open,                                            \
                                          .execute = name##_execute,                                      \
                                          .close = cu_close};
OPEN(sort, (const void *)bsort_local_init, (const void *)bsort_local_merge, (const void *)bsort_global)
OPEN(dot, (const void *)dot_part)
OPEN(conv1d, (const void *)conv1d)
OPEN(matmul, (const void *)matmul_tiled)
OPEN(wave, (const void *)wave)
OPEN(walk, (const void *)walk)
OPEN(bhforce, (const void *)bhforce)
#undef OPEN

extern "C" {
extern const lbs_impl_ops *const lbs__impls_cuda[] = {&sort_ops, &dot_ops,  &conv1d_ops, &matmul_ops,
                                                      &wave_ops, &walk_ops, &bhforce_ops, NULL};
extern const int lbs__cuda_built = 1;
}
