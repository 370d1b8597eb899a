/* mpi_check.h - checks for the MPI test programs: a failure prints on the rank that met it (a rank
 * other than 0 names itself), the tally is agreed across ranks and printed as the closing
 * "N passed, N failed" line CI reads. */
#ifndef LBS_MPI_CHECK_H
#define LBS_MPI_CHECK_H

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int check_fails, check_passes, check_rank;
#define CHECK(cond, ...)                                                                           \
  do {                                                                                             \
    if (cond)                                                                                      \
      check_passes++;                                                                              \
    else {                                                                                         \
      check_fails++;                                                                               \
      if (check_rank) printf("rank %d: ", check_rank);                                             \
      printf("FAIL line %d: ", __LINE__), printf(__VA_ARGS__), printf("\n");                       \
      fflush(stdout);                                                                              \
    }                                                                                              \
  } while (0)

/* Prints the tally on rank 0; returns the exit status (0 when everything passed). */
static inline int check_finish(void) {
  int f = check_fails, p = check_passes;
  MPI_Allreduce(&f, &check_fails, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Allreduce(&p, &check_passes, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (check_rank == 0) printf("%d passed, %d failed\n", check_passes, check_fails);
  return check_fails != 0;
}

/* Rank 0 removes a scratch directory (the tests' mkdtemp). */
static inline void check_remove_dir(const char *dir) {
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank != 0) return;
  char cmd[256];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system(cmd)) {}
}

#endif
