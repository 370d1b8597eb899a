/* test_roofline.c - the roofline speed model (grid/speed_roofline.c): seed 001's split of a node's
 * work between its CPU and GPU (section 1.3.1), its three regimes, worked examples, properties
 * (both devices finish together, more bandwidth is never slower, no GPU is the CPU's roofline,
 * time grows with work), the model through a grid, and bad node descriptions.
 *
 * Seed 001's text (the copy this project works from) holds the derivation in words; its
 * Equations (1)-(11) are figures the text lost, and it prints no numeric example: the worked
 * examples below are ours, on the machine of its Figure 3 (2), a Tesla C2050 beside a Xeon X5660,
 * with the vendors' double-precision figures. `test_roofline --verbose` prints them. */
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lbs_grid.h"
#include "roofline.h"

/* Figure 3 (2): Xeon X5660 (6 cores x 2.8 GHz x 4 DP flop/cycle, 3 x DDR3-1333) and Tesla C2050
 * (515 DP GFLOP/s, 144 GB/s) on PCIe 2.0 x16 (8 GB/s); 8 bytes (one double) per unit of work. */
static lbs__roofline_node fermi(double intensity) {
  return (lbs__roofline_node){.cpu_gflops = 67.2,
                              .cpu_gbytes_per_s = 32,
                              .gpu_gflops = 515,
                              .gpu_gbytes_per_s = 144,
                              .pcie_gbytes_per_s = 8,
                              .pcie_overlap = 1,
                              .flops_per_work = 8 * intensity,
                              .bytes_per_work = 8,
                              .pcie_bytes_per_work = 8};
}

#define NEAR(a, b, rel) (fabs((double)(a) - (double)(b)) <= (rel)*fabs((double)(b)))
/* x printed to 6 significant digits is text */
static int digits6(double x, const char *text) {
  char b[64];
  snprintf(b, sizeof b, "%.6g", x);
  return !strcmp(b, text);
}

/* Equations (6), (7): attainable = min(peak, intensity x bandwidth), the GPU's bandwidth being
 * PCIe's when the data start in host memory; ridge points Acr = Pc / B_dram, Agr = Pg / B_pcie. */
Test(roofline, attainable_throughput_is_the_roofline) {
  lbs__roofline_node n = fermi(1);
  cr_assert(NEAR(lbs__roofline_gflops(&n, 0), 32, 1e-12)); /* 1 flop/byte x 32 GB/s */
  cr_assert(NEAR(lbs__roofline_gflops(&n, 1), 8, 1e-12));  /* x 8 GB/s over PCIe */
  n = fermi(2.1);                                          /* the CPU's ridge */
  cr_assert(NEAR(lbs__roofline_gflops(&n, 0), 67.2, 1e-12));
  n = fermi(1000);
  cr_assert(NEAR(lbs__roofline_gflops(&n, 0), 67.2, 1e-12));
  cr_assert(NEAR(lbs__roofline_gflops(&n, 1), 515, 1e-12));
  n = fermi(64.375); /* the GPU's ridge */
  cr_assert(NEAR(lbs__roofline_gflops(&n, 1), 515, 1e-12));
  n.pcie_bytes_per_work = 0; /* data already on the GPU: its own memory is the roof */
  n.flops_per_work = 8;
  cr_assert(NEAR(lbs__roofline_gflops(&n, 1), 144, 1e-12));
}

/* Equation (8) as the text derives it (Ac = Ag = A, no launch): p = Fc / (Fc + Fg) takes one
 * closed form in each of the three ranges of A the ridge points make. */
Test(roofline, the_three_regimes_of_equation_8) {
  const double Pc = 67.2, B = 32, Pg = 515, Bp = 8, W = 1e6;
  const double As[] = {0.01, 0.25, 1, 2.0999, 2.1, 5, 8, 30, 64.3, 64.375, 100, 128, 1e4};
  for (size_t i = 0; i < sizeof As / sizeof *As; i++) {
    double A = As[i], want;
    if (A < Pc / B)
      want = B / (B + Bp); /* A < Acr: both bandwidth-bound */
    else if (A < Pg / Bp)
      want = Pc / (Pc + A * Bp); /* Acr <= A < Agr */
    else
      want = Pc / (Pc + Pg); /* A >= Agr: both at their peaks */
    lbs__roofline_node n = fermi(A);
    lbs__roofline_share s;
    lbs__roofline_split(&n, W, &s);
    cr_assert(NEAR(s.cpu_frac, want, 1e-12), "A = %g: p = %.17g, Equation (8) %.17g", A, s.cpu_frac,
              want);
    cr_assert(NEAR(s.gpu_frac, 1 - want, 1e-12), "A = %g", A);
  }
}

/* Worked examples: the split, and the speedups over the CPU alone and the GPU alone, of a GEMV-like
 * kernel (2 flops per 8-byte element: 0.25 flop/byte), one between the ridges (8) and one past
 * both (128), each to 6 digits. */
Test(roofline, worked_examples_on_figure_3_machine_2) {
  static const struct {
    double A;
    const char *Fc, *Fg, *p, *vs_cpu, *vs_gpu;
  } ex[] = {{0.25, "8", "2", "0.8", "1.25", "5"},
            {8, "67.2", "64", "0.512195", "1.95238", "2.05"},
            {128, "67.2", "515", "0.115424", "8.66369", "1.13049"}};
  const double W = 1e9;
  for (size_t i = 0; i < sizeof ex / sizeof *ex; i++) {
    lbs__roofline_node n = fermi(ex[i].A);
    lbs__roofline_share s;
    lbs__roofline_split(&n, W, &s);
    double Fc = lbs__roofline_gflops(&n, 0), Fg = lbs__roofline_gflops(&n, 1);
    double Tc = W * lbs__roofline_ns_per_work(&n, 0), Tg = W * lbs__roofline_ns_per_work(&n, 1);
    cr_log_info(
        "A = %g flop/byte: Fc %.6g, Fg %.6g GFLOP/s; p = %.6g; Tc %.6g s, Tg %.6g s, Tgc %.6g s; "
        "speedup %.6g over the CPU, %.6g over the GPU",
        ex[i].A, Fc, Fg, s.cpu_frac, Tc * 1e-9, Tg * 1e-9, s.time_ns * 1e-9, Tc / s.time_ns,
        Tg / s.time_ns);
    cr_assert(digits6(Fc, ex[i].Fc), "A = %g: Fc %.17g", ex[i].A, Fc);
    cr_assert(digits6(Fg, ex[i].Fg), "A = %g: Fg %.17g", ex[i].A, Fg);
    cr_assert(digits6(s.cpu_frac, ex[i].p), "A = %g: p %.17g", ex[i].A, s.cpu_frac);
    cr_assert(digits6(Tc / s.time_ns, ex[i].vs_cpu), "A = %g: %.17g", ex[i].A, Tc / s.time_ns);
    cr_assert(digits6(Tg / s.time_ns, ex[i].vs_gpu), "A = %g: %.17g", ex[i].A, Tg / s.time_ns);
  }
}

/* With a 10 us launch (A = 8, 64 flops and 8 bytes per unit): below W = L / a_c = 10500 units the
 * CPU alone is done first and takes everything; above, the split pays the launch and p falls
 * toward Equation (3)'s 0.512195. */
Test(roofline, worked_example_with_a_launch) {
  lbs__roofline_node n = fermi(8);
  n.launch_ns = 1e4;
  static const struct {
    double W;
    const char *p, *T_ns;
  } ex[] = {{1e4, "1", "9523.81"},
            {1e5, "0.563415", "53658.5"},
            {1e6, "0.517317", "492683"},
            {1e7, "0.512707", "4.88293e+06"}};
  for (size_t i = 0; i < sizeof ex / sizeof *ex; i++) {
    lbs__roofline_share s;
    lbs__roofline_split(&n, ex[i].W, &s);
    cr_log_info("launch 10 us, W = %g: p = %.6g, T = %.6g ns (CPU alone %.6g ns)", ex[i].W,
                s.cpu_frac, s.time_ns, ex[i].W * lbs__roofline_ns_per_work(&n, 0));
    cr_assert(digits6(s.cpu_frac, ex[i].p), "W = %g: p %.17g", ex[i].W, s.cpu_frac);
    cr_assert(digits6(s.time_ns, ex[i].T_ns), "W = %g: T %.17g", ex[i].W, s.time_ns);
  }
  lbs__roofline_share s;
  lbs__roofline_split(&n, 10499, &s);
  cr_assert_eq(s.gpu_frac, 0, "just below the threshold");
  lbs__roofline_split(&n, 10501, &s);
  cr_assert_gt(s.gpu_frac, 0, "just above");
}

/* A node made of random parameters (deterministic: a fixed LCG). */
static uint64_t rng = 12345;
static double uniform(double lo, double hi) {
  rng = rng * 6364136223846793005u + 1442695040888963407u;
  return lo + (hi - lo) * (double)(rng >> 11) / 9007199254740992.0;
}
static double logu(double lo, double hi) { return exp(uniform(log(lo), log(hi))); }
static lbs__roofline_node random_node(int gpu) {
  lbs__roofline_node n = {.cpu_gflops = logu(1, 1e4),
                          .cpu_gbytes_per_s = logu(1, 1e3),
                          .flops_per_work = uniform(0, 1) < 0.1 ? 0 : logu(1e-2, 1e4),
                          .bytes_per_work = uniform(0, 1) < 0.1 ? 0 : logu(1e-2, 1e4)};
  if (n.flops_per_work == 0 && n.bytes_per_work == 0) n.flops_per_work = 1;
  if (gpu) {
    n.gpu_gflops = logu(1, 1e5);
    n.gpu_gbytes_per_s = logu(1, 1e4);
    n.pcie_gbytes_per_s = logu(0.1, 100);
    n.launch_ns = uniform(0, 1) < 0.3 ? 0 : logu(1, 1e5);
    n.pcie_overlap = uniform(0, 1) < 0.5;
    n.pcie_bytes_per_work = uniform(0, 1) < 0.2 ? 0 : logu(1e-2, 1e4);
  }
  return n;
}

/* Equation (2): when both devices work, they finish together; the split is no worse than either
 * device alone, and the fractions add up to 1. */
Test(roofline, both_devices_finish_together) {
  for (int i = 0; i < 20000; i++) {
    lbs__roofline_node n = random_node(1);
    double W = logu(1e-3, 1e12);
    lbs__roofline_share s;
    lbs__roofline_split(&n, W, &s);
    double cpu = W * lbs__roofline_ns_per_work(&n, 0),
           gpu = n.launch_ns + W * lbs__roofline_ns_per_work(&n, 1);
    cr_assert(NEAR(s.cpu_frac + s.gpu_frac, 1, 1e-14));
    cr_assert(s.cpu_frac > 0 && s.cpu_frac <= 1, "p = %g", s.cpu_frac);
    cr_assert(s.time_ns <= cpu && s.time_ns <= gpu * (1 + 1e-12),
              "T %g, CPU alone %g, GPU alone %g", s.time_ns, cpu, gpu);
    if (s.gpu_frac > 0) {
      cr_assert(NEAR(s.cpu_ns, s.gpu_ns, 1e-12), "Tc_p %.17g != Tg_p %.17g", s.cpu_ns, s.gpu_ns);
      cr_assert_eq(s.time_ns, s.cpu_ns);
    } else {
      cr_assert(cpu <= n.launch_ns * (1 + 1e-12),
                "the GPU is left idle only when a launch costs more than W on the CPU");
      cr_assert_eq(s.time_ns, cpu);
    }
  }
}

/* No GPU: the CPU's roofline, W x flops_per_work / min(Pc, A x B_dram). */
Test(roofline, no_gpu_is_the_cpu_roofline) {
  for (int i = 0; i < 5000; i++) {
    lbs__roofline_node n = random_node(0);
    double W = logu(1e-3, 1e12), A = n.flops_per_work / n.bytes_per_work;
    lbs__roofline_share s;
    lbs__roofline_split(&n, W, &s);
    cr_assert_eq(s.cpu_frac, 1);
    cr_assert_eq(s.gpu_ns, 0);
    double want = n.flops_per_work > 0
                      ? W * n.flops_per_work / fmin(n.cpu_gflops, A * n.cpu_gbytes_per_s)
                      : W * n.bytes_per_work / n.cpu_gbytes_per_s;
    cr_assert(NEAR(s.time_ns, want, 1e-12), "%.17g against %.17g", s.time_ns, want);
  }
}

/* More bandwidth or a higher peak on either device, or a cheaper launch, never makes the node
 * slower; serialized transfers are never faster than overlapped ones. */
Test(roofline, more_bandwidth_is_never_slower) {
  for (int i = 0; i < 5000; i++) {
    lbs__roofline_node n = random_node(1), m;
    double W = logu(1e-3, 1e12), k = logu(1, 100);
    lbs__roofline_share s, t;
    lbs__roofline_split(&n, W, &s);
    double *fields[] = {&m.cpu_gflops, &m.cpu_gbytes_per_s, &m.gpu_gflops, &m.gpu_gbytes_per_s,
                        &m.pcie_gbytes_per_s};
    for (size_t f = 0; f < sizeof fields / sizeof *fields; f++) {
      m = n;
      *fields[f] *= k;
      lbs__roofline_split(&m, W, &t);
      cr_assert(t.time_ns <= s.time_ns * (1 + 1e-12), "field %zu x %g: %.17g > %.17g", f, k,
                t.time_ns, s.time_ns);
    }
    m = n;
    m.launch_ns /= k;
    lbs__roofline_split(&m, W, &t);
    cr_assert(t.time_ns <= s.time_ns * (1 + 1e-12));
    m = n;
    m.pcie_overlap = 0;
    lbs__roofline_split(&m, W, &t);
    n.pcie_overlap = 1;
    lbs__roofline_split(&n, W, &s);
    cr_assert(t.time_ns >= s.time_ns * (1 - 1e-12));
  }
}

/* Time never decreases as work grows, across the launch threshold and at every scale. */
Test(roofline, time_grows_with_work) {
  for (int i = 0; i < 300; i++) {
    lbs__roofline_node n = random_node(i % 4 != 0);
    lbs__roofline_share s;
    double prev = 0;
    for (int k = 0; k <= 400; k++) {
      double W = pow(10, -3 + k * 0.04);
      lbs__roofline_split(&n, W, &s);
      cr_assert(s.time_ns >= prev, "W = %g: %.17g < %.17g", W, s.time_ns, prev);
      prev = s.time_ns;
    }
    double ac = lbs__roofline_ns_per_work(&n, 0), W0 = n.launch_ns / ac; /* around the threshold */
    prev = 0;
    for (int k = -200; k <= 200 && W0 > 0; k++) {
      lbs__roofline_split(&n, W0 * (1 + k * 1e-6), &s);
      cr_assert(s.time_ns >= prev);
      prev = s.time_ns;
    }
  }
}

static lbs_err grid_from(const char *text, lbs_grid **g) {
  lbs_config *c;
  lbs_err e = lbs_config_parse_string("g.ini", text, &c);
  if (!e) e = lbs_grid_from_config(c, g);
  lbs_config_destroy(&c);
  return e;
}

/* Through a grid: a roofline node beside a linear one; its time is the split's, rounded, and its
 * rate its throughput at large work over a speed-1 processor's (ns_per_work = 2: 0.5 units/ns). */
Test(roofline, in_a_grid) {
  lbs_grid *g;
  cr_assert_eq(
      grid_from(
          "[grid]\nns_per_work = 2\n"
          "[nodetype cpu]\nspeed = 1\n"
          "[nodetype fat]\nspeed_model = roofline\nroofline_cpu_gflops = 67.2\n"
          "roofline_cpu_gbytes_per_s = 32\nroofline_gpu_gflops = 515\nroofline_gpu_gbytes_per_s = 144\n"
          "roofline_pcie_gbytes_per_s = 8\nroofline_launch_us = 10\nroofline_flops_per_work = 64\n"
          "roofline_bytes_per_work = 8\n"
          "[cluster A]\nnodes = 2\nnodetype = cpu\n[cluster B]\nnodes = 1\nnodetype = fat\n",
          &g),
      LBS_OK, "%s", lbs_errmsg());
  lbs__roofline_node n = fermi(8);
  n.launch_ns = 1e4;
  for (double W = 0; W < 2e7; W = W * 3 + 1) {
    lbs__roofline_share s;
    lbs__roofline_split(&n, W, &s);
    cr_assert_eq(lbs_grid_compute_ns(g, 2, W), llround(s.time_ns), "W = %g", W);
    cr_assert_eq(lbs_grid_compute_ns(g, 0, W), llround(2 * W));
  }
  /* Fc + Fg = 131.2 GFLOP/s at 64 flops per unit: 2.05 units/ns, 4.1 x a speed-1 processor */
  cr_assert(NEAR(lbs_grid_rate(g, 2), 4.1, 1e-12), "%.17g", lbs_grid_rate(g, 2));
  lbs_grid_destroy(&g);
}

#define NODE "[nodetype r]\nspeed_model = roofline\n"
#define CPU                                                                                        \
  "roofline_cpu_gflops = 100\nroofline_cpu_gbytes_per_s = 20\nroofline_flops_per_work = 10\n"
#define TAIL "[cluster A]\nnodes = 1\nnodetype = r\n"
#define BAD(text, needle)                                                                          \
  do {                                                                                             \
    lbs_grid *g = NULL;                                                                            \
    cr_assert_neq(grid_from(text, &g), LBS_OK, "accepted: %s", text);                              \
    cr_assert(strstr(lbs_errmsg(), needle), "message '%s' lacks '%s'", lbs_errmsg(), needle);      \
    cr_assert_null(g);                                                                             \
  } while (0)

/* Bad descriptions name file:line and the key, and build nothing. */
Test(roofline, bad_descriptions_are_named) {
  lbs_grid *g;
  cr_assert_eq(grid_from(NODE CPU TAIL, &g), LBS_OK, "%s", lbs_errmsg());
  lbs_grid_destroy(&g);
  BAD(NODE "roofline_cpu_gbytes_per_s = 20\nroofline_flops_per_work = 1\n" TAIL,
      "g.ini:1: [nodetype r] uses speed_model = roofline: give roofline_cpu_gflops");
  BAD(NODE CPU "roofline_cpu_gflops = 0\n" TAIL, "repeats"); /* a key twice: the INI parser's */
  BAD(NODE
      "roofline_cpu_gflops = 0\nroofline_cpu_gbytes_per_s = 20\nroofline_flops_per_work = 1\n" TAIL,
      "g.ini:3: [nodetype r] roofline_cpu_gflops = 0: the CPU's peak GFLOP/s must be > 0");
  BAD(NODE
      "roofline_cpu_gflops = -5\nroofline_cpu_gbytes_per_s = 20\nroofline_flops_per_work = 1\n" TAIL,
      "g.ini:3: roofline_cpu_gflops = -5 is outside [0, 1e+12]");
  BAD(NODE
      "roofline_cpu_gflops = nan\nroofline_cpu_gbytes_per_s = 20\nroofline_flops_per_work = 1\n" TAIL,
      "g.ini:3: roofline_cpu_gflops = 'nan' is not a number");
  BAD(NODE
      "roofline_cpu_gflops = inf\nroofline_cpu_gbytes_per_s = 20\nroofline_flops_per_work = 1\n" TAIL,
      "g.ini:3: roofline_cpu_gflops = 'inf' is not a number");
  BAD(NODE CPU "roofline_gpu_gflops = 500\n" TAIL,
      "g.ini:6: [nodetype r] describes a GPU (roofline_gpu_gflops) without roofline_gpu_gbytes_per_s");
  BAD(NODE CPU "roofline_gpu_gflops = 500\nroofline_gpu_gbytes_per_s = 100\n" TAIL,
      "g.ini:6: [nodetype r] describes a GPU (roofline_gpu_gflops) without roofline_pcie_gbytes_per_s");
  BAD(NODE CPU "roofline_pcie_gbytes_per_s = 8\n" TAIL,
      "describes a GPU (roofline_pcie_gbytes_per_s) without roofline_gpu_gflops");
  BAD(NODE CPU
      "roofline_gpu_gflops = 500\nroofline_gpu_gbytes_per_s = 0\nroofline_pcie_gbytes_per_s = 8\n" TAIL,
      "g.ini:7: [nodetype r] roofline_gpu_gbytes_per_s = 0: a bandwidth must be > 0");
  BAD(NODE CPU "roofline_launch_us = 5\n" TAIL,
      "g.ini:6: [nodetype r] roofline_launch_us describes a GPU the node type does not have");
  BAD(NODE "roofline_cpu_gflops = 1\nroofline_cpu_gbytes_per_s = 1\n" TAIL,
      "give roofline_flops_per_work or roofline_bytes_per_work > 0");
  BAD(NODE CPU
      "roofline_gpu_gflops = 500\nroofline_gpu_gbytes_per_s = 100\nroofline_pcie_gbytes_per_s = 8\n"
      "roofline_pcie_bytes_per_work = -0.5\n" TAIL,
      "g.ini:9: [nodetype r] roofline_pcie_bytes_per_work = -0.5: give bytes >= 0, or -1");
  BAD("[nodetype r]\nspeed = 2\nroofline_cpu_gflops = 5\n" TAIL,
      "g.ini:3: [nodetype r] key 'roofline_cpu_gflops' belongs to speed model 'roofline'");
}
