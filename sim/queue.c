/* queue.c - event queue: an array binary heap keyed by (time, insertion sequence). */
#include <stdlib.h>

#include "lbs_sim.h"

struct lbs_queue {
  lbs_event *h; /* heap array */
  size_t n, cap;
  uint64_t next_seq;
};

static int before(const lbs_event *a, const lbs_event *b) {
  return a->time < b->time || (a->time == b->time && a->seq < b->seq);
}

lbs_err lbs_queue_create(size_t hint, lbs_queue **out) {
  lbs_queue *q = calloc(1, sizeof *q);
  if (q) {
    q->cap = hint > 16 ? hint : 16;
    q->h = malloc(q->cap * sizeof *q->h);
  }
  if (!q || !q->h) {
    if (q) free(q->h);
    free(q);
    *out = NULL;
    return lbs_fail(LBS_NOMEM, "event queue");
  }
  *out = q;
  return LBS_OK;
}

void lbs_queue_destroy(lbs_queue **q) {
  if (!q || !*q) return;
  free((*q)->h);
  free(*q);
  *q = NULL;
}

lbs_err lbs_queue_push(lbs_queue *q, int64_t time, int kind, int proc, int64_t arg) {
  if (q->n == q->cap) {
    lbs_event *h = realloc(q->h, 2 * q->cap * sizeof *h);
    if (!h) return lbs_fail(LBS_NOMEM, "event queue of %zu events", 2 * q->cap);
    q->h = h;
    q->cap *= 2;
  }
  lbs_event ev = {time, q->next_seq++, kind, proc, arg};
  size_t i = q->n++;
  while (i > 0) { /* sift up */
    size_t parent = (i - 1) / 2;
    if (!before(&ev, &q->h[parent])) break;
    q->h[i] = q->h[parent];
    i = parent;
  }
  q->h[i] = ev;
  return LBS_OK;
}

int lbs_queue_pop(lbs_queue *q, lbs_event *out) {
  if (q->n == 0) return 0;
  *out = q->h[0];
  lbs_event last = q->h[--q->n];
  size_t i = 0;
  for (;;) { /* sift down */
    size_t c = 2 * i + 1;
    if (c >= q->n) break;
    if (c + 1 < q->n && before(&q->h[c + 1], &q->h[c])) c++;
    if (!before(&q->h[c], &last)) break;
    q->h[i] = q->h[c];
    i = c;
  }
  if (q->n) q->h[i] = last;
  return 1;
}

const lbs_event *lbs_queue_peek(const lbs_queue *q) { return q->n ? &q->h[0] : NULL; }
size_t lbs_queue_size(const lbs_queue *q) { return q->n; }
