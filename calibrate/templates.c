/* templates.c - parallelizing templates (seed 004, 5.2): how an invocation splits in two smaller
 * ones and how their outputs combine. Each obeys the standard work metric relation (the two
 * sides' metrics add up to the whole): sort splits the array and merges the sorted halves
 * (Figure 5-1); dot, matmul (rows of A), wave (cells) and bhforce (target bodies) are data
 * parallel. conv1d (its halves' outputs overlap) and walk (a walk's random stream is its index
 * in the invocation, so a split would change the walks) have none. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kernels.h"
#include "lbs_plan.h"

/* w rounded to a whole count of units of size unit, within [0, n]. */
static int64_t take(double w, double unit, int64_t n) {
  double k = floor(w / unit + 0.5);
  return k < 0 ? 0 : k > (double)n ? n : (int64_t)k;
}

static double sort_split(const void *params, double w_a, void *a, void *b) {
  const lbs_k_sort *p = params;
  lbs_k_sort *x = a, *y = b;
  int64_t na = take(w_a, 1, p->n);
  *x = (lbs_k_sort){na, p->a};
  *y = (lbs_k_sort){p->n - na, p->a + na};
  return (double)na;
}

static lbs_err sort_combine(void *params, const void *a, const void *b) {
  lbs_k_sort *p = params;
  const lbs_k_sort *x = a, *y = b;
  if (!x->n || !y->n) return LBS_OK;
  double *m = malloc((size_t)p->n * sizeof *m);
  if (!m) return lbs_fail(LBS_NOMEM, "sort template: merge of %lld values", (long long)p->n);
  int64_t i = 0, j = 0, k = 0;
  while (i < x->n && j < y->n) m[k++] = y->a[j] < x->a[i] ? y->a[j++] : x->a[i++];
  while (i < x->n) m[k++] = x->a[i++];
  while (j < y->n) m[k++] = y->a[j++];
  memcpy(p->a, m, (size_t)p->n * sizeof *m);
  free(m);
  return LBS_OK;
}

static double dot_split(const void *params, double w_a, void *a, void *b) {
  const lbs_k_dot *p = params;
  int64_t na = take(w_a, 1, p->n);
  *(lbs_k_dot *)a = (lbs_k_dot){na, p->x, p->y, 0};
  *(lbs_k_dot *)b = (lbs_k_dot){p->n - na, p->x + na, p->y + na, 0};
  return (double)na;
}

static lbs_err dot_combine(void *params, const void *a, const void *b) {
  ((lbs_k_dot *)params)->result = ((const lbs_k_dot *)a)->result + ((const lbs_k_dot *)b)->result;
  return LBS_OK;
}

static double mm_split(const void *params, double w_a, void *a, void *b) {
  const lbs_k_matmul *p = params;
  double row = (double)p->n * p->p; /* a row of A is n * p multiply-adds */
  int64_t ma = take(w_a, row > 0 ? row : 1, p->m);
  *(lbs_k_matmul *)a = (lbs_k_matmul){(int)ma, p->n, p->p, p->A, p->B, p->C};
  *(lbs_k_matmul *)b =
      (lbs_k_matmul){p->m - (int)ma, p->n, p->p, p->A + ma * p->n, p->B, p->C + ma * p->p};
  return (double)ma * row;
}

static lbs_err none_combine(void *params, const void *a, const void *b) {
  (void)params, (void)a, (void)b;
  return LBS_OK;
}

static double wave_split(const void *params, double w_a, void *a, void *b) {
  const lbs_k_wave *p = params;
  int64_t na = take(w_a, 1, p->ncells), cell = 6 * (int64_t)(p->b + 1) * (p->b + 1) * (p->b + 1);
  *(lbs_k_wave *)a = (lbs_k_wave){na, p->b, p->S, p->F, 0, 0};
  *(lbs_k_wave *)b = (lbs_k_wave){p->ncells - na, p->b, p->S, p->F + na * cell, 0, 0};
  return (double)na;
}

static lbs_err wave_combine(void *params, const void *a, const void *b) {
  lbs_k_wave *p = params;
  const lbs_k_wave *x = a, *y = b;
  p->energy = (x->ncells ? x->energy : 0) + (y->ncells ? y->energy : 0);
  p->emax = fmax(x->ncells ? x->emax : 0, y->ncells ? y->emax : 0);
  return LBS_OK;
}

static double bh_split(const void *params, double w_a, void *a, void *b) {
  const lbs_k_bhforce *p = params;
  int64_t na = take(w_a, 1, p->ntarget);
  lbs_k_bhforce *x = a, *y = b;
  *x = *p, *y = *p;
  x->ntarget = na, x->interactions = 0;
  y->ntarget = p->ntarget - na, y->target = p->target + na, y->acc = p->acc + 3 * na,
  y->interactions = 0;
  return (double)na;
}

static lbs_err bh_combine(void *params, const void *a, const void *b) {
  ((lbs_k_bhforce *)params)->interactions =
      ((const lbs_k_bhforce *)a)->interactions + ((const lbs_k_bhforce *)b)->interactions;
  return LBS_OK;
}

static const lbs_template templates[] = {
    {"sort", "merge", sizeof(lbs_k_sort), sort_split, sort_combine},
    {"dot", "data", sizeof(lbs_k_dot), dot_split, dot_combine},
    {"matmul", "data", sizeof(lbs_k_matmul), mm_split, none_combine},
    {"wave", "data", sizeof(lbs_k_wave), wave_split, wave_combine},
    {"bhforce", "data", sizeof(lbs_k_bhforce), bh_split, bh_combine},
    {NULL, NULL, 0, NULL, NULL}};

const lbs_template *lbs_template_find(const char *kernel) {
  for (const lbs_template *t = templates; kernel && t->kernel; t++)
    if (!strcmp(t->kernel, kernel)) return t;
  return NULL;
}
