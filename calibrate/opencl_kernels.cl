/* opencl_kernels.cl - the OpenCL C kernels of the opencl target (opencl.c), embedded into the
 * library at build time (embed.cmake) and built by every open(). OpenCL C 1.2 with cl_khr_fp64.
 *
 * wave, walk and bhforce keep the host's arithmetic (no contraction into fused multiply-adds,
 * the same operations in the same order), so their results match the CPU's; sort, dot, conv1d
 * and matmul may contract. */
#pragma OPENCL EXTENSION cl_khr_fp64 : enable

/* ---------------------------------------------------------------- sort: bitonic
 *
 * N (a power of two) values; work-item t of N/2 compares the pair (i, i + j) of stage (k, j),
 * i = 2 j (t / j) + t % j, ascending where (i & k) == 0. Blocks of 2L values (L the local size)
 * run every stage with j < 2L in local memory. */

static void cmpx(__local double *s, uint i, uint j, int up) {
  double a = s[i], b = s[i + j];
  if ((a > b) == up) s[i] = b, s[i + j] = a;
}

/* All stages k = 2 .. 2L of each block of 2L values (or of the whole array when smaller). */
__kernel void bsort_local_init(__global double *v, __local double *s) {
  uint L = get_local_size(0), t = get_local_id(0), base = 2 * L * get_group_id(0);
  s[t] = v[base + t], s[t + L] = v[base + t + L];
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint k = 2; k <= 2 * L; k <<= 1)
    for (uint j = k >> 1; j > 0; j >>= 1) {
      uint i = 2 * j * (t / j) + t % j;
      cmpx(s, i, j, ((base + i) & k) == 0);
      barrier(CLK_LOCAL_MEM_FENCE);
    }
  v[base + t] = s[t], v[base + t + L] = s[t + L];
}

/* The stages j = L .. 1 of stage k (> 2L) in local memory. */
__kernel void bsort_local_merge(__global double *v, __local double *s, uint k) {
  uint L = get_local_size(0), t = get_local_id(0), base = 2 * L * get_group_id(0);
  s[t] = v[base + t], s[t + L] = v[base + t + L];
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint j = L; j > 0; j >>= 1) {
    uint i = 2 * j * (t / j) + t % j;
    cmpx(s, i, j, ((base + i) & k) == 0);
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  v[base + t] = s[t], v[base + t + L] = s[t + L];
}

/* One stage (k, j) with j >= 2L over the whole array. */
__kernel void bsort_global(__global double *v, uint k, uint j) {
  uint t = get_global_id(0), i = 2 * j * (t / j) + t % j;
  double a = v[i], b = v[i + j];
  if ((a > b) == ((i & k) == 0)) v[i] = b, v[i + j] = a;
}

/* ---------------------------------------------------------------- dot
 *
 * Work-item g sums x[i] y[i] for i = g, g + G, ... (G the global size); each work-group reduces
 * its sums in local memory into part[group]; the host adds the parts in order. */
__kernel void dot_part(long n, __global const double *x, __global const double *y, __global double *part,
                       __local double *s) {
  size_t G = get_global_size(0), L = get_local_size(0), t = get_local_id(0);
  double acc = 0;
  for (long i = get_global_id(0); i < n; i += G) acc += x[i] * y[i];
  s[t] = acc;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (size_t h = L >> 1; h > 0; h >>= 1) {
    if (t < h) s[t] += s[t + h];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (t == 0) part[get_group_id(0)] = s[0];
}

/* ---------------------------------------------------------------- conv1d: full, direct
 *
 * One work-item per output: out[k] = sum over i of a[i] b[k - i], i ascending. */
__kernel void conv1d(long na, long nb, __global const double *a, __global const double *b,
                     __global double *out) {
  long k = get_global_id(0);
  if (k >= na + nb - 1) return;
  long lo = k - nb + 1 > 0 ? k - nb + 1 : 0, hi = k < na - 1 ? k : na - 1;
  double acc = 0;
  for (long i = lo; i <= hi; i++) acc += a[i] * b[k - i];
  out[k] = acc;
}

/* ---------------------------------------------------------------- matmul
 *
 * C = A B, row-major. Tiled: a TS x TS work-group computes a TS x TS block of C, staging a tile
 * of A and one of B in local memory per step along n (zeros past the edges). Dimension 0 runs
 * along C's columns so that reads of B and writes of C are contiguous. matmul_naive is the
 * fallback for devices whose work-groups cannot hold TS x TS work-items. */
#ifndef TS
#define TS 16
#endif
__kernel void matmul_tiled(int m, int n, int p, __global const double *A, __global const double *B,
                           __global double *C) {
  __local double As[TS][TS], Bs[TS][TS];
  int lx = get_local_id(0), ly = get_local_id(1);
  long col = get_global_id(0), row = get_global_id(1);
  double acc = 0;
  for (int t0 = 0; t0 < n; t0 += TS) {
    As[ly][lx] = row < m && t0 + lx < n ? A[row * n + t0 + lx] : 0.0;
    Bs[ly][lx] = t0 + ly < n && col < p ? B[(long)(t0 + ly) * p + col] : 0.0;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int e = 0; e < TS; e++) acc += As[ly][e] * Bs[e][lx];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (row < m && col < p) C[row * p + col] = acc;
}

__kernel void matmul_naive(int m, int n, int p, __global const double *A, __global const double *B,
                           __global double *C) {
  long col = get_global_id(0), row = get_global_id(1);
  if (row >= m || col >= p) return;
  double acc = 0;
  for (int e = 0; e < n; e++) acc += A[row * n + e] * B[(long)e * p + col];
  C[row * p + col] = acc;
}

/* From here on: the host's arithmetic, operation for operation. */
#pragma OPENCL FP_CONTRACT OFF

/* ---------------------------------------------------------------- wave
 *
 * apps/wave's update_H then update_E on every cell, halos held, no source. A work-group per
 * cell, a work-item per point (i fastest, then j, then k: local id i + b (j + b k)), a barrier
 * between the two updates. The points' energy terms go to local memory and work-item 0 adds
 * them in the CPU's order, so each cell's energy is the CPU's bit for bit; the host adds the
 * cells in order. F: ncells blocks of 6 components of (b+1)^3 doubles. */
__kernel void wave(int b, double S, __global double *Fall, __global double *energy, __global double *emax,
                   __local double *we, __local double *wm) {
  int n1 = b + 1;
  long sy = n1, sz = (long)n1 * n1, off = 1 + sy + sz, comp = sz * n1;
  __global double *F = Fall + get_group_id(0) * 6 * comp;
  int t = get_local_id(0), i = t % b, j = t / b % b, k = t / (b * b);
  long p = i + j * sy + k * sz;
  __global double *Ex = F, *Ey = F + comp, *Ez = F + 2 * comp;
  __global double *Hx = F + 3 * comp + off, *Hy = F + 4 * comp + off, *Hz = F + 5 * comp + off;
  {
    double ex = Ex[p], ey = Ey[p], ez = Ez[p];
    double hx = Hx[p] - S * ((Ez[p + sy] - ez) - (Ey[p + sz] - ey));
    double hy = Hy[p] - S * ((Ex[p + sz] - ex) - (Ez[p + 1] - ez));
    double hz = Hz[p] - S * ((Ey[p + 1] - ey) - (Ex[p + sy] - ex));
    we[t] = ex * ex + ey * ey + ez * ez + hx * Hx[p] + hy * Hy[p] + hz * Hz[p];
    Hx[p] = hx, Hy[p] = hy, Hz[p] = hz;
  }
  barrier(CLK_GLOBAL_MEM_FENCE);
  {
    double ex = Ex[p] + S * ((Hz[p] - Hz[p - sy]) - (Hy[p] - Hy[p - sz]));
    double ey = Ey[p] + S * ((Hx[p] - Hx[p - sz]) - (Hz[p] - Hz[p - 1]));
    double ez = Ez[p] + S * ((Hy[p] - Hy[p - 1]) - (Hx[p] - Hx[p - sy]));
    Ex[p] = ex, Ey[p] = ey, Ez[p] = ez;
    wm[t] = fmax(fabs(ex), fmax(fabs(ey), fabs(ez)));
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  if (t == 0) {
    double w = 0, m = 0;
    for (int q = 0; q < b * b * b; q++) w += we[q], m = wm[q] > m ? wm[q] : m;
    energy[get_group_id(0)] = w, emax[get_group_id(0)] = m;
  }
}

/* ---------------------------------------------------------------- walk
 *
 * lbs_rng_u64 of core/core.c (splitmix64), bit for bit. */
static ulong mix64(ulong z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9UL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebUL;
  return z ^ (z >> 31);
}
static ulong rng_u64(ulong seed, ulong stream, ulong index) {
  return mix64(mix64(seed * 0x9e3779b97f4a7c15UL + stream) ^ (index + 0x632be59bd9b4e019UL));
}

/* apps/laplace-mc's walk() from start[k], one work-item per walk (stream start << 32 | k); each
 * work-group adds its walks' steps and hits in local memory into steps_part, hits_part. */
__kernel void walk(long N, long nwalks, __global const long *start, ulong seed, __global long *steps_part,
                   __global long *hits_part, __local long *ss, __local long *hs) {
  long k = get_global_id(0);
  size_t t = get_local_id(0), L = get_local_size(0);
  long steps = 0, hot = 0;
  if (k < nwalks) {
    long g = start[k], x = g % N, y = g / N;
    ulong stream = (ulong)g << 32 | (ulong)k, word = 0, widx = 0;
    int left = 0;
    for (;;) {
      if (!left) word = rng_u64(seed, stream, widx++), left = 32;
      uint d = (uint)(word & 3); /* 0: +x, 1: -x, 2: +y, 3: -y */
      x += (d == 0) - (d == 1), y += (d == 2) - (d == 3);
      word >>= 2, left--, steps++;
      if ((ulong)x >= (ulong)N || (ulong)y >= (ulong)N) break;
    }
    hot = y >= N;
  }
  ss[t] = steps, hs[t] = hot;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (size_t h = L >> 1; h > 0; h >>= 1) {
    if (t < h) ss[t] += ss[t + h], hs[t] += hs[t + h];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (t == 0) steps_part[get_group_id(0)] = ss[0], hits_part[get_group_id(0)] = hs[0];
}

/* ---------------------------------------------------------------- bhforce
 *
 * workloads/nbody.c's lbs_nb_accel on a flattened tree: the nodes in the preorder of its stack walk
 * (children 0 to 7), so that the walk needs no stack: a node used whole or a leaf goes on to
 * skip (the node after its subtree), an opened node to the next one (its first child). The
 * order of the interactions, and so of the sums, is the CPU's. Per node: nd = com x y z, h, m;
 * ni = leaf (>= 0) or -1, first, cnt, skip. xs: the bodies' positions in tree order (idx). */
#define SOFT2 (0.01 * 0.01)
__kernel void bhforce(int nn, long nbody, double theta, __global const double *nd, __global const int *ni,
                      __global const double *xs, __global const long *idx, long ntarget,
                      __global const long *target, __global const double *xt, __global double *acc,
                      __global long *inter) {
  long t = get_global_id(0);
  if (t >= ntarget) return;
  long self = target[t];
  double mb = 1.0 / (double)nbody, xi0 = xt[3 * t], xi1 = xt[3 * t + 1], xi2 = xt[3 * t + 2];
  double a0 = 0, a1 = 0, a2 = 0;
  long cnt = 0;
  int v = 0;
  while (v < nn) {
    __global const double *q = nd + 5 * (long)v;
    __global const int *r = ni + 4 * (long)v;
    double d0 = q[0] - xi0, d1 = q[1] - xi1, d2 = q[2] - xi2;
    double r2 = d0 * d0 + d1 * d1 + d2 * d2;
    if (r[0] < 0 && 4 * q[3] * q[3] < theta * theta * r2) {
      double f = q[4] * mb / ((r2 + SOFT2) * sqrt(r2 + SOFT2));
      a0 += f * d0, a1 += f * d1, a2 += f * d2;
      cnt++;
      v = r[3];
    } else if (r[0] >= 0) {
      for (int j = r[1]; j < r[1] + r[2]; j++) {
        if (idx[j] == self) continue;
        double e0 = xs[3 * (long)j] - xi0, e1 = xs[3 * (long)j + 1] - xi1, e2 = xs[3 * (long)j + 2] - xi2;
        double s2 = e0 * e0 + e1 * e1 + e2 * e2 + SOFT2, f = mb / (s2 * sqrt(s2));
        a0 += f * e0, a1 += f * e1, a2 += f * e2;
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
