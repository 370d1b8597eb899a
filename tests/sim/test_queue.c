#include <criterion/criterion.h>
#include <stdlib.h>

#include "lbs_sim.h"

Test(queue, order_by_time_then_insertion) {
  lbs_queue *q;
  cr_assert_eq(lbs_queue_create(0, &q), LBS_OK);
  lbs_event ev;
  cr_assert_eq(lbs_queue_pop(q, &ev), 0, "empty queue");
  cr_assert_null(lbs_queue_peek(q));
  lbs_queue_push(q, 50, 1, 0, 0);
  lbs_queue_push(q, 10, 2, 1, 0);
  lbs_queue_push(q, 50, 3, 2, 0);
  lbs_queue_push(q, 10, 4, 3, 0);
  lbs_queue_push(q, -5, 5, 4, 0);
  int want[] = {5, 2, 4, 1, 3};
  cr_assert_eq(lbs_queue_peek(q)->kind, 5);
  for (int i = 0; i < 5; i++) {
    cr_assert_eq(lbs_queue_pop(q, &ev), 1);
    cr_assert_eq(ev.kind, want[i], "pop %d gave kind %d", i, ev.kind);
  }
  cr_assert_eq(lbs_queue_size(q), 0);
  lbs_queue_destroy(&q);
  cr_assert_null(q);
}

typedef struct {
  int64_t t;
  int id;
} item;

static int cmp_item(const void *a, const void *b) { /* stable by id for equal times */
  const item *x = a, *y = b;
  if (x->t != y->t) return x->t < y->t ? -1 : 1;
  return x->id - y->id;
}

Test(queue, matches_a_stable_sort_under_interleaved_pushes_and_pops) {
  enum { N = 20000 };
  static item pushed[N], popped[N], expect[N];
  lbs_queue *q;
  cr_assert_eq(lbs_queue_create(4, &q), LBS_OK);
  int np = 0, no = 0;
  int64_t now = 0;
  /* a discrete-event pattern: pop the earliest, push up to two later events */
  for (int i = 0; i < 100; i++) {
    pushed[np] = (item){(int64_t)(lbs_rng_u64(1, 0, (uint64_t)i) % 50), np};
    lbs_queue_push(q, pushed[np].t, 0, 0, np);
    np++;
  }
  lbs_event ev;
  while (lbs_queue_pop(q, &ev)) {
    cr_assert_geq(ev.time, now, "time went backwards");
    now = ev.time;
    popped[no++] = (item){ev.time, (int)ev.arg};
    for (int k = 0; k < 2 && np < N; k++)
      if (lbs_rng_u64(2, 0, (uint64_t)(np + k)) % 3) {
        pushed[np] =
            (item){now + (int64_t)(lbs_rng_u64(3, 0, (uint64_t)np) % 7), np}; /* many ties */
        lbs_queue_push(q, pushed[np].t, 0, 0, np);
        np++;
      }
  }
  cr_assert_eq(no, np, "every event comes out once");
  /* events pushed before being popped compare by (time, id): popping order is sorted */
  for (int i = 0; i < no; i++) expect[i] = popped[i];
  qsort(expect, (size_t)no, sizeof *expect, cmp_item);
  for (int i = 0; i < no; i++)
    cr_assert(popped[i].t == expect[i].t && popped[i].id == expect[i].id, "position %d", i);
  lbs_queue_destroy(&q);
}
