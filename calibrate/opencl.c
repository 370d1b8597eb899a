/* opencl.c - the opencl implementations: the seven kernels on any OpenCL 1.2 device with doubles
 * (cl_khr_fp64), through the ICD loader (PoCL on the CPU here, a GPU's driver elsewhere).
 *
 * open() picks device args->device counting over every platform's devices, makes a context and
 * an in-order queue and builds the kernels (opencl_kernels.cl, embedded at build time as
 * lbs__opencl_src). execute() is the measured invocation: it creates the device buffers, writes
 * the inputs, runs the kernels, reads the outputs back into the parameters and releases the
 * buffers, so every transfer counts. Every OpenCL call is checked; a failure is LBS_IO
 * "opencl <kernel>: <call>: <error name>", never a crash. The kernels' designs are described
 * in opencl_kernels.cl. */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bhtree_int.h"
#include "kernels.h"
#include "opencl_kernels.h" /* lbs__opencl_src, generated from opencl_kernels.cl */

#define MAX_CL_KERNELS 3 /* OpenCL kernels of one of ours at most (sort: 3) */
#define MAX_WG 256       /* largest local size used for 1-D kernels */
#define TS 16            /* matmul tile (the -DTS of the build) */

/* ---------------------------------------------------------------- error names */

/* The name of each OpenCL error code. */
#define E(x)                                                                                       \
  { x, #x }
static const struct {
  cl_int code;
  const char *name;
} cl_errnames[] = {E(CL_SUCCESS),
                   E(CL_DEVICE_NOT_FOUND),
                   E(CL_DEVICE_NOT_AVAILABLE),
                   E(CL_COMPILER_NOT_AVAILABLE),
                   E(CL_MEM_OBJECT_ALLOCATION_FAILURE),
                   E(CL_OUT_OF_RESOURCES),
                   E(CL_OUT_OF_HOST_MEMORY),
                   E(CL_PROFILING_INFO_NOT_AVAILABLE),
                   E(CL_MEM_COPY_OVERLAP),
                   E(CL_IMAGE_FORMAT_MISMATCH),
                   E(CL_IMAGE_FORMAT_NOT_SUPPORTED),
                   E(CL_BUILD_PROGRAM_FAILURE),
                   E(CL_MAP_FAILURE),
                   E(CL_MISALIGNED_SUB_BUFFER_OFFSET),
                   E(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST),
                   E(CL_COMPILE_PROGRAM_FAILURE),
                   E(CL_LINKER_NOT_AVAILABLE),
                   E(CL_LINK_PROGRAM_FAILURE),
                   E(CL_DEVICE_PARTITION_FAILED),
                   E(CL_KERNEL_ARG_INFO_NOT_AVAILABLE),
                   E(CL_INVALID_VALUE),
                   E(CL_INVALID_DEVICE_TYPE),
                   E(CL_INVALID_PLATFORM),
                   E(CL_INVALID_DEVICE),
                   E(CL_INVALID_CONTEXT),
                   E(CL_INVALID_QUEUE_PROPERTIES),
                   E(CL_INVALID_COMMAND_QUEUE),
                   E(CL_INVALID_HOST_PTR),
                   E(CL_INVALID_MEM_OBJECT),
                   E(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR),
                   E(CL_INVALID_IMAGE_SIZE),
                   E(CL_INVALID_SAMPLER),
                   E(CL_INVALID_BINARY),
                   E(CL_INVALID_BUILD_OPTIONS),
                   E(CL_INVALID_PROGRAM),
                   E(CL_INVALID_PROGRAM_EXECUTABLE),
                   E(CL_INVALID_KERNEL_NAME),
                   E(CL_INVALID_KERNEL_DEFINITION),
                   E(CL_INVALID_KERNEL),
                   E(CL_INVALID_ARG_INDEX),
                   E(CL_INVALID_ARG_VALUE),
                   E(CL_INVALID_ARG_SIZE),
                   E(CL_INVALID_KERNEL_ARGS),
                   E(CL_INVALID_WORK_DIMENSION),
                   E(CL_INVALID_WORK_GROUP_SIZE),
                   E(CL_INVALID_WORK_ITEM_SIZE),
                   E(CL_INVALID_GLOBAL_OFFSET),
                   E(CL_INVALID_EVENT_WAIT_LIST),
                   E(CL_INVALID_EVENT),
                   E(CL_INVALID_OPERATION),
                   E(CL_INVALID_GL_OBJECT),
                   E(CL_INVALID_BUFFER_SIZE),
                   E(CL_INVALID_MIP_LEVEL),
                   E(CL_INVALID_GLOBAL_WORK_SIZE),
                   E(CL_INVALID_PROPERTY),
                   E(CL_INVALID_IMAGE_DESCRIPTOR),
                   E(CL_INVALID_COMPILER_OPTIONS),
                   E(CL_INVALID_LINKER_OPTIONS),
                   E(CL_INVALID_DEVICE_PARTITION_COUNT),
                   {-1001, "CL_PLATFORM_NOT_FOUND_KHR"}};
#undef E

static const char *cl_errname(cl_int e) {
  for (size_t i = 0; i < sizeof cl_errnames / sizeof *cl_errnames; i++)
    if (cl_errnames[i].code == e) return cl_errnames[i].name;
  return "unknown OpenCL error";
}

/* ---------------------------------------------------------------- the context of one
 * implementation */

typedef struct ocl {
  const char *kernel; /* ours, for messages ("sort") */
  cl_context ctx;
  cl_command_queue q; /* in order */
  cl_program prog;
  cl_kernel k[MAX_CL_KERNELS]; /* the OpenCL kernels ours runs, in its table's order */
  size_t wg;                   /* local size of the 1-D kernels: a power of two all of them take */
  size_t kwg[MAX_CL_KERNELS];  /* CL_KERNEL_WORK_GROUP_SIZE of each */
  size_t max_item0;            /* CL_DEVICE_MAX_WORK_ITEM_SIZES[0] */
} ocl;

static lbs_err clfail(const ocl *o, const char *call, cl_int err) {
  return lbs_fail(LBS_IO, "opencl %s: %s: %s", o->kernel, call, cl_errname(err));
}

/* Checks an OpenCL call inside a function with `lbs_err e` and a `done:` label. */
#define CK(call, what)                                                                             \
  do {                                                                                             \
    cl_int ck_ = (call);                                                                           \
    if (ck_ != CL_SUCCESS) {                                                                       \
      e = clfail(o, what, ck_);                                                                    \
      goto done;                                                                                   \
    }                                                                                              \
  } while (0)

static void ocl_close(void *ctx) {
  ocl *o = ctx;
  if (!o) return;
  for (int i = 0; i < MAX_CL_KERNELS; i++)
    if (o->k[i]) clReleaseKernel(o->k[i]);
  if (o->prog) clReleaseProgram(o->prog);
  if (o->q) clReleaseCommandQueue(o->q);
  if (o->ctx) clReleaseContext(o->ctx);
  free(o);
}

/* "name" of a platform or device into buf (empty on failure). */
static void info_str(int dev, void *obj, cl_uint what, char *buf, size_t n) {
  size_t got = 0;
  cl_int r =
      dev ? clGetDeviceInfo(obj, what, n, buf, &got) : clGetPlatformInfo(obj, what, n, buf, &got);
  if (r != CL_SUCCESS) buf[0] = 0;
  buf[n - 1] = 0;
}

/* The device with index want, counting every platform's devices in order; LBS_NOTFOUND naming
 * them when there is none such. */
static lbs_err pick_device(const char *kernel, int want, cl_platform_id *pf, cl_device_id *dev) {
  cl_uint np = 0;
  cl_int r = clGetPlatformIDs(0, NULL, &np);
  if (r != CL_SUCCESS || np == 0)
    return lbs_fail(LBS_NOTFOUND, "no OpenCL device (clGetPlatformIDs: %s)",
                    r != CL_SUCCESS ? cl_errname(r) : "no platform");
  cl_platform_id *pfs = calloc(np, sizeof *pfs);
  if (!pfs) return lbs_fail(LBS_NOMEM, "opencl %s: platforms", kernel);
  lbs_err e = LBS_OK;
  char list[512] = "";
  int total = 0;
  cl_int last = CL_DEVICE_NOT_FOUND;
  if ((r = clGetPlatformIDs(np, pfs, NULL)) != CL_SUCCESS) {
    e = lbs_fail(LBS_NOTFOUND, "no OpenCL device (clGetPlatformIDs: %s)", cl_errname(r));
    goto done;
  }
  for (cl_uint p = 0; p < np; p++) {
    cl_uint nd = 0;
    if ((r = clGetDeviceIDs(pfs[p], CL_DEVICE_TYPE_ALL, 0, NULL, &nd)) != CL_SUCCESS || nd == 0) {
      last = r;
      continue;
    }
    cl_device_id *ds = calloc(nd, sizeof *ds);
    if (!ds) {
      e = lbs_fail(LBS_NOMEM, "opencl %s: devices", kernel);
      goto done;
    }
    if ((r = clGetDeviceIDs(pfs[p], CL_DEVICE_TYPE_ALL, nd, ds, NULL)) != CL_SUCCESS)
      nd = 0, last = r;
    for (cl_uint d = 0; d < nd; d++, total++) {
      char name[128];
      info_str(1, ds[d], CL_DEVICE_NAME, name, sizeof name);
      size_t len = strlen(list);
      snprintf(list + len, sizeof list - len, "%s%d: %s", total ? ", " : "", total, name);
      if (total == want) *pf = pfs[p], *dev = ds[d];
    }
    free(ds);
  }
  if (total == 0)
    e = lbs_fail(LBS_NOTFOUND, "no OpenCL device (clGetDeviceIDs: %s)", cl_errname(last));
  else if (want < 0 || want >= total)
    e = lbs_fail(LBS_NOTFOUND, "opencl %s: no OpenCL device %d: there %s %d (%s)", kernel, want,
                 total == 1 ? "is" : "are", total, list);
done:
  free(pfs);
  return e;
}

/* Opens the device, builds the program and creates the OpenCL kernels names[0 .. nk). */
static lbs_err ocl_open(const char *kernel, const char *const *names, int nk, void **out,
                        const lbs_impl_args *args, char *device, size_t n) {
  *out = NULL;
  ocl *o = calloc(1, sizeof *o);
  if (!o) return lbs_fail(LBS_NOMEM, "opencl %s: context", kernel);
  o->kernel = kernel;
  lbs_err e = LBS_OK;
  cl_int r;
  cl_platform_id pf = NULL;
  cl_device_id dev = NULL;
  if ((e = pick_device(kernel, args ? args->device : 0, &pf, &dev))) goto done;
  char pname[128], dname[128], *ext = NULL;
  size_t ext_len = 0;
  info_str(0, pf, CL_PLATFORM_NAME, pname, sizeof pname);
  info_str(1, dev, CL_DEVICE_NAME, dname, sizeof dname);
  if (device && n) snprintf(device, n, "opencl: %s / %s", pname, dname);
  cl_device_fp_config fp = 0;
  if (clGetDeviceInfo(dev, CL_DEVICE_DOUBLE_FP_CONFIG, sizeof fp, &fp, NULL) != CL_SUCCESS) fp = 0;
  if (clGetDeviceInfo(dev, CL_DEVICE_EXTENSIONS, 0, NULL, &ext_len) == CL_SUCCESS &&
      (ext = calloc(ext_len + 1, 1)) &&
      clGetDeviceInfo(dev, CL_DEVICE_EXTENSIONS, ext_len, ext, NULL) != CL_SUCCESS)
    ext[0] = 0;
  int fp64 = fp && ext && strstr(ext, "cl_khr_fp64");
  free(ext);
  if (!fp64) {
    e = lbs_fail(LBS_NOTFOUND, "opencl %s: device '%s / %s' lacks doubles (no cl_khr_fp64)", kernel,
                 pname, dname);
    goto done;
  }
  size_t items[16] = {0}; /* CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS of them (3 at least) */
  CK(clGetDeviceInfo(dev, CL_DEVICE_MAX_WORK_ITEM_SIZES, sizeof items, items, NULL),
     "clGetDeviceInfo");
  o->max_item0 = items[0];
  o->ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &r);
  CK(r, "clCreateContext");
  o->q = clCreateCommandQueue(o->ctx, dev, 0, &r);
  CK(r, "clCreateCommandQueue");
  const char *src = lbs__opencl_src;
  o->prog = clCreateProgramWithSource(o->ctx, 1, &src, NULL, &r);
  CK(r, "clCreateProgramWithSource");
  char opts[64];
  snprintf(opts, sizeof opts, "-cl-std=CL1.2 -DTS=%d", TS);
  if ((r = clBuildProgram(o->prog, 1, &dev, opts, NULL, NULL)) != CL_SUCCESS) {
    size_t len = 0;
    char *log = NULL;
    if (clGetProgramBuildInfo(o->prog, dev, CL_PROGRAM_BUILD_LOG, 0, NULL, &len) == CL_SUCCESS &&
        (log = calloc(len + 1, 1)) &&
        clGetProgramBuildInfo(o->prog, dev, CL_PROGRAM_BUILD_LOG, len, log, NULL) != CL_SUCCESS)
      log[0] = 0;
    /* the message holds the log's first lines (lbs_errmsg keeps about 1 kB) */
    e = lbs_fail(LBS_IO, "opencl %s: clBuildProgram: %s: %.800s", kernel, cl_errname(r),
                 log && log[0] ? log : "(no build log)");
    free(log);
    goto done;
  }
  o->wg = MAX_WG;
  while (o->wg > items[0]) o->wg >>= 1;
  for (int i = 0; i < nk; i++) {
    o->k[i] = clCreateKernel(o->prog, names[i], &r);
    CK(r, "clCreateKernel");
    CK(clGetKernelWorkGroupInfo(o->k[i], dev, CL_KERNEL_WORK_GROUP_SIZE, sizeof o->kwg[i],
                                &o->kwg[i], NULL),
       "clGetKernelWorkGroupInfo");
    while (o->wg > o->kwg[i] && o->wg > 1) o->wg >>= 1;
  }
done:
  if (e)
    ocl_close(o);
  else
    *out = o;
  return e;
}

/* ---------------------------------------------------------------- execute helpers */

/* A device buffer of bytes (at least 1), written from host when host is not NULL (non-blocking:
 * host stays valid until the caller's clFinish). */
static lbs_err mkbuf(ocl *o, size_t bytes, const void *host, cl_mem *out) {
  cl_int r;
  *out = clCreateBuffer(o->ctx, CL_MEM_READ_WRITE, bytes ? bytes : 1, NULL, &r);
  if (r != CL_SUCCESS) return clfail(o, "clCreateBuffer", r);
  if (host && bytes &&
      (r = clEnqueueWriteBuffer(o->q, *out, CL_FALSE, 0, bytes, host, 0, NULL, NULL)) != CL_SUCCESS)
    return clfail(o, "clEnqueueWriteBuffer", r);
  return LBS_OK;
}

static lbs_err readbuf(ocl *o, cl_mem b, size_t bytes, void *host) {
  cl_int r =
      bytes ? clEnqueueReadBuffer(o->q, b, CL_TRUE, 0, bytes, host, 0, NULL, NULL) : CL_SUCCESS;
  return r == CL_SUCCESS ? LBS_OK : clfail(o, "clEnqueueReadBuffer", r);
}

/* Sets kernel k's arguments: pairs of (size, pointer), a NULL pointer for local memory. */
static lbs_err setargs(ocl *o, cl_kernel k, int nargs, const size_t *size, const void *const *val) {
  for (int i = 0; i < nargs; i++) {
    cl_int r = clSetKernelArg(k, (cl_uint)i, size[i], val[i]);
    if (r != CL_SUCCESS) return clfail(o, "clSetKernelArg", r);
  }
  return LBS_OK;
}
#define SETARGS(k, ...)                                                                            \
  do {                                                                                             \
    const void *v_[] = {__VA_ARGS__};                                                              \
    if ((e = setargs(o, k, (int)(sizeof sz_ / sizeof *sz_), sz_, v_))) goto done;                  \
  } while (0)

static lbs_err run1(ocl *o, cl_kernel k, size_t global, size_t local) {
  cl_int r =
      clEnqueueNDRangeKernel(o->q, k, 1, NULL, &global, local ? &local : NULL, 0, NULL, NULL);
  return r == CL_SUCCESS ? LBS_OK : clfail(o, "clEnqueueNDRangeKernel", r);
}

static void release(cl_mem *b, int n) {
  for (int i = 0; i < n; i++)
    if (b[i]) clReleaseMemObject(b[i]), b[i] = NULL;
}

static size_t round_up(size_t x, size_t m) { return (x + m - 1) / m * m; }

/* ---------------------------------------------------------------- sort */

static lbs_err sort_execute(void *ctx, void *params) {
  ocl *o = ctx;
  lbs_k_sort *p = params;
  lbs_err e = LBS_OK;
  cl_mem v = NULL;
  if (p->n <= 0) return LBS_OK;
  size_t n = (size_t)p->n, N = 1;
  while (N < n) N <<= 1;
  if (N > ((size_t)1 << 31)) return lbs_fail(LBS_RANGE, "opencl sort: %zu values: at most 2^31", n);
  if ((e = mkbuf(o, N * sizeof(double), NULL, &v))) goto done;
  CK(clEnqueueWriteBuffer(o->q, v, CL_FALSE, 0, n * sizeof(double), p->a, 0, NULL, NULL),
     "clEnqueueWriteBuffer");
  if (N > n) { /* +infinity past the values: they stay at the end */
    double inf = INFINITY;
    CK(clEnqueueFillBuffer(o->q, v, &inf, sizeof inf, n * sizeof inf, (N - n) * sizeof inf, 0, NULL,
                           NULL),
       "clEnqueueFillBuffer");
  }
  if (N >= 2) {
    size_t L = o->wg < N / 2 ? o->wg : N / 2;
    {
      size_t sz_[] = {sizeof v, 2 * L * sizeof(double)};
      SETARGS(o->k[0], &v, NULL);
    }
    if ((e = run1(o, o->k[0], N / 2, L))) goto done;
    for (cl_uint k = (cl_uint)(4 * L); k <= N; k <<= 1) {
      for (cl_uint j = k >> 1; j >= 2 * L; j >>= 1) {
        size_t sz_[] = {sizeof v, sizeof k, sizeof j};
        SETARGS(o->k[2], &v, &k, &j);
        if ((e = run1(o, o->k[2], N / 2, L))) goto done;
      }
      size_t sz_[] = {sizeof v, 2 * L * sizeof(double), sizeof k};
      SETARGS(o->k[1], &v, NULL, &k);
      if ((e = run1(o, o->k[1], N / 2, L))) goto done;
      if (k == ((cl_uint)1 << 31)) break; /* k <<= 1 would wrap */
    }
  }
  e = readbuf(o, v, n * sizeof(double), p->a);
done:
  if (o->q) clFinish(o->q);
  release(&v, 1);
  return e;
}

/* ---------------------------------------------------------------- dot */

#define DOT_MAX_GROUPS 1024

static lbs_err dot_execute(void *ctx, void *params) {
  ocl *o = ctx;
  lbs_k_dot *p = params;
  lbs_err e = LBS_OK;
  cl_mem b[3] = {NULL, NULL, NULL};
  double part[DOT_MAX_GROUPS];
  p->result = 0;
  if (p->n <= 0) return LBS_OK;
  size_t n = (size_t)p->n, L = o->wg, G = (n + L - 1) / L;
  if (G > DOT_MAX_GROUPS) G = DOT_MAX_GROUPS;
  if ((e = mkbuf(o, n * sizeof(double), p->x, &b[0])) ||
      (e = mkbuf(o, n * sizeof(double), p->y, &b[1])) ||
      (e = mkbuf(o, G * sizeof(double), NULL, &b[2])))
    goto done;
  cl_long nl = p->n;
  size_t sz_[] = {sizeof nl, sizeof b[0], sizeof b[1], sizeof b[2], L * sizeof(double)};
  SETARGS(o->k[0], &nl, &b[0], &b[1], &b[2], NULL);
  if ((e = run1(o, o->k[0], G * L, L)) || (e = readbuf(o, b[2], G * sizeof(double), part)))
    goto done;
  double s = 0;
  for (size_t g = 0; g < G; g++) s += part[g]; /* a fixed order: the same result every time */
  p->result = s;
done:
  if (o->q) clFinish(o->q);
  release(b, 3);
  return e;
}

/* ---------------------------------------------------------------- conv1d */

static lbs_err conv1d_execute(void *ctx, void *params) {
  ocl *o = ctx;
  lbs_k_conv1d *p = params;
  lbs_err e = LBS_OK;
  cl_mem b[3] = {NULL, NULL, NULL};
  if (p->na <= 0 || p->nb <= 0) { /* an empty factor: every output (if any) is an empty sum */
    for (int64_t k = 0; k < p->na + p->nb - 1; k++) p->out[k] = 0;
    return LBS_OK;
  }
  size_t na = (size_t)p->na, nb = (size_t)p->nb, nout = na + nb - 1;
  if ((e = mkbuf(o, na * sizeof(double), p->a, &b[0])) ||
      (e = mkbuf(o, nb * sizeof(double), p->b, &b[1])) ||
      (e = mkbuf(o, nout * sizeof(double), NULL, &b[2])))
    goto done;
  cl_long la = p->na, lb = p->nb;
  size_t sz_[] = {sizeof la, sizeof lb, sizeof b[0], sizeof b[1], sizeof b[2]};
  SETARGS(o->k[0], &la, &lb, &b[0], &b[1], &b[2]);
  if ((e = run1(o, o->k[0], round_up(nout, o->wg), o->wg))) goto done;
  e = readbuf(o, b[2], nout * sizeof(double), p->out);
done:
  if (o->q) clFinish(o->q);
  release(b, 3);
  return e;
}

/* ---------------------------------------------------------------- matmul */

static lbs_err matmul_execute(void *ctx, void *params) {
  ocl *o = ctx;
  lbs_k_matmul *p = params;
  lbs_err e = LBS_OK;
  cl_mem b[3] = {NULL, NULL, NULL};
  if (p->m <= 0 || p->p <= 0) return LBS_OK;
  size_t m = (size_t)p->m, nn = p->n > 0 ? (size_t)p->n : 0, pp = (size_t)p->p;
  if (nn == 0) { /* C = 0: no product to compute */
    memset(p->C, 0, m * pp * sizeof *p->C);
    return LBS_OK;
  }
  if ((e = mkbuf(o, m * nn * sizeof(double), p->A, &b[0])) ||
      (e = mkbuf(o, nn * pp * sizeof(double), p->B, &b[1])) ||
      (e = mkbuf(o, m * pp * sizeof(double), NULL, &b[2])))
    goto done;
  /* the tiled kernel where a TS x TS work-group fits, else the naive one */
  int tiled = o->kwg[0] >= TS * TS && o->max_item0 >= TS;
  cl_kernel k = o->k[tiled ? 0 : 1];
  cl_int cm = p->m, cn = p->n, cp = p->p;
  size_t sz_[] = {sizeof cm, sizeof cn, sizeof cp, sizeof b[0], sizeof b[1], sizeof b[2]};
  SETARGS(k, &cm, &cn, &cp, &b[0], &b[1], &b[2]);
  size_t global[2] = {pp, m}, local[2] = {TS, TS};
  if (tiled) global[0] = round_up(pp, TS), global[1] = round_up(m, TS);
  CK(clEnqueueNDRangeKernel(o->q, k, 2, NULL, global, tiled ? local : NULL, 0, NULL, NULL),
     "clEnqueueNDRangeKernel");
  e = readbuf(o, b[2], m * pp * sizeof(double), p->C);
done:
  if (o->q) clFinish(o->q);
  release(b, 3);
  return e;
}

/* ---------------------------------------------------------------- wave */

static lbs_err wave_execute(void *ctx, void *params) {
  ocl *o = ctx;
  lbs_k_wave *p = params;
  lbs_err e = LBS_OK;
  cl_mem b[3] = {NULL, NULL, NULL};
  double *en = NULL, *em = NULL;
  p->energy = 0, p->emax = 0;
  if (p->ncells <= 0) return LBS_OK;
  size_t B = p->b > 0 ? (size_t)p->b : 0, pts = B * B * B;
  if (B == 0 || pts > o->kwg[0] || B * B * B > o->max_item0)
    return lbs_fail(LBS_RANGE,
                    "opencl wave: a cell of %d^3 points is more than a work-group here (%zu)", p->b,
                    o->kwg[0]);
  size_t nc = (size_t)p->ncells, cellsz = 6 * (B + 1) * (B + 1) * (B + 1);
  en = malloc(nc * sizeof *en), em = malloc(nc * sizeof *em);
  if (!en || !em) {
    e = lbs_fail(LBS_NOMEM, "opencl wave: %zu cells", nc);
    goto done;
  }
  if ((e = mkbuf(o, nc * cellsz * sizeof(double), p->F, &b[0])) ||
      (e = mkbuf(o, nc * sizeof(double), NULL, &b[1])) ||
      (e = mkbuf(o, nc * sizeof(double), NULL, &b[2])))
    goto done;
  cl_int cb = p->b;
  cl_double S = p->S;
  size_t sz_[] = {sizeof cb,           sizeof S,    sizeof b[0],
                  sizeof b[1],         sizeof b[2], pts * sizeof(double),
                  pts * sizeof(double)};
  SETARGS(o->k[0], &cb, &S, &b[0], &b[1], &b[2], NULL, NULL);
  if ((e = run1(o, o->k[0], nc * pts, pts)) ||
      (e = readbuf(o, b[0], nc * cellsz * sizeof(double), p->F)) ||
      (e = readbuf(o, b[1], nc * sizeof(double), en)) ||
      (e = readbuf(o, b[2], nc * sizeof(double), em)))
    goto done;
  double energy = 0, emax = 0;
  for (size_t c = 0; c < nc; c++)
    energy += en[c], emax = em[c] > emax ? em[c] : emax; /* cells in order */
  p->energy = energy, p->emax = emax;
done:
  if (o->q) clFinish(o->q);
  release(b, 3);
  free(en), free(em);
  return e;
}

/* ---------------------------------------------------------------- walk */

static lbs_err walk_execute(void *ctx, void *params) {
  ocl *o = ctx;
  lbs_k_walk *p = params;
  lbs_err e = LBS_OK;
  cl_mem b[3] = {NULL, NULL, NULL};
  cl_long *part = NULL;
  p->hits = p->steps = 0;
  if (p->nwalks <= 0) return LBS_OK;
  size_t nw = (size_t)p->nwalks, L = o->wg, G = (nw + L - 1) / L;
  if (!(part = malloc(2 * G * sizeof *part))) {
    e = lbs_fail(LBS_NOMEM, "opencl walk: %zu groups", G);
    goto done;
  }
  if ((e = mkbuf(o, nw * sizeof(int64_t), p->start, &b[0])) ||
      (e = mkbuf(o, G * sizeof(cl_long), NULL, &b[1])) ||
      (e = mkbuf(o, G * sizeof(cl_long), NULL, &b[2])))
    goto done;
  cl_long N = p->N, nwl = p->nwalks;
  cl_ulong seed = p->seed;
  size_t sz_[] = {sizeof N,    sizeof nwl,  sizeof b[0],         sizeof seed,
                  sizeof b[1], sizeof b[2], L * sizeof(cl_long), L * sizeof(cl_long)};
  SETARGS(o->k[0], &N, &nwl, &b[0], &seed, &b[1], &b[2], NULL, NULL);
  if ((e = run1(o, o->k[0], G * L, L)) || (e = readbuf(o, b[1], G * sizeof(cl_long), part)) ||
      (e = readbuf(o, b[2], G * sizeof(cl_long), part + G)))
    goto done;
  for (size_t g = 0; g < G; g++) p->steps += part[g], p->hits += part[G + g];
done:
  if (o->q) clFinish(o->q);
  release(b, 3);
  free(part);
  return e;
}

/* ---------------------------------------------------------------- bhforce */

static lbs_err bhforce_execute(void *ctx, void *params) {
  ocl *o = ctx;
  lbs_k_bhforce *p = params;
  const lbs_nb_tree *t = p->tree;
  lbs_err e = LBS_OK;
  cl_mem b[8] = {NULL};
  double *nd = NULL, *xs = NULL, *xt = NULL;
  int32_t *ni = NULL;
  cl_long *inter = NULL;
  p->interactions = 0;
  if (p->ntarget <= 0) return LBS_OK;
  if (!t || t->nn <= 0 || p->nbody <= 0) return lbs_fail(LBS_INVAL, "opencl bhforce: no tree");
  size_t nn = (size_t)t->nn, nb = (size_t)p->nbody, nt = (size_t)p->ntarget;
  nd = malloc(5 * nn * sizeof *nd), ni = malloc(4 * nn * sizeof *ni),
  xs = malloc(3 * nb * sizeof *xs);
  xt = malloc(3 * nt * sizeof *xt), inter = malloc(nt * sizeof *inter);
  if (!nd || !ni || !xs || !xt || !inter) {
    e = lbs_fail(LBS_NOMEM, "opencl bhforce: %zu nodes, %zu targets", nn, nt);
    goto done;
  }
  if ((e = lbs__bh_flatten(t, nd, ni))) goto done;
  for (size_t j = 0; j < nb; j++) memcpy(xs + 3 * j, p->x + 3 * t->idx[j], 3 * sizeof *xs);
  for (size_t k = 0; k < nt; k++) memcpy(xt + 3 * k, p->x + 3 * p->target[k], 3 * sizeof *xt);
  if ((e = mkbuf(o, 5 * nn * sizeof *nd, nd, &b[0])) ||
      (e = mkbuf(o, 4 * nn * sizeof *ni, ni, &b[1])) ||
      (e = mkbuf(o, 3 * nb * sizeof *xs, xs, &b[2])) ||
      (e = mkbuf(o, nb * sizeof(int64_t), t->idx, &b[3])) ||
      (e = mkbuf(o, nt * sizeof(int64_t), p->target, &b[4])) ||
      (e = mkbuf(o, 3 * nt * sizeof *xt, xt, &b[5])) ||
      (e = mkbuf(o, 3 * nt * sizeof(double), NULL, &b[6])) ||
      (e = mkbuf(o, nt * sizeof(cl_long), NULL, &b[7])))
    goto done;
  cl_int cnn = (cl_int)nn;
  cl_long cnb = p->nbody, cnt = p->ntarget;
  cl_double theta = p->theta;
  size_t sz_[] = {sizeof cnn,  sizeof cnb, sizeof theta, sizeof b[0], sizeof b[1], sizeof b[2],
                  sizeof b[3], sizeof cnt, sizeof b[4],  sizeof b[5], sizeof b[6], sizeof b[7]};
  SETARGS(o->k[0], &cnn, &cnb, &theta, &b[0], &b[1], &b[2], &b[3], &cnt, &b[4], &b[5], &b[6],
          &b[7]);
  if ((e = run1(o, o->k[0], round_up(nt, o->wg), o->wg)) ||
      (e = readbuf(o, b[6], 3 * nt * sizeof(double), p->acc)) ||
      (e = readbuf(o, b[7], nt * sizeof(cl_long), inter)))
    goto done;
  for (size_t k = 0; k < nt; k++) p->interactions += inter[k];
done:
  if (o->q) clFinish(o->q);
  release(b, 8);
  free(nd), free(ni), free(xs), free(xt), free(inter);
  return e;
}

/* ---------------------------------------------------------------- the table */

#define OPEN(name, ...)                                                                            \
  static lbs_err name##_open(void **ctx, const lbs_impl_args *args, char *device, size_t n) {      \
    static const char *const k[] = {__VA_ARGS__};                                                  \
    return ocl_open(#name, k, (int)(sizeof k / sizeof *k), ctx, args, device, n);                  \
  }                                                                                                \
  static const lbs_impl_ops name##_ops = {.kernel = #name,                                         \
                                          .target = "opencl",                                      \
                                          .open = name##_open,                                     \
                                          .execute = name##_execute,                               \
                                          .close = ocl_close};
OPEN(sort, "bsort_local_init", "bsort_local_merge", "bsort_global")
OPEN(dot, "dot_part")
OPEN(conv1d, "conv1d")
OPEN(matmul, "matmul_tiled", "matmul_naive")
OPEN(wave, "wave")
OPEN(walk, "walk")
OPEN(bhforce, "bhforce")
#undef OPEN

const lbs_impl_ops *const lbs__impls_opencl[] = {&sort_ops, &dot_ops,  &conv1d_ops,  &matmul_ops,
                                                 &wave_ops, &walk_ops, &bhforce_ops, NULL};
