/* The network model (sim/network.c) against answers worked by hand, and the bsp barrier's
 * cost in a replay.
 *
 * Units: 1 MB = 10^6 bytes = 8,000,000 bits; 1 Gbit/s = 1 bit/ns, so 1 MB alone on a
 * 1 Gbit/s link takes 8,000,000 ns after its latency. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "lbs_part.h"
#include "lbs_sim.h"
#include "testutil.h"

#define MB 1000000.0

static lbs_grid *grid(const char *text) {
  lbs_config *c;
  lbs_grid *g = NULL;
  cr_assert_eq(lbs_config_parse_string("net.ini", text, &c), LBS_OK, "%s", lbs_errmsg());
  cr_assert_eq(lbs_grid_from_config(c, &g), LBS_OK, "%s", lbs_errmsg());
  lbs_config_destroy(&c);
  return g;
}

/* Runs one batch on a fresh network of grid text (with "[grid]\nsharing = S\n" prepended). */
static void run(const char *sharing, const char *text, lbs_transfer *xs, int nx) {
  char buf[2048];
  snprintf(buf, sizeof buf, "[grid]\nsharing = %s\n%s", sharing, text);
  lbs_grid *g = grid(buf);
  lbs_net *n;
  cr_assert_eq(lbs_net_create(g, &n), LBS_OK, "%s", lbs_errmsg());
  cr_assert_eq(lbs_net_run(n, xs, nx), LBS_OK, "%s", lbs_errmsg());
  lbs_net_destroy(&n);
  lbs_grid_destroy(&g);
}

/* Two clusters of one processor, joined by one link of 10 us and 1 Gbit/s. */
static const char *TWO = "[cluster A]\nnodes = 1\n[cluster B]\nnodes = 1\n"
                         "[link A B]\nlatency_us = 10\nbandwidth_gbps = 1\nshared = %s\n";

static void two(const char *sharing, const char *shared, lbs_transfer *xs, int nx) {
  char text[512];
  snprintf(text, sizeof text, TWO, shared);
  run(sharing, text, xs, nx);
}

Test(network, a_lone_transfer_takes_latency_plus_size_over_bandwidth) {
  const char *modes[] = {"fair", "fifo"};
  for (int m = 0; m < 2; m++) {
    lbs_transfer x = {0, 1, MB, 5, 0};
    two(modes[m], "true", &x, 1);
    cr_assert_eq(x.arrival, 5 + 10000 + 8000000, "%s: %lld", modes[m], (long long)x.arrival);
    x = (lbs_transfer){1, 0, 1000.5, 0, 0}; /* 8004 bits: 8004 ns */
    two(modes[m], "false", &x, 1);
    cr_assert_eq(x.arrival, 10000 + 8004);
    x = (lbs_transfer){1, 0, 0, 7, 0}; /* nothing to send still pays the latency */
    two(modes[m], "true", &x, 1);
    cr_assert_eq(x.arrival, 7 + 10000);
  }
}

/* Two 1 MB transfers, one each way, ready together on the shared link. fair: each gets
 * 0.5 bit/ns from 10 us on, both end at 10 us + 16 ms. fifo: one after the other, 8 and 16
 * ms (+ 10 us). A dedicated link: 8 ms each, whatever the sharing. */
Test(network, two_transfers_on_a_shared_link) {
  lbs_transfer x[2] = {{0, 1, MB, 0, 0}, {1, 0, MB, 0, 0}};
  two("fair", "true", x, 2);
  cr_assert_eq(x[0].arrival, 10000 + 16000000, "%lld", (long long)x[0].arrival);
  cr_assert_eq(x[1].arrival, 10000 + 16000000, "%lld", (long long)x[1].arrival);
  two("fifo", "true", x, 2);
  cr_assert_eq(x[0].arrival, 8000000 + 10000);
  cr_assert_eq(x[1].arrival, 16000000 + 10000);
  const char *modes[] = {"fair", "fifo"};
  for (int m = 0; m < 2; m++) {
    two(modes[m], "false", x, 2);
    cr_assert_eq(x[0].arrival, 10000 + 8000000, "%s, dedicated", modes[m]);
    cr_assert_eq(x[1].arrival, 10000 + 8000000, "%s, dedicated", modes[m]);
  }
}

/* A starts at 0, B 4 ms later (both 1 MB, both pay 10 us first). fair: A alone does
 * 4,000,000 bits by 4 ms; from then both at 0.5: A's other 4,000,000 bits take 8 ms (ends
 * at 12 ms), B has done 4,000,000 of its 8,000,000 by then, and does the rest alone in
 * 4 ms (16 ms). fifo: A 8 ms, B waits for A, 16 ms. The last bit leaves at the same time:
 * both keep the link busy. */
Test(network, a_transfer_that_starts_midway_through_another) {
  lbs_transfer x[2] = {{0, 1, MB, 0, 0}, {1, 0, MB, 4000000, 0}};
  two("fair", "true", x, 2);
  cr_assert_eq(x[0].arrival, 10000 + 12000000, "%lld", (long long)x[0].arrival);
  cr_assert_eq(x[1].arrival, 10000 + 16000000, "%lld", (long long)x[1].arrival);
  two("fifo", "true", x, 2);
  cr_assert_eq(x[0].arrival, 10000 + 8000000);
  cr_assert_eq(x[1].arrival, 10000 + 16000000);
  /* latency first: ready 8 ms after A is ready, B goes alone once A is done, in either */
  x[1].ready = 8000000;
  two("fair", "true", x, 2);
  cr_assert_eq(x[0].arrival, 10000 + 8000000);
  cr_assert_eq(x[1].arrival, 8000000 + 10000 + 8000000);
}

/* Three 1 MB transfers from p0, whose NIC does 1 Gbit/s, over dedicated 10 Gbit/s links
 * (1 us); p3 (another cluster) receives through a 0.2 Gbit/s NIC. Max-min: p3's NIC holds
 * the transfer to p3 at 0.2; the other two share what is left of p0's NIC, 0.4 each, and end
 * at 8,000,000 / 0.4 = 20 ms; the one to p3 stays at 0.2 (its NIC) and ends at
 * 8,000,000 / 0.2 = 40 ms. fifo: p0's NIC serves them in turn, 8 ms, 16 ms, then 40 ms at
 * 0.2 from 16 ms: 56 ms. Without NICs each takes 0.8 ms. */
static const char *NICS = "[nodetype one]\nnic_gbps = 1\n[nodetype slow]\nnic_gbps = 0.2\n"
                          "[cluster A]\nnodes = 3\nnodetype = one\nbandwidth_gbps = 10\n"
                          "[cluster B]\nnodes = 1\nnodetype = slow\n"
                          "[link A B]\nlatency_us = 1\nbandwidth_gbps = 10\nshared = false\n";

Test(network, three_transfers_through_nics) {
  lbs_transfer x[3] = {{0, 1, MB, 0, 0}, {0, 2, MB, 0, 0}, {0, 3, MB, 0, 0}};
  run("fair", NICS, x, 3);
  cr_assert_eq(x[0].arrival, 1000 + 20000000, "%lld", (long long)x[0].arrival);
  cr_assert_eq(x[1].arrival, 1000 + 20000000, "%lld", (long long)x[1].arrival);
  cr_assert_eq(x[2].arrival, 1000 + 40000000, "%lld", (long long)x[2].arrival);
  run("fifo", NICS, x, 3);
  cr_assert_eq(x[0].arrival, 8000000 + 1000);
  cr_assert_eq(x[1].arrival, 16000000 + 1000);
  cr_assert_eq(x[2].arrival, 56000000 + 1000);
  /* incoming: two senders into p0's NIC share it, 0.5 each: 16 ms; three (p2 twice), a third
   * each: 24 ms (p2's outgoing NIC carries two of them at 1/3: not its limit) */
  lbs_transfer y[2] = {{1, 0, MB, 0, 0}, {2, 0, MB, 0, 0}};
  run("fair", NICS, y, 2);
  cr_assert_eq(y[0].arrival, 1000 + 16000000);
  cr_assert_eq(y[1].arrival, 1000 + 16000000);
  lbs_transfer z[3] = {{1, 0, MB, 0, 0}, {2, 0, MB, 0, 0}, {2, 0, MB, 0, 0}};
  run("fair", NICS, z, 3);
  for (int i = 0; i < 3; i++)
    cr_assert_eq(z[i].arrival, 1000 + 24000000, "%d: %lld", i, (long long)z[i].arrival);
  /* no NIC: the dedicated links alone */
  lbs_transfer w = {0, 1, MB, 0, 0};
  run("fair", "[cluster A]\nnodes = 2\nbandwidth_gbps = 10\n", &w, 1);
  cr_assert_eq(w.arrival, 1000 + 800000);
}

/* Flows of different latencies at one NIC share it as SimGrid's CM02 does (and TCP): in
 * inverse proportion to their latency. p0 (NIC 1 Gbit/s) sends 1 MB to p1 (same cluster,
 * 1 us) and 1 MB to p2 (other cluster, 3 us). From 1 us to 3 us the first goes alone at
 * 1 bit/ns (2000 bits); then 0.75 and 0.25 bit/ns: the first's 7,998,000 bits take
 * 10,664,000 ns (ends at 10,667,000), by when the second has done 2,666,000; its
 * 5,334,000 others go alone at 1 bit/ns: 16,001,000. */
Test(network, latency_weights_the_shares_at_a_nic) {
  lbs_transfer x[2] = {{0, 1, MB, 0, 0}, {0, 2, MB, 0, 0}};
  run("fair",
      "[nodetype n]\nnic_gbps = 1\n[cluster A]\nnodes = 2\nnodetype = n\nbandwidth_gbps = 10\n"
      "[cluster B]\nnodes = 1\nnodetype = n\n[link A B]\nlatency_us = 3\nbandwidth_gbps = 10\nshared = false\n",
      x, 2);
  cr_assert_eq(x[0].arrival, 10667000, "%lld", (long long)x[0].arrival);
  cr_assert_eq(x[1].arrival, 16001000, "%lld", (long long)x[1].arrival);
}

/* A later batch gets what earlier ones leave. p0's NIC (0.75 Gbit/s) holds its 750,000 bytes
 * (6,000,000 bits) to p1 at 0.75 of the 1 Gbit/s shared link: 8 ms. A second batch, p1 to p0
 * (p0's incoming NIC, also 0.75), gets the 0.25 left until 8 ms (2,000,000 bits), then 0.75:
 * its other 6,000,000 bits take 8 ms, 16 ms in all. After lbs_net_reset it goes alone at
 * 0.75: 10,666,667 ns. In one batch both share the link, 0.5 each: the first ends at 12 ms,
 * the second's last 2,000,000 bits go at 0.75 (its NIC): 14,666,667 ns. */
Test(network, a_later_batch_gets_what_earlier_ones_leave) {
  lbs_grid *g = grid(
      "[nodetype n]\nnic_gbps = 0.75\n[cluster A]\nnodes = 1\nnodetype = n\n"
      "[cluster B]\nnodes = 1\n[link A B]\nlatency_us = 0\nbandwidth_gbps = 1\nshared = true\n");
  lbs_net *n;
  cr_assert_eq(lbs_net_create(g, &n), LBS_OK);
  lbs_transfer a = {0, 1, 750000, 0, 0}, b = {1, 0, MB, 0, 0}, both[2] = {a, b};
  cr_assert_eq(lbs_net_run(n, &a, 1), LBS_OK);
  cr_assert_eq(a.arrival, 8000000);
  cr_assert_eq(lbs_net_run(n, &b, 1), LBS_OK);
  cr_assert_eq(b.arrival, 16000000, "%lld", (long long)b.arrival);
  lbs_net_reset(n);
  cr_assert_eq(lbs_net_run(n, &b, 1), LBS_OK);
  cr_assert_eq(b.arrival, 10666667, "%lld", (long long)b.arrival);
  lbs_net_reset(n);
  cr_assert_eq(lbs_net_run(n, both, 2), LBS_OK);
  cr_assert_eq(both[0].arrival, 12000000, "%lld", (long long)both[0].arrival);
  cr_assert_eq(both[1].arrival, 14666667, "%lld", (long long)both[1].arrival);
  /* a batch after the earlier one has ended sees an idle link */
  lbs_transfer c = {1, 0, MB, 20000000, 0};
  cr_assert_eq(lbs_net_run(n, &c, 1), LBS_OK);
  cr_assert_eq(c.arrival, 20000000 + 10666667);
  lbs_net_destroy(&n);
  lbs_grid_destroy(&g);
}

/* Many flows on one shared cluster network: whatever the order, the link is never idle while
 * bits wait, so the last arrival is the latency + all the bits at the link's rate, and every
 * arrival is no earlier than the transfer alone. */
Test(network, a_busy_shared_network_is_never_idle) {
  enum { N = 40 };
  lbs_transfer x[N];
  double bits = 0;
  for (int i = 0; i < N; i++) {
    x[i] = (lbs_transfer){i % 8, (i * 3 + 1) % 8, 1000.0 * (1 + i % 5), (int64_t)(i % 4) * 1000, 0};
    if (x[i].p == x[i].q) x[i].q = (x[i].q + 1) % 8;
    bits += 8 * x[i].bytes;
  }
  const char *modes[] = {"fair", "fifo"};
  for (int m = 0; m < 2; m++) {
    run(modes[m], "[cluster A]\nnodes = 8\nlatency_us = 2\nbandwidth_gbps = 4\nshared = true\n", x,
        N);
    int64_t last = 0;
    for (int i = 0; i < N; i++) {
      cr_assert_geq(x[i].arrival, x[i].ready + 2000 + (int64_t)(8 * x[i].bytes / 4), "%s %d",
                    modes[m], i);
      if (x[i].arrival > last) last = x[i].arrival;
    }
    /* fair: each event rounds up to a whole ns (at most 1 ns each of 2N events) */
    cr_assert(last >= 2000 + (int64_t)(bits / 4) && last <= 2000 + (int64_t)(bits / 4) + 2 * N,
              "%s: last %lld, bits %g", modes[m], (long long)last, bits);
  }
}

Test(network, bad_transfers_and_keys_are_refused) {
  lbs_grid *g = grid("[cluster A]\nnodes = 2\n");
  lbs_net *n;
  cr_assert_eq(lbs_net_create(g, &n), LBS_OK);
  lbs_transfer x = {0, 2, 1, 0, 0};
  cr_assert_eq(lbs_net_run(n, &x, 1), LBS_INVAL);
  cr_assert(strstr(lbs_errmsg(), "0 -> 2"), "%s", lbs_errmsg());
  x = (lbs_transfer){0, 1, -1, 0, 0};
  cr_assert_eq(lbs_net_run(n, &x, 1), LBS_INVAL);
  cr_assert_eq(lbs_net_run(n, NULL, 0), LBS_OK);
  lbs_net_destroy(&n);
  lbs_grid_destroy(&g);
  lbs_config *c;
  struct {
    const char *text, *needle;
  } bad[] = {{"[grid]\nsharing = maxmin\n[cluster A]\nnodes = 1\n",
              "net.ini:2: sharing = 'maxmin' must be fair or fifo"},
             {"[grid]\nbarrier_us = -1\n[cluster A]\nnodes = 1\n", "barrier_us"},
             {"[nodetype n]\nnic_gbps = 1e-12\n[cluster A]\nnodes = 1\nnodetype = n\n",
              "net.ini:2: nic_gbps = 1e-12"}};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    lbs_grid *h = NULL;
    cr_assert_eq(lbs_config_parse_string("net.ini", bad[i].text, &c), LBS_OK);
    cr_assert_neq(lbs_grid_from_config(c, &h), LBS_OK, "accepted: %s", bad[i].text);
    cr_assert(strstr(lbs_errmsg(), bad[i].needle), "'%s' lacks '%s'", lbs_errmsg(), bad[i].needle);
    lbs_config_destroy(&c);
  }
  g = grid(
      "[grid]\nbarrier_us = 2.5\n[nodetype n]\nnic_gbps = 0.5\n[cluster A]\nnodes = 1\n[cluster B]\nnodes = 2\nnodetype = n\n");
  cr_assert_eq(lbs_grid_sharing(g), LBS_SHARING_FAIR, "fair by default");
  cr_assert_eq(lbs_grid_barrier_ns(g), 2500);
  cr_assert_eq(lbs_grid_nic_gbps(g, 0), 0);
  cr_assert_eq(lbs_grid_nic_gbps(g, 2), 0.5);
  /* uncontended: the slower of link (1 Gbit/s between clusters) and NIC */
  cr_assert_eq(lbs_grid_transfer_ns(g, 0, 1, 1000), 100000 + 16000);
  lbs_grid_destroy(&g);
}

/* ---------------------------------------------------------------- the barrier in a replay */

/* Four elements in a line 0-1-2-3; {0,1} on p0 and {2,3} on p1. */
static lbs_err mock_create(void **s, const char *a, const lbs_config *c, MPI_Comm comm) {
  (void)a, (void)c, (void)comm;
  *s = NULL;
  return LBS_OK;
}
static int mock_no(const void *s) { return (void)s, 0; }
static lbs_err mock_partition(void *s, const lbs_part_input *in, int *np) {
  (void)s;
  for (int64_t i = 0; i < in->nlocal; i++) np[i] = in->gid[i] < 2 ? 0 : 1;
  return LBS_OK;
}
static const lbs_partitioner_ops mock = {.abi = LBS_PART_ABI,
                                         .name = "halves",
                                         .methods = "",
                                         .create = mock_create,
                                         .needs_graph = mock_no,
                                         .needs_coords = mock_no,
                                         .partition = mock_partition};

static char *dir, *line4;
static char *mpi_session; /* tu_mpi_session */
static void up(void) {
  mpi_session = tu_mpi_session();
  MPI_Init(NULL, NULL);
  lbs_part_register(&mock);
  dir = tu_tmpdir();
  line4 = tu_path(dir, "line4.lbt");
  int64_t xadj[] = {0, 1, 3, 5, 6}, adj[] = {1, 0, 2, 1, 3, 2};
  double xy[] = {0, 1, 2, 3};
  lbs_mesh *m;
  cr_assert_eq(lbs_mesh_create_unstructured(4, 1, xy, xadj, adj, NULL, 0, &m), LBS_OK);
  lbs_metric_spec ms = {"work", "1", LBS_CODEC_LOSSLESS, {LBS_BOUND_LOSSLESS, 0}, {0, 0}};
  lbs_trace_spec spec = {4, 2, 1, &ms, m, 0, NULL};
  lbs_trace_writer *w;
  cr_assert_eq(lbs_trace_create(line4, &spec, &w), LBS_OK, "%s", lbs_errmsg());
  double v[5][4] = {
      {10, 10, 10, 10}, {30, 10, 10, 10}, {10, 10, 10, 40}, {5, 5, 5, 5}, {1, 2, 3, 4}};
  for (int s = 0; s < 5; s++) {
    const double *cols[1] = {v[s]};
    cr_assert_eq(lbs_trace_write_step(w, s, cols), LBS_OK);
  }
  cr_assert_eq(lbs_trace_writer_close(&w), LBS_OK);
  lbs_mesh_destroy(&m);
}
static void down(void) {
  free(line4);
  tu_rmrf(dir);
  MPI_Finalize();
  tu_rmrf(mpi_session);
}
TestSuite(network_replay, .init = up, .fini = down);

static lbs_replay_result *replay(const char *barrier_us, const char *sharing, lbs_sim_mode mode,
                                 const char *policy) {
  char text[512];
  snprintf(text, sizeof text,
           "[grid]\nbytes_per_edge = 16\nbytes_per_elem = 100\nbarrier_us = %s\nsharing = %s\n"
           "[cluster A]\nnodes = 1\n[cluster B]\nnodes = 1\n"
           "[link A B]\nlatency_us = 0.005\nbandwidth_gbps = 8\nshared = true\n",
           barrier_us, sharing);
  lbs_grid *g = grid(text);
  lbs_trace *t;
  cr_assert_eq(lbs_trace_open(line4, &t), LBS_OK);
  lbs_replay_opts o;
  lbs_replay_opts_default(&o);
  o.partitioner = "halves", o.policy = policy, o.mode = mode, o.part_fixed_us = 0.05,
  o.part_per_elem_ns = 0;
  lbs_replay_result *r = NULL;
  cr_assert_eq(lbs_replay(t, g, &o, MPI_COMM_WORLD, &r), LBS_OK, "%s", lbs_errmsg());
  lbs_trace_close(&t);
  lbs_grid_destroy(&g);
  return r;
}

/* bsp: S = 5 steps, each ending at a barrier of 2.5 us: exactly 5 x 2500 ns more, every step
 * 2500 ns longer, charged as communication; a repartition's barriers are not steps' (the
 * partitioning model has them). des has no barrier per step: nothing changes. */
Test(network_replay, the_barrier_adds_its_cost_to_every_bsp_step) {
  const char *modes[] = {"fair", "fifo"};
  for (int m = 0; m < 2; m++) {
    lbs_replay_result *a = replay("0", modes[m], LBS_MODE_BSP, "none"),
                      *b = replay("2.5", modes[m], LBS_MODE_BSP, "none");
    cr_assert_eq(a->steps, 5);
    cr_assert_eq(b->total_ns, a->total_ns + 5 * 2500, "%lld vs %lld", (long long)b->total_ns,
                 (long long)a->total_ns);
    for (int s = 0; s < 5; s++) cr_assert_eq(b->step_ns[s], a->step_ns[s] + 2500);
    cr_assert_eq(b->comm_ns, a->comm_ns + 5 * 2500);
    cr_assert_eq(b->compute_ns, a->compute_ns);
    lbs_replay_result_free(&a);
    lbs_replay_result_free(&b);
    a = replay("0", modes[m], LBS_MODE_BSP, "fixed:2"),
    b = replay("2.5", modes[m], LBS_MODE_BSP, "fixed:2");
    cr_assert_eq(a->nrep, 2);
    cr_assert_eq(b->total_ns, a->total_ns + 5 * 2500);
    lbs_replay_result_free(&a);
    lbs_replay_result_free(&b);
    a = replay("0", modes[m], LBS_MODE_DES, "none"),
    b = replay("2.5", modes[m], LBS_MODE_DES, "none");
    cr_assert_eq(b->total_ns, a->total_ns);
    lbs_replay_result_free(&a);
    lbs_replay_result_free(&b);
  }
  /* by hand, 1 byte/ns and 5 ns of latency, 16 bytes each way at every step:
   *   step 0: both compute 20 ns; both halos start at 25 and share the link: 32 ns, 57
   *   step 1: 40 and 20 ns; p1's halo goes alone from 20 + 5 (16 ns: 41), p0's from 45: 61
   *   step 2: 20 and 50 ns; alone each: 50 + 5 + 16 = 71
   *   step 3: 10 and 10 ns; together from 15: 47
   *   step 4: 3 and 7 ns (1 + 2 and 3 + 4 work): p0's alone from 8 to 12 (4 bytes), then
   *           0.5 byte/ns each: p0's 12 bytes end at 36, p1's last 4 at 40 */
  lbs_replay_result *r = replay("1", "fair", LBS_MODE_BSP, "none");
  const int64_t hand[5] = {57, 61, 71, 47, 40};
  for (int s = 0; s < 5; s++)
    cr_assert_eq(r->step_ns[s], hand[s] + 1000, "step %d: %lld", s, (long long)r->step_ns[s]);
  cr_assert_eq(r->total_ns, 276 + 5000);
  lbs_replay_result_free(&r);
}
