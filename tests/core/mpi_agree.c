/* mpi_agree.c - lbs_mpi_agree (core/lbs_mpi.h) on 1, 2 and 3 ranks: a failure on rank 1 only,
 * on rank 0 only, on every rank, on none; on a communicator whose ranks are numbered apart from
 * MPI_COMM_WORLD's; a message as long as lbs_errmsg() holds. Every rank checks the code it gets
 * and its lbs_errmsg() afterwards. */
#include <string.h>

#include "lbs_mpi.h"
#include "mpi_check.h"

/* Each rank's own failure: its code and message differ from every other rank's. */
static lbs_err fail_as(int rank) {
  return lbs_fail(rank % 2 ? LBS_PARSE : LBS_IO, "rank %d: its own failure", rank);
}

/* The ranks of comm in `failing` (a bit per rank) fail; every rank must get the lowest one's. */
static void agree_case(MPI_Comm comm, unsigned failing, const char *name) {
  int rank, size, first = -1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  for (int r = size - 1; r >= 0; r--)
    if (failing >> r & 1) first = r;
  lbs_fail(LBS_INVAL, "before the call on rank %d", rank);
  lbs_err mine = failing >> rank & 1 ? fail_as(rank) : LBS_OK;
  char before[64];
  snprintf(before, sizeof before, "%s", lbs_errmsg());
  lbs_err got = lbs_mpi_agree(comm, mine);
  if (first < 0) {
    CHECK(got == LBS_OK, "%s: rank %d got %d, none failed", name, rank, (int)got);
    CHECK(!strcmp(lbs_errmsg(), before), "%s: rank %d's message changed to '%s'", name, rank,
          lbs_errmsg());
    return;
  }
  char want[64];
  snprintf(want, sizeof want, "rank %d: its own failure", first);
  CHECK(got == (first % 2 ? LBS_PARSE : LBS_IO), "%s: rank %d got code %d, rank %d's expected",
        name, rank, (int)got, first);
  CHECK(!strcmp(lbs_errmsg(), want), "%s: rank %d says '%s', not '%s'", name, rank, lbs_errmsg(),
        want);
}

/* A message of 1023 characters (lbs_errmsg()'s room) arrives whole. */
static void long_message(int rank) {
  char text[1024];
  memset(text, 'a' + rank % 26, sizeof text - 1);
  text[sizeof text - 1] = '\0';
  lbs_err got = lbs_mpi_agree(MPI_COMM_WORLD, rank == 0 ? lbs_fail(LBS_NOMEM, "%s", text) : LBS_OK);
  memset(text, 'a', sizeof text - 1);
  CHECK(got == LBS_NOMEM && !strcmp(lbs_errmsg(), text),
        "long message: rank %d got %d, %zu characters", rank, (int)got, strlen(lbs_errmsg()));
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int size;
  MPI_Comm_rank(MPI_COMM_WORLD, &check_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  agree_case(MPI_COMM_WORLD, 0x2, "rank 1 only");
  agree_case(MPI_COMM_WORLD, 0x1, "rank 0 only");
  agree_case(MPI_COMM_WORLD, ~0u, "every rank");
  agree_case(MPI_COMM_WORLD, 0x0, "no rank");
  agree_case(MPI_COMM_WORLD, 0x6, "ranks 1 and 2");
  /* ranks numbered backwards: the lowest failing rank is the communicator's, not the world's */
  MPI_Comm back;
  MPI_Comm_split(MPI_COMM_WORLD, 0, size - check_rank, &back);
  agree_case(back, 0x1, "reversed communicator, its rank 0 (the world's last)");
  agree_case(back, 0x3, "reversed communicator, its ranks 0 and 1");
  MPI_Comm_free(&back);
  agree_case(MPI_COMM_SELF, 0x1, "MPI_COMM_SELF");
  long_message(check_rank);
  int rc = check_finish();
  MPI_Finalize();
  return rc;
}
