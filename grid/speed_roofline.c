/* speed_roofline.c - speed from a node's description (seed 001, "Roofline Model Based
 * Scheduling"): a CPU and optionally a GPU, each with its peak and its memory bandwidth, the GPU
 * also with its PCIe link and a kernel launch latency, and the application's flops and bytes per
 * unit of the trace's work. Nothing is measured.
 *
 *   roofline_cpu_gflops = 67.2          the CPU's peak, GFLOP/s           (Table 2: Pc)
 *   roofline_cpu_gbytes_per_s = 32      its memory bandwidth, GB/s        (B_dram)
 *   roofline_gpu_gflops = 515           the GPU's peak (absent: no GPU)   (Pg)
 *   roofline_gpu_gbytes_per_s = 144     the GPU's memory bandwidth
 *   roofline_pcie_gbytes_per_s = 8      the host link, GB/s               (B_pcie)
 *   roofline_launch_us = 10             a kernel launch, once per part on the GPU
 *   roofline_pcie_overlap = true        transfers overlap the GPU's computing (Equation (7))
 *   roofline_flops_per_work = 64        flops per unit of work
 *   roofline_bytes_per_work = 8         bytes to and from memory per unit of work
 *   roofline_pcie_bytes_per_work = -1   bytes across PCIe per unit on the GPU (-1: the above)
 *
 * Each device's time for w units follows the roofline, w x flops_per_work / min(peak,
 * intensity x bandwidth); the GPU's adds its launch and its PCIe transfers. The node splits its
 * part of the step between the two so that both finish together (1.3.1, Equations (1)-(3)):
 * time_ns(W) is that common finish time, or the CPU's alone when W is too small to pay a launch.
 * The rate (for speed-proportional part sizes) is the throughput at large work relative to a
 * processor of speed 1 (ns_per_work ns per unit of work). The model stands for one processor
 * of the grid (one process driving the node's CPU cores and its GPU): give `cores = 1`. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grid_int.h"
#include "roofline.h"

typedef struct {
  lbs__roofline_node n;
  double rate; /* relative throughput at large work */
} roofline_model;

#define PEAK_MAX 1e12 /* GFLOP/s or GB/s: a zettaflop machine is out of range */
static const lbs_opt keys[] = {
    {"roofline_cpu_gflops", LBS_OPT_DOUBLE, "0", 0, PEAK_MAX,
     "the CPU's peak, GFLOP/s (required, > 0)"},
    {"roofline_cpu_gbytes_per_s", LBS_OPT_DOUBLE, "0", 0, PEAK_MAX,
     "the CPU's memory bandwidth, GB/s (required, > 0)"},
    {"roofline_gpu_gflops", LBS_OPT_DOUBLE, "0", 0, PEAK_MAX,
     "the GPU's peak, GFLOP/s (absent: no GPU; with it the two keys below)"},
    {"roofline_gpu_gbytes_per_s", LBS_OPT_DOUBLE, "0", 0, PEAK_MAX,
     "the GPU's memory bandwidth, GB/s"},
    {"roofline_pcie_gbytes_per_s", LBS_OPT_DOUBLE, "0", 0, PEAK_MAX,
     "the GPU's host link (PCIe) bandwidth, GB/s"},
    {"roofline_launch_us", LBS_OPT_DOUBLE, "0", 0, 1e9,
     "a GPU kernel launch, us, paid once per part the GPU does"},
    {"roofline_pcie_overlap", LBS_OPT_BOOL, "true", 1, 0,
     "the GPU's PCIe transfers overlap its computing (false: they come first)"},
    {"roofline_flops_per_work", LBS_OPT_DOUBLE, "0", 0, 1e15,
     "the application's flops per unit of the trace's work (this or bytes_per_work > 0)"},
    {"roofline_bytes_per_work", LBS_OPT_DOUBLE, "0", 0, 1e15,
     "the application's bytes to and from memory per unit of work"},
    {"roofline_pcie_bytes_per_work", LBS_OPT_DOUBLE, "-1", -1, 1e15,
     "bytes across PCIe per unit of work done on the GPU (-1: roofline_bytes_per_work, all data in host memory)"},
    {NULL, 0, NULL, 0, 0, NULL}};

/* The GPU's keys: giving any of them describes a GPU. */
static const char *const gpu_keys[] = {"roofline_gpu_gflops", "roofline_gpu_gbytes_per_s",
                                       "roofline_pcie_gbytes_per_s"};
/* Keys that only mean something with a GPU. */
static const char *const gpu_only[] = {"roofline_launch_us", "roofline_pcie_overlap",
                                       "roofline_pcie_bytes_per_work"};
#define NGPU (sizeof gpu_keys / sizeof *gpu_keys)
#define NGPU_ONLY (sizeof gpu_only / sizeof *gpu_only)

double lbs__roofline_ns_per_work(const lbs__roofline_node *n, int gpu) {
  double peak = gpu ? n->gpu_gflops : n->cpu_gflops,
         bw = gpu ? n->gpu_gbytes_per_s : n->cpu_gbytes_per_s;
  double compute = n->flops_per_work > 0 ? n->flops_per_work / peak : 0;
  double memory = n->bytes_per_work > 0 ? n->bytes_per_work / bw : 0;
  double roof = compute > memory ? compute : memory; /* flops / min(peak, intensity x bandwidth) */
  if (!gpu) return roof;
  double pcie = n->pcie_bytes_per_work > 0 ? n->pcie_bytes_per_work / n->pcie_gbytes_per_s : 0;
  if (!n->pcie_overlap) return roof + pcie;
  return pcie > roof ? pcie : roof;
}

double lbs__roofline_gflops(const lbs__roofline_node *n, int gpu) {
  double a = lbs__roofline_ns_per_work(n, gpu);
  return a > 0 ? n->flops_per_work / a : 0;
}

/* Seed 001, 1.3.1: Tgc = max(Tc_p, Tg_p) (Equation (1)), least when Tc_p = Tg_p (Equation (2)),
 * which gives p (Equation (3)). With a_c and a_g the devices' ns per unit of work and L the
 * launch, Tc_p = p W a_c and Tg_p = L + (1 - p) W a_g, so
 *   p = (L / W + a_g) / (a_c + a_g),   T = a_c (L + W a_g) / (a_c + a_g);
 * with L = 0, p = Fc / (Fc + Fg): Equation (3) for Ac = Ag, the seed's usual case. p >= 1 when
 * W a_c <= L: the CPU alone is done before a launch would be, and takes everything. */
void lbs__roofline_split(const lbs__roofline_node *n, double work, lbs__roofline_share *out) {
  double ac = lbs__roofline_ns_per_work(n, 0);
  *out = (lbs__roofline_share){.cpu_frac = 1};
  if (!(work > 0)) return;
  out->cpu_ns = out->time_ns = work * ac;
  if (!(n->gpu_gflops > 0)) return;
  double ag = lbs__roofline_ns_per_work(n, 1), L = n->launch_ns;
  double both = ac * (L + work * ag) / (ac + ag);
  if (!(both < out->time_ns)) return; /* min(CPU alone, split): monotone in W */
  out->cpu_frac = (L / work + ag) / (ac + ag);
  out->gpu_frac = (ac - L / work) / (ac + ag); /* not 1 - p, which cancels when p is near 1 */
  out->cpu_ns = out->time_ns = both;
  out->gpu_ns = L + ag * (work * ac - L) / (ac + ag); /* L + (1 - p) W a_g */
}

/* Reads one of keys[]; out-of-range and non-finite values were refused by lbs_config_check, but
 * init may see an unchecked configuration: the same refusal, naming file:line and key. */
static lbs_err get(const lbs_config *cfg, const char *nt, const char *key, double *out) {
  lbs_err e = lbs_config_double(cfg, lbs_grid_spec(), "nodetype", nt, key, out);
  if (e) return e;
  const lbs_opt *o = keys;
  while (o->key && strcmp(o->key, key)) o++;
  if (o->key && (!isfinite(*out) || *out < o->min || *out > o->max))
    return lbs_fail(LBS_RANGE, "%s: %s = %g is outside [%g, %g]",
                    lbs_config_where(cfg, "nodetype", nt, key), key, *out, o->min, o->max);
  return LBS_OK;
}

/* "[nodetype nt] key = 0" for a key that must be > 0 (given) or "give key" (absent). */
static lbs_err need_positive(const lbs_config *cfg, const char *nt, const char *key, double v,
                             const char *what) {
  if (v > 0) return LBS_OK;
  if (lbs_config_has(cfg, "nodetype", nt, key))
    return lbs_fail(LBS_RANGE, "%s: [nodetype %s] %s = %g: %s must be > 0",
                    lbs_config_where(cfg, "nodetype", nt, key), nt, key, v, what);
  const char *where = lbs_config_where(cfg, "nodetype", nt, NULL);
  return lbs_fail(LBS_PARSE, "%s: [nodetype %s] uses speed_model = roofline: give %s (%s)",
                  where ? where : "grid", nt, key, what);
}

static lbs_err init(void **state, const lbs_config *cfg, const char *nt, double ns_per_work) {
  lbs__roofline_node n = {0};
  double launch_us = 0;
  lbs_err e = get(cfg, nt, "roofline_cpu_gflops", &n.cpu_gflops);
  if (!e) e = get(cfg, nt, "roofline_cpu_gbytes_per_s", &n.cpu_gbytes_per_s);
  if (!e) e = get(cfg, nt, "roofline_gpu_gflops", &n.gpu_gflops);
  if (!e) e = get(cfg, nt, "roofline_gpu_gbytes_per_s", &n.gpu_gbytes_per_s);
  if (!e) e = get(cfg, nt, "roofline_pcie_gbytes_per_s", &n.pcie_gbytes_per_s);
  if (!e) e = get(cfg, nt, "roofline_launch_us", &launch_us);
  if (!e)
    e = lbs_config_bool(cfg, lbs_grid_spec(), "nodetype", nt, "roofline_pcie_overlap",
                        &n.pcie_overlap);
  if (!e) e = get(cfg, nt, "roofline_flops_per_work", &n.flops_per_work);
  if (!e) e = get(cfg, nt, "roofline_bytes_per_work", &n.bytes_per_work);
  if (!e) e = get(cfg, nt, "roofline_pcie_bytes_per_work", &n.pcie_bytes_per_work);
  if (e) return e;
  if ((e = need_positive(cfg, nt, "roofline_cpu_gflops", n.cpu_gflops, "the CPU's peak GFLOP/s")))
    return e;
  if ((e = need_positive(cfg, nt, "roofline_cpu_gbytes_per_s", n.cpu_gbytes_per_s,
                         "the CPU's memory GB/s")))
    return e;
  const char *gpu = NULL; /* the first GPU key given */
  for (size_t i = 0; i < NGPU && !gpu; i++)
    if (lbs_config_has(cfg, "nodetype", nt, gpu_keys[i])) gpu = gpu_keys[i];
  if (gpu) { /* all three, each > 0 */
    for (size_t i = 0; i < NGPU; i++) {
      if (!lbs_config_has(cfg, "nodetype", nt, gpu_keys[i]))
        return lbs_fail(
            LBS_PARSE,
            "%s: [nodetype %s] describes a GPU (%s) without %s; give roofline_gpu_gflops, "
            "roofline_gpu_gbytes_per_s and roofline_pcie_gbytes_per_s",
            lbs_config_where(cfg, "nodetype", nt, gpu), nt, gpu, gpu_keys[i]);
      double v = i == 0 ? n.gpu_gflops : i == 1 ? n.gpu_gbytes_per_s : n.pcie_gbytes_per_s;
      if ((e = need_positive(cfg, nt, gpu_keys[i], v,
                             i == 0 ? "the GPU's peak GFLOP/s" : "a bandwidth")))
        return e;
    }
  } else
    for (size_t i = 0; i < NGPU_ONLY; i++)
      if (lbs_config_has(cfg, "nodetype", nt, gpu_only[i]))
        return lbs_fail(
            LBS_PARSE,
            "%s: [nodetype %s] %s describes a GPU the node type does not have; give "
            "roofline_gpu_gflops, roofline_gpu_gbytes_per_s and roofline_pcie_gbytes_per_s",
            lbs_config_where(cfg, "nodetype", nt, gpu_only[i]), nt, gpu_only[i]);
  if (!(n.flops_per_work > 0) && !(n.bytes_per_work > 0)) {
    const char *where = lbs_config_where(cfg, "nodetype", nt, "roofline_flops_per_work");
    if (!where) where = lbs_config_where(cfg, "nodetype", nt, NULL);
    return lbs_fail(
        LBS_PARSE,
        "%s: [nodetype %s] uses speed_model = roofline: give roofline_flops_per_work or "
        "roofline_bytes_per_work > 0 (the application's flops and bytes per unit of work)",
        where ? where : "grid", nt);
  }
  if (n.pcie_bytes_per_work < 0) {
    if (n.pcie_bytes_per_work != -1)
      return lbs_fail(
          LBS_RANGE,
          "%s: [nodetype %s] roofline_pcie_bytes_per_work = %g: give bytes >= 0, or -1 for "
          "roofline_bytes_per_work",
          lbs_config_where(cfg, "nodetype", nt, "roofline_pcie_bytes_per_work"), nt,
          n.pcie_bytes_per_work);
    n.pcie_bytes_per_work = n.bytes_per_work; /* seed 001: all input starts in host memory */
  }
  n.launch_ns = launch_us * 1e3;
  roofline_model *m = malloc(sizeof *m);
  if (!m) return lbs_fail(LBS_NOMEM, "speed model");
  m->n = n;
  double ac = lbs__roofline_ns_per_work(&n, 0),
         ag = n.gpu_gflops > 0 ? lbs__roofline_ns_per_work(&n, 1) : 0;
  double ns_per_unit = ag > 0 ? ac * ag / (ac + ag) : ac; /* both devices at large work */
  m->rate = ns_per_unit > 0 ? ns_per_work / ns_per_unit : 1;
  if (!(m->rate > 0) || !isfinite(m->rate)) m->rate = 1;
  *state = m;
  return LBS_OK;
}

static int64_t time_ns(const void *state, double work) {
  lbs__roofline_share s;
  lbs__roofline_split(&((const roofline_model *)state)->n, work, &s);
  double t = s.time_ns;
  if (!(t > 0)) return 0;
  return t > 9e18 ? INT64_C(9000000000000000000) : llround(t);
}

static double rate(const void *state) { return ((const roofline_model *)state)->rate; }

const lbs_speed_ops lbs__speed_roofline = {
    .abi = LBS_SPEED_ABI,
    .name = "roofline",
    .keys = keys,
    .example = "roofline_cpu_gflops = 67.2\nroofline_cpu_gbytes_per_s = 32\n"
               "roofline_gpu_gflops = 515\nroofline_gpu_gbytes_per_s = 144\n"
               "roofline_pcie_gbytes_per_s = 8\nroofline_launch_us = 10\n"
               "roofline_flops_per_work = 64\nroofline_bytes_per_work = 8\n",
    .monotone = 1,
    .init = init,
    .time_ns = time_ns,
    .rate = rate,
    .fini = free};
