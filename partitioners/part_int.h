/* part_int.h - private to partitioners/. */
#ifndef LBS_PART_INT_H
#define LBS_PART_INT_H

#include "lbs_part.h"

/* Runs fn(state, all objects, their parts) on rank 0 of comm (all.comm = MPI_COMM_SELF) and
 * gives every rank its objects' parts. graph/coords: whether fn reads them. Collective: fn's
 * failure is every rank's, with rank 0's message (lbs_mpi_agree). */
typedef lbs_err (*lbs__part_fn)(void *state, const lbs_part_input *all, int *newpart);
lbs_err lbs__part_on_rank0(MPI_Comm comm, const lbs_part_input *in, int graph, int coords,
                           lbs__part_fn fn, void *state, int *newpart);

/* MinEX's section [minex] (part_minex.c), which its latency function reads too (latency.c). */
extern const lbs_section_spec lbs__minex_spec[];

/* Refuses a [zoltan] key the Zoltan adapter sets itself (LB_METHOD, OBJ_WEIGHT_DIM, ...),
 * naming where it was given and what to do instead (zoltan.c). */
lbs_err lbs__zoltan_check(const lbs_config *cfg);

#endif
