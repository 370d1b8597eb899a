/* mpi.c - the ranks of a communicator agree on a failure (lbs_mpi.h). */
#include <stdio.h>

#include "lbs_mpi.h"

lbs_err lbs_mpi_agree(MPI_Comm comm, lbs_err e) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  int mine = e ? rank : size, first;
  MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm);
  if (first == size) return LBS_OK;
  char msg[1024]; /* lbs_errmsg()'s room */
  int code = e;
  if (rank == first) snprintf(msg, sizeof msg, "%s", lbs_errmsg());
  MPI_Bcast(msg, sizeof msg, MPI_CHAR, first, comm);
  MPI_Bcast(&code, 1, MPI_INT, first, comm);
  return lbs_fail((lbs_err)code, "%s", msg);
}
