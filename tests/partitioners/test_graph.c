/* test_graph.c - graph helpers of partitioners/graph.c: Gm keeps the input's neighbour order. */
#include <criterion/criterion.h>
#include <stdlib.h>

#include "lbs_part.h"

Test(symmetrize, a_symmetric_graph_comes_out_in_its_own_order) {
  /* a 5-vertex graph whose rows are in no sorted order (as Chaco files often are) */
  int64_t xadj[] = {0, 3, 5, 8, 10, 12}, adj[] = {3, 1, 2, 2, 0, 4, 0, 1, 4, 0, 2, 3};
  double w[] = {1, 2, 3, 4, 2, 5, 3, 4, 6, 1, 5, 6};
  int64_t *ox, *oa;
  double *ow;
  cr_assert_eq(lbs_part_symmetrize(5, xadj, adj, w, 1, &ox, &oa, &ow), LBS_OK);
  for (int i = 0; i <= 5; i++) cr_assert_eq(ox[i], xadj[i], "row starts");
  for (int j = 0; j < 12; j++) {
    cr_assert_eq(oa[j], adj[j], "neighbour %d: %lld, the input has %lld", j, (long long)oa[j],
                 (long long)adj[j]);
    cr_assert_eq(ow[j], w[j]);
  }
  free(ox), free(oa), free(ow);
}

Test(symmetrize, one_way_arcs_join_both_ways_with_the_larger_weight) {
  /* 0 -> 2 (0), 2 -> 0 (3), 1 -> 0 (2), self loop 1 -> 1 dropped; min weight 1 */
  int64_t xadj[] = {0, 1, 3, 4}, adj[] = {2, 0, 1, 0};
  double w[] = {0, 2, 9, 3};
  int64_t *ox, *oa;
  double *ow;
  cr_assert_eq(lbs_part_symmetrize(3, xadj, adj, w, 1, &ox, &oa, &ow), LBS_OK);
  int64_t wx[] = {0, 2, 3, 4}, wa[] = {2, 1, 0, 0};
  double ww[] = {3, 2, 2, 3};
  for (int i = 0; i <= 3; i++) cr_assert_eq(ox[i], wx[i]);
  for (int j = 0; j < 4; j++) {
    cr_assert_eq(oa[j], wa[j], "neighbour %d", j);
    cr_assert_eq(ow[j], ww[j], "weight %d", j);
  }
  free(ox), free(oa), free(ow);
}
