/* plan_fixture.h - plans built by hand in tests (test_racecar.c, test_db.c). */
#ifndef LBS_TEST_PLAN_FIXTURE_H
#define LBS_TEST_PLAN_FIXTURE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lbs_plan.h"

/* Adds implementation name on threads threads and devices mask, its IPG the n points (w, t). */
static inline void add_impl(lbs_plan *p, const char *name, int threads, unsigned mask, int n,
                            const double *w, const double *t) {
  p->impl = realloc(p->impl, (size_t)(p->nimpl + 1) * sizeof *p->impl);
  lbs_plan_impl *m = &p->impl[p->nimpl++];
  memset(m, 0, sizeof *m);
  snprintf(m->impl, sizeof m->impl, "%s", name);
  m->threads = threads, m->devmask = mask;
  m->ipg = (lbs_ipg){n, malloc((size_t)n * sizeof(double)), malloc((size_t)n * sizeof(double))};
  memcpy(m->ipg.w, w, (size_t)n * sizeof(double));
  memcpy(m->ipg.t, t, (size_t)n * sizeof(double));
}

#endif
