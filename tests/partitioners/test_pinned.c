/* test_pinned.c - pinned objects (lbs_part_input.fixed) given to partitioners without
 * LBS_PART_FIXED: lbs_part_run partitions the others around them (partitioners/registry.c).
 *
 * The case: a line of 24 cells of weight 1 and 2 parts of equal share, with 4 pinned objects of
 * weight 3 in part 0 (cells 0, 6, 12, 18). The whole load is 36, a share 18; part 0 holds 12 of
 * pinned load, so the migratable 20 should go 6 to part 0 and 14 to part 1. Ignoring the pinned
 * load would give 10 and 10. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "lbs_part.h"
#include "testutil.h"

#define N 24

static char *mpi_session; /* tu_mpi_session */
static void up(void) {
  mpi_session = tu_mpi_session();
  MPI_Init(NULL, NULL);
}
static void down(void) {
  MPI_Finalize();
  tu_rmrf(mpi_session);
}
TestSuite(pinned, .init = up, .fini = down);

static int64_t gid[N], xadj[N + 1], adj[2 * N], rf[2] = {0, N};
static double co[N], aw[2 * N], w[N];
static int cur[N];
static unsigned char fx[N];
static const double sizes[2] = {0.5, 0.5};

static lbs_part_input line_input(void) {
  int64_t k = 0;
  for (int i = 0; i < N; i++) {
    gid[i] = i, co[i] = i + 0.5, fx[i] = i % 6 == 0, w[i] = fx[i] ? 3 : 1;
    cur[i] = fx[i] ? 0 : i % 2; /* the migratable ones start spread */
    xadj[i] = k;
    if (i > 0) adj[k++] = i - 1;
    if (i + 1 < N) adj[k++] = i + 1;
  }
  xadj[N] = k;
  for (int64_t j = 0; j < k; j++) aw[j] = 1;
  return (lbs_part_input){.comm = MPI_COMM_WORLD,
                          .nlocal = N,
                          .gid = gid,
                          .weight = w,
                          .dim = 1,
                          .coords = co,
                          .xadj = xadj,
                          .adj = adj,
                          .adjw = aw,
                          .rank_first = rf,
                          .current = cur,
                          .nparts = 2,
                          .part_sizes = sizes,
                          .fixed = fx};
}

/* spec's partition of the line: pinned objects stay in part 0, and the migratable load on part 0
 * is near 6 (counted) or only bounded (METIS without :speed: equal parts) */
static void around(const char *spec, int counted) {
  lbs_partitioner *p;
  cr_assert_eq(lbs_part_create(spec, NULL, MPI_COMM_WORLD, &p), LBS_OK, "%s: %s", spec,
               lbs_errmsg());
  cr_assert(!lbs_part_keeps_fixed(p), "%s takes the generic path", spec);
  lbs_part_input in = line_input();
  int part[N];
  cr_assert_eq(lbs_part_run(p, &in, part), LBS_OK, "%s: %s", spec, lbs_errmsg());
  double on0 = 0;
  for (int i = 0; i < N; i++) {
    cr_assert(part[i] == 0 || part[i] == 1, "%s: element %d in part %d", spec, i, part[i]);
    if (fx[i]) cr_assert_eq(part[i], 0, "%s: pinned element %d moved to %d", spec, i, part[i]);
    if (!fx[i] && part[i] == 0) on0 += w[i];
  }
  if (counted)
    cr_assert(on0 >= 4 && on0 <= 8, "%s: migratable load %g on part 0, expected about 6", spec,
              on0);
  lbs_part_destroy(&p);
}

Test(pinned, zoltan_rcb_fills_around_the_pinned_load) { around("zoltan:rcb", 1); }
Test(pinned, zoltan_block_fills_around_the_pinned_load) { around("zoltan:block", 1); }
Test(pinned, metis_speed_fills_around_the_pinned_load) { around("metis:kway:speed", 1); }
Test(pinned, metis_without_speed_keeps_them) { around("metis:kway", 0); }

/* a pinned object without a part is refused, naming it */
Test(pinned, pinned_without_a_part_is_refused) {
  lbs_partitioner *p;
  cr_assert_eq(lbs_part_create("zoltan:rcb", NULL, MPI_COMM_WORLD, &p), LBS_OK, "%s", lbs_errmsg());
  lbs_part_input in = line_input();
  cur[6] = -1;
  int part[N];
  cr_assert_eq(lbs_part_run(p, &in, part), LBS_INVAL);
  cr_assert(strstr(lbs_errmsg(), "pinned element 6 is in part -1"), "%s", lbs_errmsg());
  lbs_part_destroy(&p);
}

/* nothing pinned (every flag 0): the same answer as without the field */
Test(pinned, no_pinned_flag_set_changes_nothing) {
  lbs_partitioner *p;
  cr_assert_eq(lbs_part_create("zoltan:rcb", NULL, MPI_COMM_WORLD, &p), LBS_OK, "%s", lbs_errmsg());
  lbs_part_input in = line_input();
  for (int i = 0; i < N; i++) fx[i] = 0;
  int a[N], b[N];
  cr_assert_eq(lbs_part_run(p, &in, a), LBS_OK, "%s", lbs_errmsg());
  in.fixed = NULL;
  cr_assert_eq(lbs_part_run(p, &in, b), LBS_OK, "%s", lbs_errmsg());
  for (int i = 0; i < N; i++) cr_assert_eq(a[i], b[i], "element %d", i);
  lbs_part_destroy(&p);
}
