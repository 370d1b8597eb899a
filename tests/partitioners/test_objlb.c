/* test_objlb.c - the object-level balancers (partitioners/objlb.c) on hand-made loads whose
 * answers are worked out by hand: LPT on Graham's instance and with unequal part sizes;
 * RefineLB moving nothing within its tolerance and only objects of overloaded processors
 * otherwise; tempered lowering max/avg on a skewed start, the same for the same seed. The
 * algorithms are called without MPI (objlb_int.h); the partitioner's face (its [objlb] keys
 * and methods) through the registry. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lbs_config.h"
#include "objlb_int.h"

#define MAXN 256

static int64_t gid[MAXN];
static double w[MAXN];
static int cur[MAXN], part[MAXN];

/* n objects with weights ws (ids 0..n-1), on current parts cs (NULL: none), P parts of the
 * given sizes (NULL: equal). */
static lbs_part_input input(int n, const double *ws, const int *cs, int P, const double *sizes) {
  for (int i = 0; i < n; i++) gid[i] = i, w[i] = ws[i], cur[i] = cs ? cs[i] : -1, part[i] = -9;
  return (lbs_part_input){.comm = MPI_COMM_SELF,
                          .nlocal = n,
                          .gid = gid,
                          .weight = w,
                          .current = cur,
                          .nparts = P,
                          .part_sizes = sizes};
}

/* max over parts of load / (share x total): 1 is perfect */
static double imbalance(const lbs_part_input *in, const int *p) {
  return lbs_part_work_imbalance(p, in->weight, in->nlocal, in->part_sizes, in->nparts);
}

static int moved(const lbs_part_input *in, const int *p) {
  int m = 0;
  for (int64_t i = 0; i < in->nlocal; i++) m += p[i] != in->current[i];
  return m;
}

/* Graham's instance: 3,3,2,2,2 on two machines. LPT gives 7 (3+2+2 | 3+2), 7/6 of the optimum
 * 6 (3+3 | 2+2+2): his bound 4/3 - 1/(3m) reached; ties to the lower processor. */
Test(objlb, lpt_graham) {
  const double ws[] = {3, 3, 2, 2, 2};
  lbs_part_input in = input(5, ws, NULL, 2, NULL);
  cr_assert_eq(lbs__objlb_greedy(&in, part), LBS_OK);
  const int want[] = {0, 1, 0, 1, 0};
  for (int i = 0; i < 5; i++) cr_expect_eq(part[i], want[i], "object %d on %d", i, part[i]);
  cr_expect_float_eq(imbalance(&in, part), 7.0 / 6.0, 1e-12);
}

/* Shares 2/3 and 1/3, three objects of 1: each goes where its relative load ends lowest (1.5 on
 * p0 against 3 on p1, then 3 against 3: the lower index, then 4.5 against 3), so p0 gets two,
 * p1 one: perfect. */
Test(objlb, lpt_part_sizes) {
  const double ws[] = {1, 1, 1}, sizes[] = {2.0 / 3, 1.0 / 3};
  lbs_part_input in = input(3, ws, NULL, 2, sizes);
  cr_assert_eq(lbs__objlb_greedy(&in, part), LBS_OK);
  cr_expect(part[0] == 0 && part[1] == 0 && part[2] == 1, "%d %d %d", part[0], part[1], part[2]);
  cr_expect_float_eq(imbalance(&in, part), 1.0, 1e-12);
}

/* Equal weights go in id order, whatever order the input holds them in; the current parts are
 * not read. */
Test(objlb, lpt_ties_by_id) {
  const double ws[] = {1, 1, 1, 1, 1};
  const int cs[] = {1, 1, 1, 1, 1};
  lbs_part_input in = input(5, ws, cs, 2, NULL);
  for (int i = 0; i < 5; i++) gid[i] = 4 - i; /* ids 4,3,2,1,0 */
  cr_assert_eq(lbs__objlb_greedy(&in, part), LBS_OK);
  const int want[] = {0, 1, 0, 1, 0}; /* id 0 -> p0, id 1 -> p1, id 2 -> p0, ... */
  for (int i = 0; i < 5; i++) cr_expect_eq(part[i], want[i], "index %d on %d", i, part[i]);
}

/* Loads 9, 10, 10, 11: max/avg 1.1, within a tolerance of 1.15, so nothing moves. Within
 * 1.05 (the default; limit 10.5) the last is overloaded: its 10 fits nowhere, its 1 goes to the
 * one under-loaded processor, p0, and both end at 10. */
Test(objlb, refine_within_tolerance) {
  const double ws[] = {6, 3, 5, 5, 7, 3, 10, 1};
  const int cs[] = {0, 0, 1, 1, 2, 2, 3, 3};
  lbs_part_input in = input(8, ws, cs, 4, NULL);
  lbs__objlb_opts o = lbs__objlb_defaults();
  o.tolerance = 1.15;
  cr_assert_eq(lbs__objlb_refine(&in, &o, part), LBS_OK);
  cr_expect_eq(moved(&in, part), 0);
  o = lbs__objlb_defaults();
  cr_assert_eq(lbs__objlb_refine(&in, &o, part), LBS_OK);
  cr_expect_eq(moved(&in, part), 1);
  cr_expect_eq(part[7], 0);
  cr_expect_float_eq(imbalance(&in, part), 1.0, 1e-12);
}

/* p0 holds 2,2,2,2,1,1 (10), the others 2 each: average 4, limit 4.2. The heaviest objects of
 * p0 go one to each other processor (each then at 4), and p0 is left at 4: perfect in three
 * moves, none from the others. */
Test(objlb, refine_moves_off_overloaded_only) {
  const double ws[] = {2, 2, 2, 2, 1, 1, 2, 2, 2};
  const int cs[] = {0, 0, 0, 0, 0, 0, 1, 2, 3};
  lbs_part_input in = input(9, ws, cs, 4, NULL);
  lbs__objlb_opts o = lbs__objlb_defaults();
  cr_assert_eq(lbs__objlb_refine(&in, &o, part), LBS_OK);
  cr_expect_eq(moved(&in, part), 3);
  for (int i = 6; i < 9; i++) cr_expect_eq(part[i], cs[i], "object %d of a light processor", i);
  cr_expect(part[0] == 1 && part[1] == 2 && part[2] == 3, "%d %d %d", part[0], part[1], part[2]);
  cr_expect_float_eq(imbalance(&in, part), 1.0, 1e-12);
}

/* p0 holds 5,4,3,2,1 (15), p1 4, p2 4+1, p3 1+1+1+1: average 7, limit 7.35. The 5 and the 4 fit
 * nowhere (room 3.35 at most), so the 3 goes to p1 (to 7, p3 tied: the lower index), the 2 to
 * p3 (6 against p2's 7), the 1 to p2 (6 against p3's 7); p0 stays at 9, over the limit (RefineLB
 * moves no object that does not fit), and no other processor's object moves. */
Test(objlb, refine_big_objects_stay) {
  const double ws[] = {5, 4, 3, 2, 1, 4, 4, 1, 1, 1, 1, 1};
  const int cs[] = {0, 0, 0, 0, 0, 1, 2, 2, 3, 3, 3, 3};
  lbs_part_input in = input(12, ws, cs, 4, NULL);
  lbs__objlb_opts o = lbs__objlb_defaults();
  cr_assert_eq(lbs__objlb_refine(&in, &o, part), LBS_OK);
  const int want[] = {0, 0, 1, 3, 2, 1, 2, 2, 3, 3, 3, 3};
  for (int i = 0; i < 12; i++) cr_expect_eq(part[i], want[i], "object %d on %d", i, part[i]);
  cr_expect_float_eq(imbalance(&in, part), 9.0 / 7.0, 1e-12);
}

/* Objects without a current part are placed as LPT places them; here all, so refine is greedy. */
Test(objlb, refine_places_the_unplaced) {
  const double ws[] = {3, 3, 2, 2, 2};
  lbs_part_input in = input(5, ws, NULL, 2, NULL);
  lbs__objlb_opts o = lbs__objlb_defaults();
  int g[5];
  cr_assert_eq(lbs__objlb_greedy(&in, g), LBS_OK);
  cr_assert_eq(lbs__objlb_refine(&in, &o, part), LBS_OK);
  cr_expect_arr_eq(part, g, sizeof g);
}

/* 96 objects, all on p0 of 8: max/avg 8. Tempered's transfers bring it near 1; the same seed
 * gives the same answer, and every object has a part. */
Test(objlb, tempered_skewed) {
  double ws[96];
  int cs[96], first[96];
  for (int i = 0; i < 96; i++) ws[i] = 1 + (i * 7) % 5, cs[i] = 0;
  lbs_part_input in = input(96, ws, cs, 8, NULL);
  double before = imbalance(&in, cs);
  cr_expect_float_eq(before, 8.0, 1e-12);
  lbs__objlb_opts o = lbs__objlb_defaults();
  cr_assert_eq(lbs__objlb_tempered(&in, &o, part), LBS_OK);
  double after = imbalance(&in, part);
  cr_expect(after < 1.25, "max/avg %g after tempered (8 before)", after);
  for (int i = 0; i < 96; i++) cr_expect(part[i] >= 0 && part[i] < 8);
  memcpy(first, part, sizeof first);
  cr_assert_eq(lbs__objlb_tempered(&in, &o, part), LBS_OK);
  cr_expect_arr_eq(part, first, sizeof first, "the same seed, the same answer");
  o.criterion = LBS_OBJLB_GRAPEVINE, o.order = LBS_OBJLB_SMALLEST;
  cr_assert_eq(lbs__objlb_tempered(&in, &o, part), LBS_OK);
  cr_expect(imbalance(&in, part) < before, "grapevine, smallest first: %g", imbalance(&in, part));
}

/* Already balanced: the start is kept (no iteration beats it), nothing moves. */
Test(objlb, tempered_keeps_a_balanced_start) {
  const double ws[] = {1, 1, 1, 1, 1, 1, 1, 1};
  const int cs[] = {0, 1, 2, 3, 0, 1, 2, 3};
  lbs_part_input in = input(8, ws, cs, 4, NULL);
  lbs__objlb_opts o = lbs__objlb_defaults();
  cr_assert_eq(lbs__objlb_tempered(&in, &o, part), LBS_OK);
  cr_expect_eq(moved(&in, part), 0);
}

/* Part sizes 3/4 and 1/4, everything on the small one: tempered moves work to the large one,
 * judged relative to the sizes. */
Test(objlb, tempered_part_sizes) {
  double ws[40];
  int cs[40];
  for (int i = 0; i < 40; i++) ws[i] = 1, cs[i] = 1;
  const double sizes[] = {0.75, 0.25};
  lbs_part_input in = input(40, ws, cs, 2, sizes);
  lbs__objlb_opts o = lbs__objlb_defaults();
  cr_assert_eq(lbs__objlb_tempered(&in, &o, part), LBS_OK);
  cr_expect(imbalance(&in, part) < 1.1, "max/avg %g", imbalance(&in, part));
}

/* Pinned objects (lbs_part_input.fixed): the 3 is fixed on p1, so LPT counts it there and puts
 * the 2 and the 1 on p0 (3 against 5, then 3 against 4): 3 | 3. */
Test(objlb, lpt_fixed) {
  const double ws[] = {2, 3, 1};
  const int cs[] = {-1, 1, -1};
  const unsigned char fx[] = {0, 1, 0};
  lbs_part_input in = input(3, ws, cs, 2, NULL);
  in.fixed = fx;
  cr_assert_eq(lbs__objlb_greedy(&in, part), LBS_OK);
  cr_expect(part[0] == 0 && part[1] == 1 && part[2] == 0, "%d %d %d", part[0], part[1], part[2]);
  in.fixed = NULL; /* without the pin, the 3 goes first, to p0 */
  cr_assert_eq(lbs__objlb_greedy(&in, part), LBS_OK);
  cr_expect_eq(part[1], 0);
}

/* refine_moves_off_overloaded_only's case with p0's first 2 pinned: the other three 2s go, one to
 * each light processor, as before; the pinned one stays. */
Test(objlb, refine_fixed) {
  const double ws[] = {2, 2, 2, 2, 1, 1, 2, 2, 2};
  const int cs[] = {0, 0, 0, 0, 0, 0, 1, 2, 3};
  const unsigned char fx[] = {1, 0, 0, 0, 0, 0, 0, 0, 0};
  lbs_part_input in = input(9, ws, cs, 4, NULL);
  in.fixed = fx;
  lbs__objlb_opts o = lbs__objlb_defaults();
  cr_assert_eq(lbs__objlb_refine(&in, &o, part), LBS_OK);
  cr_expect_eq(part[0], 0, "the pinned object stays");
  cr_expect(part[1] == 1 && part[2] == 2 && part[3] == 3, "%d %d %d", part[1], part[2], part[3]);
  cr_expect_float_eq(imbalance(&in, part), 1.0, 1e-12);
}

/* tempered_skewed's case with every third object pinned on p0: those stay, the others spread,
 * and p0 keeps at least the pinned third of the load. */
Test(objlb, tempered_fixed) {
  double ws[96];
  int cs[96];
  unsigned char fx[96];
  for (int i = 0; i < 96; i++) ws[i] = 1 + (i * 7) % 5, cs[i] = 0, fx[i] = i % 3 == 0;
  lbs_part_input in = input(96, ws, cs, 8, NULL);
  in.fixed = fx;
  lbs__objlb_opts o = lbs__objlb_defaults();
  cr_assert_eq(lbs__objlb_tempered(&in, &o, part), LBS_OK);
  int moved_fixed = 0, moved_free = 0;
  for (int i = 0; i < 96; i++) moved_fixed += fx[i] && part[i] != 0, moved_free += part[i] != 0;
  cr_expect_eq(moved_fixed, 0);
  cr_expect(moved_free > 30, "%d objects moved off p0", moved_free);
  cr_expect(imbalance(&in, part) < 8, "max/avg %g", imbalance(&in, part));
}

/* A pinned object needs a place to stay on. */
Test(objlb, fixed_without_a_part) {
  const double ws[] = {1, 1};
  const unsigned char fx[] = {0, 1};
  lbs_part_input in = input(2, ws, NULL, 2, NULL);
  in.fixed = fx;
  lbs__objlb_opts o = lbs__objlb_defaults();
  cr_expect_eq(lbs__objlb_refine(&in, &o, part), LBS_INVAL);
  cr_expect(strstr(lbs_errmsg(), "element 1 is fixed"), "%s", lbs_errmsg());
}

/* A negative or non-finite weight is refused, naming the element. */
Test(objlb, bad_weight) {
  const double ws[] = {1, -1};
  lbs_part_input in = input(2, ws, NULL, 2, NULL);
  cr_expect_eq(lbs__objlb_greedy(&in, part), LBS_INVAL);
  cr_expect(strstr(lbs_errmsg(), "element 1 has weight -1"), "%s", lbs_errmsg());
}

/* The registry's face: the methods, and [objlb]'s keys checked where they are given. */
Test(objlb, methods_and_config) {
  lbs_partitioner *p = NULL;
  cr_expect_eq(lbs_part_create("objlb:nope", NULL, MPI_COMM_SELF, &p), LBS_NOTFOUND);
  cr_expect(strstr(lbs_errmsg(), "objlb:tempered"), "%s", lbs_errmsg());
  lbs_config *cfg = NULL;
  cr_assert_eq(lbs_config_parse_string("g.ini", "[objlb]\nordering = biggest\n", &cfg), LBS_OK);
  cr_expect_eq(lbs_part_create("objlb:tempered", cfg, MPI_COMM_SELF, &p), LBS_PARSE);
  cr_expect(strstr(lbs_errmsg(), "g.ini:2: [objlb] ordering: 'biggest' is not one of"), "%s",
            lbs_errmsg());
  lbs_config_destroy(&cfg);
  cr_assert_eq(lbs_config_parse_string("g.ini", "[objlb]\ntolerence = 1.1\n", &cfg), LBS_OK);
  cr_expect_neq(lbs_part_create("objlb:refine", cfg, MPI_COMM_SELF, &p), LBS_OK);
  cr_expect(strstr(lbs_errmsg(), "tolerance"), "the closest key: %s", lbs_errmsg());
  lbs_config_destroy(&cfg);
  cr_assert_eq(lbs_part_create("objlb:refine", NULL, MPI_COMM_SELF, &p), LBS_OK);
  cr_expect(lbs_part_uses_current(p) && !lbs_part_needs_graph(p) && lbs_part_takes_sizes(p));
  cr_expect(lbs_part_keeps_fixed(p) && !lbs_part_takes_weights(p));
  lbs_part_destroy(&p);
  cr_assert_eq(lbs_part_create("objlb", NULL, MPI_COMM_SELF, &p), LBS_OK); /* greedy */
  cr_expect(!lbs_part_uses_current(p) && !lbs_part_needs_coords(p));
  lbs_part_destroy(&p);
  cr_expect_null(p);
}

/* lbs_part_run holds a partitioner that says it keeps pinned objects (LBS_PART_FIXED) to it: a
 * mock that puts everything on part 0 is refused when a pinned object was elsewhere. */
static lbs_err all_zero(void *s, const lbs_part_input *in, int *np) {
  (void)s;
  for (int64_t i = 0; i < in->nlocal; i++) np[i] = 0;
  return LBS_OK;
}
static lbs_err mock_create(void **s, const char *a, const lbs_config *c, MPI_Comm m) {
  (void)a, (void)c, (void)m;
  *s = NULL;
  return LBS_OK;
}
static int no(const void *s) { return (void)s, 0; }
static const lbs_partitioner_ops liar = {.abi = LBS_PART_ABI,
                                         .name = "liar",
                                         .create = mock_create,
                                         .needs_graph = no,
                                         .needs_coords = no,
                                         .partition = all_zero,
                                         .flags = LBS_PART_FIXED};

Test(objlb, run_checks_pinned) {
  cr_assert_eq(lbs_part_register(&liar), LBS_OK);
  lbs_partitioner *p = NULL;
  cr_assert_eq(lbs_part_create("liar", NULL, MPI_COMM_SELF, &p), LBS_OK);
  const double ws[] = {1, 1};
  const int cs[] = {0, 1};
  const unsigned char fx[] = {0, 1};
  lbs_part_input in = input(2, ws, cs, 2, NULL);
  cr_expect_eq(lbs_part_run(p, &in, part), LBS_OK, "nothing pinned: %s", lbs_errmsg());
  in.fixed = fx;
  cr_expect_eq(lbs_part_run(p, &in, part), LBS_INVAL);
  cr_expect(strstr(lbs_errmsg(), "liar moved fixed element 1 from part 1 to 0"), "%s",
            lbs_errmsg());
  lbs_part_destroy(&p);
}
