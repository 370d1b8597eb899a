/* MPI test of the machine's probe (study/probe.c; CTest: 2 ranks; timings are not compared).
 * The measurements are there and sane (two ranks of one node: a ping-pong inside it, none between
 * nodes), the grid file written from them loads as the machine (one cluster of two processors, the
 * fitted [sim] constants), the JSON has every part, and a bad partitioner or a lone rank is
 * refused on every rank. */
#include <stdio.h>
#include <string.h>

#include "lbs_config.h"
#include "lbs_grid.h"
#include "lbs_probe.h"
#include "mpi_check.h"

int main(void) {
  MPI_Init(NULL, NULL);
  MPI_Comm_rank(MPI_COMM_WORLD, &check_rank);
  lbs_probe p;
  lbs_err e = lbs_probe_run("zoltan:block", 1, MPI_COMM_WORLD, &p);
  CHECK(e == LBS_OK, "probe: %s", lbs_errmsg());
  CHECK(p.ranks == 2 && p.nodes == 1 && p.cores[0] == 2, "%d ranks on %d nodes", p.ranks, p.nodes);
  CHECK(p.intra.measured && !p.inter.measured, "one node: a ping-pong inside it only");
  CHECK(p.intra.size[0] == 8 && p.intra.size[LBS_PROBE_SIZES - 1] == 2 << 20, "sizes 8 B .. 2 MiB");
  CHECK(p.intra.latency_us > 0 && p.intra.bandwidth_gbps > 0, "latency %g us, %g Gbit/s",
        p.intra.latency_us, p.intra.bandwidth_gbps);
  CHECK(p.barrier_us > 0, "barrier %g us", p.barrier_us);
  CHECK(p.part_elems[0] == 4096 && p.part_elems[3] == 262144 && p.part_us[3] > 0,
        "partitioner samples");
  CHECK(p.part_fixed_us >= 0 && p.part_per_elem_ns >= 0, "a fit of no negative cost");
  CHECK(p.mig_elems[LBS_PROBE_MIG - 1] == 2 * 8192 &&
            p.mig_bytes[LBS_PROBE_MIG - 1] == 2.0 * 8192 * 4096 &&
            p.mig_us[LBS_PROBE_MIG - 1] > 0 && p.mig_fixed_us >= 0 && p.mig_per_elem_ns >= 0 &&
            p.mig_gbps >= 0,
        "migration samples");
  lbs_buf ini = {0};
  e = lbs_probe_grid(&p, &ini);
  CHECK(e == LBS_OK, "grid: %s", lbs_errmsg());
  lbs_config *cfg = NULL;
  lbs_grid *g = NULL;
  if (!e) e = lbs_config_parse_string("probed", (const char *)ini.data, &cfg);
  if (!e) e = lbs_grid_from_config(cfg, &g);
  CHECK(e == LBS_OK && lbs_grid_procs(g) == 2 && lbs_grid_nclusters(g) == 1,
        "the grid loads as the machine");
  CHECK(cfg && lbs_config_has(cfg, "sim", NULL, "partition_fixed_us") &&
            lbs_config_has(cfg, "sim", NULL, "partition_per_elem_ns"),
        "[sim] has the fitted constants");
  double mf, mp, mg;
  CHECK(cfg && lbs_config_has(cfg, "grid", NULL, "migration_fixed_us") &&
            lbs_config_has(cfg, "grid", NULL, "migration_per_elem_ns") &&
            lbs_config_has(cfg, "grid", NULL, "migration_gbps") && g &&
            lbs_grid_migration_model(g, &mf, &mp, &mg) == 1,
        "[grid] has the migration model (a real migration costs something)");
  CHECK(strstr((const char *)ini.data, "; written by 'lbsim grid probe' on ") ==
            (const char *)ini.data,
        "comments first");
  lbs_grid_destroy(&g);
  lbs_config_destroy(&cfg);
  lbs_buf_free(&ini);
  json_t *j = lbs_probe_json(&p, "m.ini");
  CHECK(json_is_object(json_object_get(j, "intra_node")) &&
            json_is_null(json_object_get(j, "inter_node")) &&
            json_array_size(json_object_get(json_object_get(j, "partition"), "samples")) == 4 &&
            !strcmp(json_string_value(json_object_get(j, "output")), "m.ini"),
        "JSON");
  json_decref(j);
  lbs_probe_free(&p);
  e = lbs_probe_run("nope", 1, MPI_COMM_WORLD, &p);
  CHECK(e == LBS_NOTFOUND && strstr(lbs_errmsg(), "unknown partitioner 'nope'"),
        "bad partitioner: %s", lbs_errmsg());
  lbs_probe_free(&p);
  e = lbs_probe_run("zoltan:block", 1, MPI_COMM_SELF, &p);
  CHECK(e == LBS_INVAL && strstr(lbs_errmsg(), "needs at least 2 MPI ranks"), "one rank: %s",
        lbs_errmsg());
  lbs_probe_free(&p);
  int rc = check_finish();
  MPI_Finalize();
  return rc;
}
