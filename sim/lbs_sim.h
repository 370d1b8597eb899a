/* lbs_sim.h - the simulator kernel: event queue (this file so far). */
#ifndef LBS_SIM_H
#define LBS_SIM_H

#include <stdint.h>

#include "lbs_core.h"

/* An event: at integer-ns time `time`, of a kind and for a processor, with a payload.
 * Events at the same time come out in insertion order, so replays are deterministic. */
typedef struct lbs_event {
  int64_t time;  /* ns */
  uint64_t seq;  /* insertion counter, set by lbs_queue_push */
  int kind;      /* the engine's event kinds */
  int proc;      /* processor it concerns, or -1 */
  int64_t arg;   /* payload (step, peer, ...) */
} lbs_event;

/* A binary min-heap of events ordered by (time, seq). */
typedef struct lbs_queue lbs_queue;
lbs_err lbs_queue_create(size_t capacity_hint, lbs_queue **out);
void lbs_queue_destroy(lbs_queue **q); /* NULL-safe, clears *q */
/* Adds an event (its seq is assigned here); LBS_NOMEM when it cannot grow. */
lbs_err lbs_queue_push(lbs_queue *q, int64_t time, int kind, int proc, int64_t arg);
/* Removes the earliest event into *out; returns 0 when the queue is empty. */
int lbs_queue_pop(lbs_queue *q, lbs_event *out);
/* The earliest event without removing it, or NULL. Valid until the next push or pop. */
const lbs_event *lbs_queue_peek(const lbs_queue *q);
size_t lbs_queue_size(const lbs_queue *q);

#endif
