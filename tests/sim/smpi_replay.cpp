/* smpi_replay.cpp - replays a directory written by 'lbsim export simgrid' with SimGrid's SMPI
 * and prints the simulated time in seconds, to the ns (smpirun's replayer prints it to the
 * us). Built when pkg-config finds SimGrid (libsimgrid-dev); e2e.smpi_crosscheck runs it.
 * C++ for one reason: replacing a replay action (xbt_replay_action_register) is C++ only.
 *
 * usage: smpi_replay [--ideal-barrier] DIR [--cfg=KEY:VALUE]... [--log=...]...
 *
 * It runs what DIR/run.sh runs (smpirun -replay with smpireplaymain): DIR/platform.xml, rank r
 * on the host on line r of DIR/hostfile, replaying the file on line r of DIR/replay.txt, with
 * the settings run.sh gives (first here; the command line's come after and win):
 *   network/model:CM02                 SimGrid's flow model without SMPI's piecewise factors
 *   network/crosstraffic:0             no 5% of a flow's rate charged on the way back
 *   network/TCP-gamma:0                no TCP window bound on a flow's rate
 *   smpi/send-is-detached-thresh and smpi/async-small-thresh at 2^31 - 1: every send goes
 *     eagerly when it is posted, the sender does not wait, as lbsim's transfers
 *   surf/precision:1e-9                as smpirun sets it
 *   network/optim:Full                 every flow's rate solved again at each event: SimGrid's
 *     default (Lazy) delivered, on a grid with 0.5 Gbit/s NICs, four flows through one NIC
 *     sooner than the NIC can carry them (3.5% early on a 16-processor des run; Full agrees
 *     with lbsim to 12 ns there; found in a review of des_overlap = shared)
 * --ideal-barrier replaces SMPI's MPI_Barrier (messages, each with its latency and envelope)
 * by a synchronisation that costs nothing and lets every rank go when the last arrives: lbsim's
 * barrier, whose cost the traces give as a sleep. */
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <simgrid/actor.h>
#include <simgrid/barrier.h>
#include <simgrid/engine.h>
#include <simgrid/host.h>
#include <smpi/smpi.h>
#include <xbt/replay.hpp>

static std::vector<std::string> hosts, traces;
static bool ideal;
static sg_bar_t barrier;

static void rank_main(int argc, char **argv) {
  if (argc < 3) return;
  int rank = atoi(argv[1]);
  smpi_replay_init("lbsim", rank, 0);
  if (ideal) xbt_replay_action_register("barrier", [](simgrid::xbt::ReplayAction &) { sg_barrier_wait(barrier); });
  smpi_replay_main(rank, argv[2]);
}

/* The non-empty lines of a file. */
static bool lines(const std::string &path, std::vector<std::string> &out) {
  FILE *f = fopen(path.c_str(), "r");
  if (!f) return fprintf(stderr, "smpi_replay: %s: cannot open\n", path.c_str()), false;
  char buf[4096];
  while (fgets(buf, sizeof buf, f)) {
    buf[strcspn(buf, "\r\n")] = '\0';
    if (*buf) out.emplace_back(buf);
  }
  fclose(f);
  return true;
}

int main(int argc, char **argv) {
  static const char *defaults[] = {"--cfg=network/model:CM02",
                                   "--cfg=network/crosstraffic:0",
                                   "--cfg=network/TCP-gamma:0",
                                   "--cfg=smpi/send-is-detached-thresh:2147483647",
                                   "--cfg=smpi/async-small-thresh:2147483647",
                                   "--cfg=surf/precision:1e-9",
                                   "--cfg=network/optim:Full",
                                   "--log=xbt_cfg.thresh:warning",
                                   "--log=smpi_config.thresh:error",
                                   "--log=smpi_replay.thresh:warning"};
  std::vector<char *> av{argv[0]};
  for (const char *d : defaults) av.push_back(const_cast<char *>(d));
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--ideal-barrier")) ideal = true;
    else av.push_back(argv[i]);
  }
  int n = static_cast<int>(av.size());
  av.push_back(nullptr);
  simgrid_init(&n, av.data()); /* takes the --cfg and --log options out */
  if (n != 2) {
    fprintf(stderr, "usage: smpi_replay [--ideal-barrier] DIR [--cfg=KEY:VALUE]...\n");
    return 2;
  }
  std::string dir = av[1];
  if (!lines(dir + "/hostfile", hosts) || !lines(dir + "/replay.txt", traces)) return 1;
  if (traces.empty() || hosts.size() < traces.size()) {
    fprintf(stderr, "smpi_replay: %s: %zu hosts for %zu traces\n", dir.c_str(), hosts.size(), traces.size());
    return 1;
  }
  int P = static_cast<int>(traces.size());
  SMPI_init();
  simgrid_load_platform((dir + "/platform.xml").c_str());
  SMPI_app_instance_register("lbsim", nullptr, P);
  barrier = sg_barrier_init(static_cast<unsigned>(P));
  for (int r = 0; r < P; r++) {
    sg_host_t h = sg_host_by_name(hosts[r].c_str());
    if (!h) return fprintf(stderr, "smpi_replay: %s: no host '%s' in the platform\n", dir.c_str(), hosts[r].c_str()), 1;
    std::string rank = std::to_string(r), trace = dir + "/" + traces[r];
    char *args[3] = {const_cast<char *>("lbsim"), const_cast<char *>(rank.c_str()), const_cast<char *>(trace.c_str())};
    sg_actor_create("lbsim", h, rank_main, 3, args); /* copies its arguments */
  }
  simgrid_run();
  printf("%.9f\n", simgrid_get_clock());
  sg_barrier_destroy(barrier);
  SMPI_finalize();
  return 0;
}
