/* lbs_mpi.h - what lbsim's libraries share under MPI: one way for the ranks of a communicator
 * to agree on a failure.
 *
 * Its own library (lbs_mpi, core/CMakeLists.txt) beside lbs_core, so that a program that links
 * lbs_core alone (lbsprof-agent) does not link MPI. Used by the replay engine (lbs__agree), the
 * partitioners' adapters, liblbsprof and the commands' checks. */
#ifndef LBS_MPI_H
#define LBS_MPI_H

#include <mpi.h>

#include "lbs_core.h"

/* Collective over comm: every rank passes its own result e and every rank returns the same
 * code, LBS_OK when every rank passed LBS_OK, else the code of the lowest-numbered rank that
 * failed. That rank's lbs_errmsg() (as it was at the call) becomes every rank's lbs_errmsg();
 * when no rank failed, no message changes. One MPI_Allreduce, and two broadcasts on a
 * failure. */
lbs_err lbs_mpi_agree(MPI_Comm comm, lbs_err e);

#endif
