/* objlb_int.h - private to partitioners/: the object-level balancers of objlb.c (objlb:greedy,
 * objlb:refine, objlb:tempered) as plain functions over all the objects, so that their unit tests
 * (tests/partitioners/test_objlb.c) call them without MPI. */
#ifndef LBS_OBJLB_INT_H
#define LBS_OBJLB_INT_H

#include <stdint.h>

#include "lbs_part.h"

/* The order in which tempered offers an overloaded processor's objects ([objlb] ordering). */
typedef enum { LBS_OBJLB_LARGEST, LBS_OBJLB_SMALLEST, LBS_OBJLB_ID } lbs__objlb_order;
/* Tempered's acceptance test ([objlb] criterion): the target stays below the source's load
 * before the transfer (tempered), or below the average (GrapevineLB's original). */
typedef enum { LBS_OBJLB_TEMPERED, LBS_OBJLB_GRAPEVINE } lbs__objlb_criterion;

typedef struct lbs__objlb_opts {
  double tolerance;               /* refine: overloaded above tolerance x average */
  int iterations;                 /* tempered: gossip-and-transfer iterations */
  int rounds;                     /* tempered: gossip rounds per iteration */
  int fanout;                     /* tempered: processors each informed one tells per round */
  lbs__objlb_order order;         /* tempered: the order of a source's objects */
  lbs__objlb_criterion criterion; /* tempered: when a target takes an object */
  uint64_t seed;                  /* tempered: its PRNG's seed */
} lbs__objlb_opts;

/* [objlb]'s defaults. */
lbs__objlb_opts lbs__objlb_defaults(void);

/* Each computes part[0..in->nlocal) from all the objects (in->gid, in->weight, in->current,
 * in->nparts, in->part_sizes; in->comm is not used): local, deterministic. Loads are relative to
 * the part sizes (load / size, a zero size taking nothing). LBS_NOMEM, or LBS_INVAL for a bad
 * input (no parts, no positive size, a negative or non-finite weight, a fixed object without a
 * valid current part). Pinned objects (in->fixed) stay on their current part in all three, their
 * weights counted there.
 * greedy: Graham's LPT from scratch (in->current is not read).
 * refine: from in->current, objects moved only off processors above tolerance x average; an
 * object without a valid current part is placed first, as greedy would.
 * tempered: from in->current (placed likewise), gossip and tempered transfers, the best of its
 * iterations kept. */
lbs_err lbs__objlb_greedy(const lbs_part_input *in, int *part);
lbs_err lbs__objlb_refine(const lbs_part_input *in, const lbs__objlb_opts *o, int *part);
lbs_err lbs__objlb_tempered(const lbs_part_input *in, const lbs__objlb_opts *o, int *part);

#endif
