/* test_walk.c - one random walk of the Monte-Carlo Laplace solver (workloads/lbs_walk.h): it ends
 * off the grid, repeats exactly, and leaves the square's four sides equally often from its
 * centre. */
#include <criterion/criterion.h>

#include "lbs_walk.h"

Test(walk, a_walk_ends_off_the_grid_and_repeats) {
  const int64_t N = 9;
  for (uint64_t k = 0; k < 200; k++) {
    int hot, hot2;
    int64_t steps = lbs_walk_one(7, N, 40, 4, 4, k, &hot);
    cr_assert_geq(steps, 5, "walk %llu: at least the distance to the nearest side",
                  (unsigned long long)k);
    cr_assert_eq(lbs_walk_one(7, N, 40, 4, 4, k, &hot2), steps, "the same walk again");
    cr_assert_eq(hot, hot2);
  }
  /* one step from the hot side (y = N - 1), most walks leave through it */
  int hot = 0, h;
  for (uint64_t k = 0; k < 400; k++) lbs_walk_one(1, N, 3, 4, N - 1, k, &h), hot += h;
  cr_assert_gt(hot, 400 / 2, "%d of 400 walks next to the hot side left through it", hot);
}

Test(walk, from_the_centre_each_side_is_as_likely) {
  const int64_t N = 21;
  int hot = 0, h, n = 8000;
  for (int k = 0; k < n; k++) lbs_walk_one(3, N, 220, 10, 10, (uint64_t)k, &h), hot += h;
  double f = (double)hot / n; /* one side of four: 1/4, sd about 0.005 */
  cr_assert(f > 0.23 && f < 0.27, "%.4f of the walks left through the hot side", f);
  /* other grid points and seeds give other walks */
  int a, b;
  int64_t s1 = lbs_walk_one(3, N, 220, 10, 10, 0, &a), s2 = lbs_walk_one(4, N, 220, 10, 10, 0, &b);
  int64_t s3 = lbs_walk_one(3, N, 221, 10, 10, 0, &b);
  cr_assert(s1 != s2 || s1 != s3, "walks of other seeds and points differ");
}
