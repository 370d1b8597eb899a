/* roofline.h - private to grid/: the roofline speed model's arithmetic (speed_roofline.c), apart
 * from its keys so that tests/grid/test_roofline.c checks the split directly.
 *
 * A node is described, not measured: a CPU and optionally a GPU, each with a peak (GFLOP/s =
 * flop/ns) and a memory bandwidth (GB/s = bytes/ns); the GPU also with its host link (PCIe,
 * GB/s) and a kernel launch latency. The application is described per unit of the trace's work:
 * the flops it does, the bytes it moves to and from memory, and the bytes that must cross PCIe
 * when the GPU does it. Seed 001 (section 1.3.1, "Workload Distribution") then splits a node's
 * work between the CPU and the GPU so that both finish together. */
#ifndef LBS_ROOFLINE_H
#define LBS_ROOFLINE_H

/* A node and the application on it. Every field is finite and >= 0; flops_per_work or
 * bytes_per_work is > 0; with a GPU (gpu_gflops > 0) gpu_gbytes_per_s and pcie_gbytes_per_s are
 * > 0 too. speed_roofline.c checks this before it builds one. */
typedef struct lbs__roofline_node {
  double cpu_gflops;          /* the CPU's peak, GFLOP/s = flop/ns */
  double cpu_gbytes_per_s;    /* its memory bandwidth, GB/s = bytes/ns */
  double gpu_gflops;          /* the GPU's peak; 0: the node has no GPU */
  double gpu_gbytes_per_s;    /* the GPU's own memory bandwidth */
  double pcie_gbytes_per_s;   /* the host link's bandwidth */
  double launch_ns;           /* what a kernel launch costs the GPU, once per part it does */
  int pcie_overlap;           /* 1: transfers overlap the GPU's computing (PCIe is one more roof,
                                 seed 001's Equation (7)); 0: they come first (serialized) */
  double flops_per_work;      /* the application's flops per unit of work */
  double bytes_per_work;      /* its bytes to and from memory per unit of work (either device) */
  double pcie_bytes_per_work; /* its bytes across PCIe per unit of work done on the GPU */
} lbs__roofline_node;

/* How a node splits work W, and what each device takes. */
typedef struct lbs__roofline_share {
  double cpu_frac; /* seed 001's p: the fraction of W the CPU does (1 without a GPU or work) */
  double gpu_frac; /* 1 - p */
  double cpu_ns;   /* the CPU's time for its part (0 when it has none) */
  double gpu_ns;   /* the GPU's time for its part, launch and transfers included (0: none) */
  double time_ns;  /* the node's time for W: both finish together when both are used */
} lbs__roofline_share;

/* ns a unit of work takes on the CPU (gpu = 0) or on the GPU (gpu = 1, launch left out) at
 * large work: the roofline, flops_per_work / min(peak, intensity x bandwidth), written as
 * max(flops_per_work / peak, bytes_per_work / bandwidth); the GPU's also with the PCIe bytes
 * (as a third roof, or added, as pcie_overlap says). */
double lbs__roofline_ns_per_work(const lbs__roofline_node *n, int gpu);

/* The attainable throughput of a device on this application, GFLOP/s: seed 001's Fc (gpu = 0)
 * and Fg (gpu = 1), Equations (6) and (7): flops_per_work / lbs__roofline_ns_per_work(). 0 when
 * the application does no flops. */
double lbs__roofline_gflops(const lbs__roofline_node *n, int gpu);

/* Splits work W (>= 0) between the node's devices (seed 001, 1.3.1): the CPU takes the fraction
 * p where its finish time equals the GPU's, Tc_p = Tg_p (Equations (1)-(3)); the GPU's time
 * includes its launch and its transfers. When W is so small that the CPU alone finishes before a
 * launch would, the CPU takes all of it. Fills *out; never fails. */
void lbs__roofline_split(const lbs__roofline_node *n, double work, lbs__roofline_share *out);

#endif
