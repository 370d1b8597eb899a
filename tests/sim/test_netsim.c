/* test_netsim.c - lbs_netsim, the fair simulation that goes on across batches (des_overlap =
 * shared), against lbs_net_run on random three-cluster grids (NICs, shared and dedicated links,
 * zero-byte transfers, equal ready times): the same transfers given at once, given as each
 * becomes ready, and given in answer to earlier arrivals (the engine's use), must arrive when one
 * batch of them with those ready times arrives, to the ns. */
#include "lbs_sim.h"
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAXX = 160 };
static uint64_t rng = 0x5eed1234u;
static uint64_t next_u64(void) {
  uint64_t z = (rng += 0x9e3779b97f4a7c15u);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
  return z ^ (z >> 31);
}
static int pick(int n) { return (int)(next_u64() % (uint64_t)n); }

/* A random grid of three clusters (shared or not, NICs on two node types) and its size in *P;
 * one in three cases every cluster and link is shared without NICs (run_one's kind). */
static int n0; /* random_grid(): processors 0 .. n0 - 1 are cluster c0 */
static lbs_grid *random_grid(int *P) {
  static const char *bw[] = {"0.5", "1", "4", "10", "2.5", "100"};
  static const char *lat[] = {"0", "1", "2", "50", "0.3"};
  int n1 = 2 + pick(6), n2 = 2 + pick(4), plain = pick(3) == 0;
  n0 = 2 + pick(6);
  char text[2048];
  snprintf(
      text, sizeof text,
      "[grid]\nsharing = fair\n[nodetype n]\nnic_gbps = %s\n[nodetype m]\nnic_gbps = %s\n"
      "[cluster c0]\nnodes = %d\nlatency_us = %s\nbandwidth_gbps = %s\nshared = %s\nnodetype = %s\n"
      "[cluster c1]\nnodes = %d\nlatency_us = %s\nbandwidth_gbps = %s\nshared = %s\nnodetype = %s\n"
      "[cluster c2]\nnodes = %d\nlatency_us = %s\nbandwidth_gbps = %s\nshared = true\n"
      "[link c0 c1]\nlatency_us = %s\nbandwidth_gbps = %s\nshared = %s\n"
      "[link c0 c2]\nlatency_us = %s\nbandwidth_gbps = %s\nshared = %s\n"
      "[link c1 c2]\nlatency_us = %s\nbandwidth_gbps = %s\nshared = %s\n",
      bw[pick(6)], bw[pick(6)], n0, lat[pick(5)], bw[pick(6)], plain || pick(3) ? "true" : "false",
      plain ? "default" : "n", n1, lat[pick(5)], bw[pick(6)], plain || pick(3) ? "true" : "false",
      plain ? "default" : "m", n2, lat[pick(5)], bw[pick(6)], lat[pick(5)], bw[pick(6)],
      plain || pick(3) ? "true" : "false", lat[pick(5)], bw[pick(6)],
      plain || pick(3) ? "true" : "false", lat[pick(5)], bw[pick(6)],
      plain || pick(3) ? "true" : "false");
  lbs_config *c;
  lbs_grid *g = NULL;
  cr_assert_eq(lbs_config_parse_string("netsim.ini", text, &c), LBS_OK, "%s", lbs_errmsg());
  cr_assert_eq(lbs_grid_from_config(c, &g), LBS_OK, "%s\n%s", lbs_errmsg(), text);
  lbs_config_destroy(&c);
  *P = n0 + n1 + n2;
  return g;
}

/* n random transfers, ready times in (ready, index) order; one in four cases within one cluster
 * (c0: they share its network, and its NICs where it has them), one in eight of those with one
 * transfer from elsewhere among them. */
static int random_transfers(lbs_transfer *x, int P) {
  int n = 1 + pick(MAXX), one = pick(4) == 0, odd = one && pick(8) == 0 ? pick(n) : -1;
  int64_t t = 0;
  for (int i = 0; i < n; i++) {
    int in = one && i != odd, p = in ? pick(n0) : pick(P), q = in ? pick(n0) : pick(P);
    if (q == p) q = in ? (p + 1) % n0 : (p + 1) % P;
    double bytes = pick(6) == 0 ? 0 : pick(2) ? 1000.0 * (1 + pick(4)) : (double)pick(200000);
    if (pick(3)) t += pick(2) ? pick(3) * 1000 : pick(300000);
    x[i] = (lbs_transfer){p, q, bytes, t, 0};
  }
  return n;
}

/* Runs s to the end (or to limit), arrivals by tag into arr; returns how many arrived. */
static int run_to(lbs_netsim *s, int64_t limit, int64_t *arr) {
  static int64_t *tags;
  static int cap;
  int got = 0, nout;
  int64_t t;
  do {
    cr_assert_eq(lbs_netsim_next(s, limit, &t, &tags, &nout, &cap), LBS_OK, "%s", lbs_errmsg());
    for (int i = 0; i < nout; i++) {
      cr_assert_eq(arr[tags[i]], -1, "transfer %lld arrived twice", (long long)tags[i]);
      arr[tags[i]] = t;
    }
    got += nout;
  } while (nout);
  return got;
}

static void batch_arrivals(const lbs_grid *g, const lbs_transfer *xs, int n, int64_t *out) {
  lbs_net *net;
  lbs_transfer x[MAXX];
  memcpy(x, xs, (size_t)n * sizeof *x);
  cr_assert_eq(lbs_net_create(g, &net), LBS_OK);
  cr_assert_eq(lbs_net_run(net, x, n), LBS_OK, "%s", lbs_errmsg());
  for (int i = 0; i < n; i++) out[i] = x[i].arrival;
  lbs_net_destroy(&net);
}

Test(netsim, given_at_once_or_as_they_become_ready_as_one_batch) {
  long diffs = 0, flows = 0;
  for (int cs = 0; cs < 300; cs++) {
    int P;
    lbs_grid *g = random_grid(&P);
    lbs_transfer xs[MAXX];
    int n = random_transfers(xs, P);
    int64_t ref[MAXX], a[MAXX], b[MAXX];
    batch_arrivals(g, xs, n, ref);
    lbs_net *net;
    cr_assert_eq(lbs_net_create(g, &net), LBS_OK);
    for (int way = 0; way < 2; way++) {
      int64_t *arr = way ? b : a;
      for (int i = 0; i < n; i++) arr[i] = -1;
      lbs_netsim *s;
      cr_assert_eq(lbs_netsim_create(net, 0, &s), LBS_OK, "%s", lbs_errmsg());
      int got = 0;
      for (int i = 0; i < n;) {
        int64_t r = xs[i].ready;
        if (way) got += run_to(s, r - 1, arr); /* up to just before it is ready */
        for (; i < n && (!way || xs[i].ready == r); i++)
          cr_assert_eq(lbs_netsim_add(s, &xs[i], i), LBS_OK, "%s", lbs_errmsg());
      }
      got += run_to(s, INT64_MAX, arr);
      cr_assert_eq(got, n);
      cr_assert(lbs_netsim_idle(s));
      lbs_netsim_destroy(&s);
      for (int i = 0; i < n; i++) {
        flows++;
        if (arr[i] != ref[i] && diffs++ < 10)
          cr_log_error("case %d way %d transfer %d (%d->%d %g B ready %lld): %lld, batch %lld", cs,
                       way, i, xs[i].p, xs[i].q, xs[i].bytes, (long long)xs[i].ready,
                       (long long)arr[i], (long long)ref[i]);
      }
    }
    lbs_net_destroy(&net);
    lbs_grid_destroy(&g);
  }
  cr_assert_eq(diffs, 0, "%ld of %ld arrivals differ", diffs, flows);
}

/* Transfer i > 0 depends on an earlier one with probability 2/3: it is ready d ns after that one
 * arrives, and joins only then (as the engine adds a step's transfers at a processor's gate). */
typedef struct {
  int n, dep[MAXX], seq, got;
  int64_t d[MAXX], arr[MAXX], tag_of[MAXX];
  lbs_transfer xs[MAXX], order[MAXX]; /* order: as they joined (tags are their index there) */
} chain;

/* Runs s to its end, adding each transfer as its dependency arrives; a copy of s and of c into
 * *half and *hc once half the transfers arrived (half NULL: none). */
static void drive(lbs_netsim *s, chain *c, lbs_netsim **half, chain *hc) {
  int64_t *tags = NULL, t;
  int cap = 0, nout;
  do {
    cr_assert_eq(lbs_netsim_next(s, INT64_MAX, &t, &tags, &nout, &cap), LBS_OK, "%s", lbs_errmsg());
    for (int k = 0; k < nout; k++) {
      int i = (int)c->tag_of[tags[k]];
      cr_assert_eq(c->arr[i], -1);
      c->arr[i] = t, c->got++;
      for (int j = i + 1; j < c->n; j++)
        if (c->dep[j] == i) {
          lbs_transfer x = c->xs[j];
          x.ready = t + c->d[j];
          c->order[c->seq] = x, c->tag_of[c->seq] = j;
          cr_assert_eq(lbs_netsim_add(s, &x, c->seq++), LBS_OK, "%s", lbs_errmsg());
        }
    }
    if (half && !*half && c->got >= c->n / 2) {
      cr_assert_eq(lbs_netsim_copy(s, half), LBS_OK);
      *hc = *c;
    }
  } while (nout);
  free(tags);
  cr_assert_eq(c->got, c->n, "%d of %d arrived", c->got, c->n);
}

/* One batch with the ready times this gave, in the order they joined, must give the same
 * arrivals; so must a copy taken halfway and run on alone (adding the same transfers). */
Test(netsim, transfers_added_at_arrivals_as_one_batch_with_those_ready_times) {
  long diffs = 0, deps = 0;
  static chain c, hc;
  for (int cs = 0; cs < 300; cs++) {
    int P;
    lbs_grid *g = random_grid(&P);
    memset(&c, 0, sizeof c);
    c.n = random_transfers(c.xs, P);
    for (int i = 0; i < c.n; i++) {
      c.dep[i] = i > 0 && pick(3) ? pick(i) : -1;
      c.d[i] = pick(3) ? 0 : pick(50000);
      c.arr[i] = -1;
      deps += c.dep[i] >= 0;
    }
    lbs_net *net;
    cr_assert_eq(lbs_net_create(g, &net), LBS_OK);
    lbs_netsim *s, *half = NULL;
    cr_assert_eq(lbs_netsim_create(net, 0, &s), LBS_OK);
    for (int i = 0; i < c.n; i++)
      if (c.dep[i] < 0) {
        c.order[c.seq] = c.xs[i], c.tag_of[c.seq] = i;
        cr_assert_eq(lbs_netsim_add(s, &c.xs[i], c.seq++), LBS_OK, "%s", lbs_errmsg());
      }
    drive(s, &c, &half, &hc);
    lbs_netsim_destroy(&s);
    int64_t ref[MAXX];
    batch_arrivals(g, c.order, c.n, ref);
    for (int k = 0; k < c.n; k++)
      if (ref[k] != c.arr[c.tag_of[k]] && diffs++ < 10)
        cr_log_error("case %d transfer %lld: %lld, batch %lld", cs, (long long)c.tag_of[k],
                     (long long)c.arr[c.tag_of[k]], (long long)ref[k]);
    cr_assert_not_null(half);
    drive(half, &hc, NULL, NULL);
    for (int i = 0; i < c.n; i++)
      if (hc.arr[i] != c.arr[i] && diffs++ < 10)
        cr_log_error("case %d, the copy: transfer %d: %lld, the original %lld", cs, i,
                     (long long)hc.arr[i], (long long)c.arr[i]);
    lbs_netsim_destroy(&half);
    lbs_net_destroy(&net);
    lbs_grid_destroy(&g);
  }
  cr_assert_eq(diffs, 0, "%ld arrivals differ", diffs);
  cr_assert_gt(deps, 1000, "only %ld dependent transfers", deps);
}

/* Thousands of flows in flight at once on one shared cluster (with and without NICs): the
 * sorted state in binades (its places moved down many times, flows joining at every event)
 * against the general solver flow by flow (lbs__net_full_solver), given as they become ready. */
Test(netsim, many_flows_in_flight_as_the_general_solver) {
  enum { N = 3000, PROCS = 48 };
  static lbs_transfer xs[N];
  static int64_t ref[N], arr[N];
  for (int nic = 0; nic < 2; nic++) {
    char text[512];
    snprintf(text, sizeof text,
             "[grid]\nsharing = fair\n[nodetype n]\nnic_gbps = 4\n[cluster c]\nnodes = %d\n"
             "latency_us = 2\nbandwidth_gbps = 10\nshared = true\nnodetype = %s\n",
             PROCS, nic ? "n" : "default");
    lbs_config *c;
    lbs_grid *g = NULL;
    cr_assert_eq(lbs_config_parse_string("many.ini", text, &c), LBS_OK, "%s", lbs_errmsg());
    cr_assert_eq(lbs_grid_from_config(c, &g), LBS_OK, "%s", lbs_errmsg());
    lbs_config_destroy(&c);
    int64_t t = 0;
    for (int i = 0; i < N; i++) { /* sizes over many binades, some equal; waves of bursts */
      int p = pick(PROCS), q = (p + 1 + pick(PROCS - 1)) % PROCS;
      double bytes = pick(4) ? 4096.0 * (1 + pick(3)) : (double)(1 + pick(1 << (1 + pick(22))));
      if (i % 250 == 0)
        t += 4000000; /* most of the wave before ends first: the places wrap many times */
      else if (pick(4) == 0)
        t += pick(20000);
      xs[i] = (lbs_transfer){p, q, bytes, t, 0};
    }
    lbs_net *net;
    cr_assert_eq(lbs_net_create(g, &net), LBS_OK);
    lbs__net_full_solver(1);
    cr_assert_eq(lbs_net_run(net, xs, N), LBS_OK, "%s", lbs_errmsg());
    lbs__net_full_solver(0);
    for (int i = 0; i < N; i++) ref[i] = xs[i].arrival, arr[i] = -1;
    lbs_netsim *s;
    cr_assert_eq(lbs_netsim_create(net, 0, &s), LBS_OK, "%s", lbs_errmsg());
    int got = 0;
    for (int i = 0; i < N;) {
      int64_t r = xs[i].ready;
      got += run_to(s, r - 1, arr);
      for (; i < N && xs[i].ready == r; i++)
        cr_assert_eq(lbs_netsim_add(s, &xs[i], i), LBS_OK, "%s", lbs_errmsg());
    }
    got += run_to(s, INT64_MAX, arr);
    cr_assert_eq(got, N);
    long diffs = 0;
    for (int i = 0; i < N; i++)
      if (arr[i] != ref[i] && diffs++ < 10)
        cr_log_error("nic %d transfer %d (%g B ready %lld): %lld, general solver %lld", nic, i,
                     xs[i].bytes, (long long)xs[i].ready, (long long)arr[i], (long long)ref[i]);
    cr_assert_eq(diffs, 0, "nic %d: %ld of %d arrivals differ", nic, diffs, N);
    lbs_netsim_destroy(&s);
    lbs_net_destroy(&net);
    lbs_grid_destroy(&g);
  }
}

Test(netsim, refuses_what_it_cannot_simulate) {
  lbs_config *c;
  lbs_grid *g;
  cr_assert_eq(lbs_config_parse_string(
                   "x.ini", "[grid]\nsharing = fifo\n[cluster a]\nnodes = 2\nshared = true\n", &c),
               LBS_OK);
  cr_assert_eq(lbs_grid_from_config(c, &g), LBS_OK, "%s", lbs_errmsg());
  lbs_config_destroy(&c);
  lbs_net *net;
  lbs_netsim *s = NULL;
  cr_assert_eq(lbs_net_create(g, &net), LBS_OK);
  cr_assert_eq(lbs_netsim_create(net, 0, &s), LBS_INVAL, "fifo has no flows to share");
  cr_assert_null(s);
  lbs_net_destroy(&net);
  lbs_grid_destroy(&g);
  cr_assert_eq(
      lbs_config_parse_string("x.ini", "[grid]\n[cluster a]\nnodes = 2\nshared = true\n", &c),
      LBS_OK);
  cr_assert_eq(lbs_grid_from_config(c, &g), LBS_OK, "%s", lbs_errmsg());
  lbs_config_destroy(&c);
  cr_assert_eq(lbs_net_create(g, &net), LBS_OK);
  cr_assert_eq(lbs_netsim_create(net, 1000, &s), LBS_OK, "%s", lbs_errmsg());
  lbs_transfer early = {0, 1, 100, 999, 0}, bad = {0, 7, 100, 2000, 0}, ok = {0, 1, 8000, 1000, 0};
  cr_assert_eq(lbs_netsim_add(s, &early, 0), LBS_INVAL, "ready before the simulation's time");
  cr_assert_eq(lbs_netsim_add(s, &bad, 0), LBS_INVAL, "no processor 7");
  cr_assert_eq(lbs_netsim_add(s, &ok, 5), LBS_OK, "%s", lbs_errmsg());
  int64_t *tags = NULL, t;
  int cap = 0, nout;
  cr_assert_eq(lbs_netsim_next(s, 1000, &t, &tags, &nout, &cap), LBS_OK);
  cr_assert_eq(nout, 0, "nothing arrives by 1000 ns");
  cr_assert_eq(lbs_netsim_next(s, INT64_MAX, &t, &tags, &nout, &cap), LBS_OK);
  cr_assert_eq(nout, 1);
  cr_assert_eq(tags[0], 5);
  lbs_net *ref;
  lbs_transfer x = ok;
  cr_assert_eq(lbs_net_create(g, &ref), LBS_OK);
  cr_assert_eq(lbs_net_run(ref, &x, 1), LBS_OK);
  cr_assert_eq(t, x.arrival, "alone it arrives as in a batch: %lld, %lld", (long long)t,
               (long long)x.arrival);
  cr_assert_eq(lbs_netsim_add(s, &ok, 6), LBS_INVAL, "ready before the last arrival");
  free(tags);
  lbs_net_destroy(&ref);
  lbs_netsim_destroy(&s);
  lbs_netsim_destroy(&s); /* NULL-safe */
  lbs_net_destroy(&net);
  lbs_grid_destroy(&g);
}
