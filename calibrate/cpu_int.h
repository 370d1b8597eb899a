/* cpu_int.h - the serial kernels of the cpu target (cpu.c), which the threads target
 * (threads.c) runs on contiguous chunks. Private to calibrate/.
 *
 * Each function computes one range of a kernel's outputs from the parameters an adapter made
 * (kernels.h) and touches nothing outside that range, so threads can run disjoint ranges at
 * once. Ranges are half-open [lo, hi). */
#ifndef LBS_CALIB_CPU_INT_H
#define LBS_CALIB_CPU_INT_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "kernels.h"

/* Sorts a[0..n) ascending: introsort (median-of-three quicksort, heapsort past 2 log2 n levels,
 * insertion sort below 24 elements). NaNs are not expected (the adapters make none). */
void lbs__sort_doubles(double *a, int64_t n);

/* Outputs [k0, k1) of the stable merge of the sorted runs A (la) and B (lb) into out[0..k1-k0)
 * (ties taken from A first); any split of [0, la+lb) into ranges gives the same whole merge. */
void lbs__merge_range(const double *A, int64_t la, const double *B, int64_t lb, int64_t k0,
                      int64_t k1, double *out);

/* x[lo..hi) . y[lo..hi), summed in index order. */
double lbs__dot_range(const double *x, const double *y, int64_t lo, int64_t hi);

/* out[k0..k1) of the full convolution (set, not added to). Loops over the longer operand
 * outside and the shorter inside, so out[k] is summed in ascending index of the longer one. */
void lbs__conv1d_range(const lbs_k_conv1d *p, int64_t k0, int64_t k1);

/* Rows [r0, r1) of C = A B, i-k-j order: each C(i, j) summed in ascending k. */
void lbs__matmul_rows(const lbs_k_matmul *p, int r0, int r1);

/* Cells [c0, c1) of the wave step (apps/wave's update_H then update_E on each cell, halos held,
 * no source): *energy gets the sum of their update_H energies in cell order, *emax the largest
 * |E| after update_E. */
void lbs__wave_cells(const lbs_k_wave *p, int64_t c0, int64_t c1, double *energy, double *emax);

/* Walks [k0, k1): *hits gets the hot walks, *steps the walk steps. */
void lbs__walk_range(const lbs_k_walk *p, int64_t k0, int64_t k1, int64_t *hits, int64_t *steps);

/* Targets [t0, t1): their accelerations into p->acc; returns their interactions. stack: room
 * for the tree's nodes + 1 entries. */
int64_t lbs__bhforce_range(const lbs_k_bhforce *p, int64_t t0, int64_t t1, int32_t *stack);

/* The processor's model name from /proc/cpuinfo ("unknown" when it says none) into buf. */
void lbs__cpu_model(char *buf, size_t n);

/* How threads.c starts a thread: pthread_create, replaceable by tests to make a start fail. */
extern int (*lbs__thread_create)(pthread_t *th, const pthread_attr_t *attr, void *(*fn)(void *),
                                 void *arg);

#endif
