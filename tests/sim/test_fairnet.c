/* The fair network model's shortcut for flows that share one resource equally (sim/network.c,
 * run_one) against the general solver (progressive filling over every flow at every event,
 * lbs__net_full_solver): random grids, random batches, the same arrivals to the ns.
 *
 * Each case draws a grid (1-3 clusters, shared or dedicated links and clusters, NICs or none),
 * then 1-4 batches of transfers on one network (later batches see what earlier ones left on
 * the resources, as steps do in des), with random sizes and ready times, and runs them twice:
 * once with the shortcut allowed, once with the general solver only. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lbs_sim.h"

enum { CASES = 600, MAXX = 96, MAXB = 4 };

static uint64_t rng = 0x9e3779b97f4a7c15u;
static uint64_t next_u64(void) { /* splitmix64: the same cases on every machine */
  uint64_t z = (rng += 0x9e3779b97f4a7c15u);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
  return z ^ (z >> 31);
}
static int pick(int n) { return (int)(next_u64() % (uint64_t)n); }

/* A random grid's text; *P its processors. One case in two is one shared cluster without NICs,
 * the shortcut's case; the others mix links, NICs and latencies. */
static void grid_text(char *buf, size_t len, int *P) {
  static const char *bw[] = {"0.5", "1", "4", "10", "2.5"};
  static const char *lat[] = {"0", "1", "2", "50", "0.3"};
  int simple = pick(2) == 0, C = simple ? 1 : 1 + pick(3), nic = !simple && pick(2);
  size_t o = 0;
  *P = 0;
  if (nic) o += (size_t)snprintf(buf + o, len - o, "[nodetype n]\nnic_gbps = %s\n", bw[pick(5)]);
  for (int c = 0; c < C; c++) {
    int nodes = 1 + pick(simple ? 12 : 5);
    *P += nodes;
    o += (size_t)snprintf(buf + o, len - o,
                          "[cluster c%d]\nnodes = %d\nlatency_us = %s\nbandwidth_gbps = %s\n"
                          "shared = %s\n%s",
                          c, nodes, lat[pick(5)], bw[pick(5)], simple || pick(3) ? "true" : "false",
                          nic && pick(2) ? "nodetype = n\n" : "");
  }
  for (int a = 0; a < C; a++)
    for (int b = a + 1; b < C; b++)
      o += (size_t)snprintf(buf + o, len - o,
                            "[link c%d c%d]\nlatency_us = %s\nbandwidth_gbps = %s\nshared = %s\n",
                            a, b, lat[pick(5)], bw[pick(5)], pick(3) ? "true" : "false");
}

static lbs_grid *grid(const char *text) {
  lbs_config *c;
  lbs_grid *g = NULL;
  cr_assert_eq(lbs_config_parse_string("fairnet.ini", text, &c), LBS_OK, "%s", lbs_errmsg());
  cr_assert_eq(lbs_grid_from_config(c, &g), LBS_OK, "%s\n%s", lbs_errmsg(), text);
  lbs_config_destroy(&c);
  return g;
}

/* Random batch b of n transfers among P processors, ready from t0 on. Sizes from 0 to 1 MB,
 * many alike (ties in bits left), ready times often equal (flows that start together), or, one
 * batch in four, spread over 4 ms (many events in each flow's life). */
static int batch(lbs_transfer *x, int P, int64_t t0) {
  int n = 1 + pick(MAXX), spread = pick(4) == 0; /* spread: every start an event of its own */
  for (int i = 0; i < n; i++) {
    int p = pick(P), q = P > 1 ? pick(P - 1) : 0;
    if (P > 1 && q >= p) q++;
    double bytes = pick(8) == 0 ? 0 : pick(2) ? 1000.0 * (1 + pick(4)) : (double)pick(1000000);
    int64_t ready = pick(3) ? 0 : (int64_t)pick(3) * 1000 + pick(7);
    if (spread) ready = pick(4000000);
    x[i] = (lbs_transfer){p, q, bytes, t0 + ready, 0};
  }
  return n;
}

static long common_events[2]; /* run_common()'s events in the cases run so far */

/* Runs the case's batches on one network, with (full = 0) or without the shortcut; the
 * arrivals go to out, one batch after the other. */
static long run_case(const lbs_grid *g, lbs_transfer (*xs)[MAXX], const int *nx, int nb, int full,
                     int64_t *out) {
  lbs_net *n;
  cr_assert_eq(lbs_net_create(g, &n), LBS_OK, "%s", lbs_errmsg());
  lbs__net_full_solver(full);
  int o = 0;
  for (int b = 0; b < nb; b++) {
    lbs_transfer x[MAXX];
    memcpy(x, xs[b], (size_t)nx[b] * sizeof *x);
    cr_assert_eq(lbs_net_run(n, x, nx[b]), LBS_OK, "%s", lbs_errmsg());
    for (int i = 0; i < nx[b]; i++) out[o++] = x[i].arrival;
  }
  lbs__net_full_solver(0);
  long one = lbs__net_one_batches(n), ev[2];
  lbs__net_common_events(n, &ev[0], &ev[1]);
  common_events[0] += ev[0], common_events[1] += ev[1];
  lbs_net_destroy(&n);
  return one;
}

Test(fairnet, shortcut_matches_the_general_solver) {
  long shortcut = 0, flows = 0;
  for (int c = 0; c < CASES; c++) {
    char text[4096];
    int P;
    grid_text(text, sizeof text, &P);
    char full_text[4200];
    snprintf(full_text, sizeof full_text, "[grid]\nsharing = fair\n%s", text);
    lbs_grid *g = grid(full_text);
    static lbs_transfer xs[MAXB][MAXX];
    int nx[MAXB], nb = 1 + pick(MAXB);
    int64_t t0 = 0;
    for (int b = 0; b < nb; b++) {
      nx[b] = batch(xs[b], P, t0);
      flows += nx[b];
      t0 += pick(2) ? 0 : (int64_t)pick(2000000); /* batches overlap, or start together */
    }
    int64_t fast[MAXB * MAXX], slow[MAXB * MAXX];
    shortcut += run_case(g, xs, nx, nb, 0, fast);
    cr_assert_eq(run_case(g, xs, nx, nb, 1, slow), 0, "the switch turns the shortcut off");
    for (int b = 0, o = 0; b < nb; b++)
      for (int i = 0; i < nx[b]; i++, o++)
        cr_assert_eq(fast[o], slow[o],
                     "case %d, batch %d, transfer %d (%d -> %d, %g bytes, "
                     "ready %lld): %lld against %lld\n%s",
                     c, b, i, xs[b][i].p, xs[b][i].q, xs[b][i].bytes, (long long)xs[b][i].ready,
                     (long long)fast[o], (long long)slow[o], text);
    lbs_grid_destroy(&g);
  }
  /* the shortcut must have been taken, or this compares the general solver with itself */
  cr_assert_gt(shortcut, CASES / 2, "%ld batches of %d cases took the shortcut", shortcut, CASES);
  cr_log_info("%d cases, %ld transfers, %ld batches through the shortcut", CASES, flows, shortcut);
}

/* A random grid with NICs: one case in two a single shared cluster with NICs on every node
 * (every flow crosses the cluster and NICs, run_common's case), the others several links:
 * 2-4 clusters with NICs on most nodes, of one or two speeds, shared and dedicated, latencies that
 * differ (flows of different weights meet at the NICs), so that the general solver runs with
 * several resources per flow and several rounds of progressive filling. */
static void grid_text_nics(char *buf, size_t len, int *P) {
  static const char *bw[] = {"0.5", "1", "4", "10", "2.5", "100"};
  static const char *lat[] = {"0", "1", "2", "50", "0.3"};
  if (pick(2)) { /* one shared cluster with NICs: every flow crosses it (run_common) */
    *P = 1 + pick(24);
    snprintf(buf, len,
             "[nodetype n]\nnic_gbps = %s\n[cluster c0]\nnodes = %d\nlatency_us = %s\n"
             "bandwidth_gbps = %s\nshared = true\nnodetype = n\n",
             bw[pick(6)], *P, lat[pick(5)], bw[pick(6)]);
    return;
  }
  int C = 2 + pick(3);
  size_t o =
      (size_t)snprintf(buf, len, "[nodetype n]\nnic_gbps = %s\n[nodetype m]\nnic_gbps = %s\n",
                       bw[pick(6)], bw[pick(6)]);
  *P = 0;
  for (int c = 0; c < C; c++) {
    int nodes = 1 + pick(8);
    *P += nodes;
    o += (size_t)snprintf(buf + o, len - o,
                          "[cluster c%d]\nnodes = %d\nlatency_us = %s\nbandwidth_gbps = %s\n"
                          "shared = %s\n%s",
                          c, nodes, lat[pick(5)], bw[pick(6)], pick(4) ? "true" : "false",
                          pick(4) ? (pick(2) ? "nodetype = n\n" : "nodetype = m\n") : "");
  }
  for (int a = 0; a < C; a++)
    for (int b = a + 1; b < C; b++)
      o += (size_t)snprintf(buf + o, len - o,
                            "[link c%d c%d]\nlatency_us = %s\nbandwidth_gbps = %s\nshared = %s\n",
                            a, b, lat[pick(5)], bw[pick(6)], pick(3) ? "true" : "false");
}

/* The paths for flows with NICs (run_common() and fill() with its per-resource cursors and
 * compacted rounds) against the reference (fill_ref(), the solver as it was, lbs__net_full_solver):
 * random flow sets on random grids with NICs and several links, 1-4 overlapping batches, every
 * arrival the same to the ns. */
Test(fairnet, general_path_matches_the_reference_with_nics) {
  enum { NCASES = 400 };
  long flows = 0, multi = 0;
  for (int c = 0; c < NCASES; c++) {
    char text[4096], full_text[4200];
    int P;
    grid_text_nics(text, sizeof text, &P);
    snprintf(full_text, sizeof full_text, "[grid]\nsharing = fair\n%s", text);
    lbs_grid *g = grid(full_text);
    static lbs_transfer xs[MAXB][MAXX];
    int nx[MAXB], nb = 1 + pick(MAXB);
    int64_t t0 = 0;
    for (int b = 0; b < nb; b++) {
      nx[b] = batch(xs[b], P, t0);
      flows += nx[b];
      t0 += pick(2) ? 0 : (int64_t)pick(2000000);
    }
    multi += nb > 1;
    int64_t fast[MAXB * MAXX], slow[MAXB * MAXX];
    run_case(g, xs, nx, nb, 0, fast);
    run_case(g, xs, nx, nb, 1, slow);
    for (int b = 0, o = 0; b < nb; b++)
      for (int i = 0; i < nx[b]; i++, o++)
        cr_assert_eq(fast[o], slow[o],
                     "case %d, batch %d, transfer %d (%d -> %d, %g bytes, "
                     "ready %lld): %lld against %lld\n%s",
                     c, b, i, xs[b][i].p, xs[b][i].q, xs[b][i].bytes, (long long)xs[b][i].ready,
                     (long long)fast[o], (long long)slow[o], text);
    lbs_grid_destroy(&g);
  }
  cr_assert_gt(multi, NCASES / 2, "later batches must meet earlier ones' usage profiles");
  /* both of run_common()'s ways must have been taken, or this compares fill() with itself */
  cr_assert_gt(common_events[0], 1000, "%ld events in one round", common_events[0]);
  cr_assert_gt(common_events[1], 1000, "%ld events through fill()", common_events[1]);
  cr_log_info("%d cases with NICs, %ld transfers; run_common: %ld events in one round, %ld "
              "through fill()",
              NCASES, flows, common_events[0], common_events[1]);
}

/* Batches on one shared cluster with NICs (run_common()'s case) whose usage later batches read
 * through the lazy records (sim/network.c, lazy_resolve): 2-14 batches that overlap, start
 * before earlier ones or long after, each on a few processors only, so that a NIC's record waits
 * several batches for the next one to cross it and more records are held than LIVE (lazy_flush,
 * the whole record merged); every arrival the same to the ns as the reference's. */
Test(fairnet, lazy_usage_records_match_the_reference) {
  enum { NCASES = 300, NB = 14 };
  static const char *bw[] = {"0.5", "1", "4", "10", "2.5", "100"};
  long lazy[4] = {0, 0, 0, 0};
  for (int c = 0; c < NCASES; c++) {
    char text[512];
    int P = 2 + pick(23);
    snprintf(text, sizeof text,
             "[grid]\nsharing = fair\n[nodetype n]\nnic_gbps = %s\n[cluster c0]\nnodes = %d\n"
             "latency_us = 2\nbandwidth_gbps = %s\nshared = true\nnodetype = n\n",
             bw[pick(6)], P, bw[pick(6)]);
    lbs_grid *g = grid(text);
    static lbs_transfer xs[NB][MAXX];
    int nx[NB], nb = 2 + pick(NB - 1);
    int64_t t0 = 0;
    for (int b = 0; b < nb; b++) {
      int few = 1 + pick(P < 4 ? P : 4), base = pick(P); /* processors base .. base + few - 1 */
      nx[b] = 1 + pick(24);
      for (int i = 0; i < nx[b]; i++) {
        int p = (base + pick(few)) % P, q = (p + 1 + pick(P - 1)) % P;
        double bytes = pick(8) == 0 ? 0 : pick(2) ? 1000.0 * (1 + pick(4)) : (double)pick(200000);
        xs[b][i] = (lbs_transfer){p, q, bytes, t0 + (pick(2) ? 0 : pick(300000)), 0};
      }
      int64_t step = pick(3) == 0 ? (int64_t)pick(2000000) : (int64_t)pick(20000);
      t0 = pick(4) == 0 && t0 > step ? t0 - step : t0 + step; /* now and then, earlier */
    }
    lbs_net *n[2];
    for (int full = 0; full < 2; full++) {
      cr_assert_eq(lbs_net_create(g, &n[full]), LBS_OK, "%s", lbs_errmsg());
      lbs__net_full_solver(full);
      for (int b = 0; b < nb; b++) {
        lbs_transfer x[MAXX];
        memcpy(x, xs[b], (size_t)nx[b] * sizeof *x);
        cr_assert_eq(lbs_net_run(n[full], x, nx[b]), LBS_OK, "%s", lbs_errmsg());
        for (int i = 0; i < nx[b]; i++) xs[b][i].arrival = full ? xs[b][i].arrival : x[i].arrival;
        for (int i = 0; full && i < nx[b]; i++)
          cr_assert_eq(x[i].arrival, xs[b][i].arrival,
                       "case %d, batch %d of %d, transfer %d (%d -> %d, %g bytes, ready %lld): "
                       "%lld against the reference's %lld\n%s",
                       c, b, nb, i, x[i].p, x[i].q, x[i].bytes, (long long)x[i].ready,
                       (long long)xs[b][i].arrival, (long long)x[i].arrival, text);
      }
      lbs__net_full_solver(0);
    }
    long r, f, d, dr;
    lbs__net_lazy_counts(n[0], &r, &f, &d, &dr);
    lazy[0] += r, lazy[1] += f, lazy[2] += d, lazy[3] += dr;
    lbs_net_destroy(&n[0]);
    lbs_net_destroy(&n[1]);
    lbs_grid_destroy(&g);
  }
  /* both ways must have been taken, or this compares less than it says */
  cr_assert_gt(lazy[0], 1000, "%ld records merged by a later batch", lazy[0]);
  cr_assert_gt(lazy[1], 60, "%ld records flushed whole", lazy[1]);
  cr_assert_gt(lazy[2], 1000, "%ld records deferred", lazy[2]);
  cr_assert_gt(lazy[3], 300, "%ld deferred records dropped unwritten", lazy[3]);
  cr_assert_gt(lazy[2] - lazy[3], 300, "%ld deferred records written", lazy[2] - lazy[3]);
  cr_log_info("%d cases: %ld records merged by later batches, %ld flushed, %ld deferred, %ld of "
              "them dropped",
              NCASES, lazy[0], lazy[1], lazy[2], lazy[3]);
}
