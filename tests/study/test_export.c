/* A replay exported for other tools (study/export_simgrid.c, study/export_vtk.c): what the files
 * hold against the replay they record, and what an export refuses. Replays run under an MPI
 * singleton (the suite's init). */
#include <criterion/criterion.h>
#include <mpi.h>
#include <sys/stat.h>

#include "lbs_export.h"
#include "testutil.h"

static char *dir;
static char *mpi_session; /* tu_mpi_session */
static void up(void) {
  mpi_session = tu_mpi_session();
  MPI_Init(NULL, NULL);
  dir = tu_tmpdir();
}
static void down(void) {
  tu_rmrf(dir);
  MPI_Finalize();
  tu_rmrf(mpi_session);
}
TestSuite(export, .init = up, .fini = down);

/* A grid file of two clusters of two processors, with the given extra lines. */
static char *grid_file(const char *name, const char *extra) {
  char *p = tu_path(dir, name), text[1024];
  snprintf(text, sizeof text,
           "[grid]\nns_per_work = 1000\nbytes_per_edge = 4000\n%s"
           "[nodetype fast]\nspeed = 2\n[cluster A]\nnodes = 2\nnodetype = fast\nlatency_us = 2\n"
           "[cluster B]\nnodes = 2\n[link A B]\nlatency_us = 50\nbandwidth_gbps = 1\n",
           extra);
  tu_write(p, text);
  return p;
}

/* A generated trace on a 6x4x2 box. */
static char *gen_trace(const char *name, lbs_order order) {
  char *p = tu_path(dir, name);
  lbs_gen_params gp = {"hotspot", 6, 4, 2, 6, 3, {0, 0, 0}};
  cr_assert_eq(lbs_gen_write(&gp, order, p, NULL, NULL), LBS_OK, "%s", lbs_errmsg());
  return p;
}

static char *slurp(const char *path) {
  char *text = NULL;
  size_t len = 0;
  cr_assert_eq(lbs_read_file(path, &text, &len), LBS_OK, "%s", lbs_errmsg());
  return text;
}

static int count(const char *text, const char *what) {
  int n = 0;
  for (const char *p = text; (p = strstr(p, what)); p += strlen(what)) n++;
  return n;
}

static lbs_session open_session(const char *trace, const char *grid, const char *over) {
  lbs_session s;
  const char *o[1] = {over};
  cr_assert_eq(lbs_session_open(&s, trace, grid, o, over ? 1 : 0), LBS_OK, "%s", lbs_errmsg());
  return s;
}

Test(export, simgrid_files_hold_every_action_of_the_replay) {
  char *trace = gen_trace("h.lbt", LBS_ORDER_NATURAL),
       *grid = grid_file("g.ini", "barrier_us = 3\n");
  char *out = tu_path(dir, "sg");
  lbs_session s = open_session(trace, grid, "sim.policy=fixed:2");
  lbs_simgrid *x;
  lbs_replay_result *r;
  cr_assert_eq(lbs_simgrid_create(&s, 16, 1, &x), LBS_OK);
  cr_assert_eq(
      lbs_replay_record(s.trace, s.grid, &s.opts, lbs_simgrid_recorder(x), MPI_COMM_WORLD, &r),
      LBS_OK, "%s", lbs_errmsg());
  cr_assert_eq(mkdir(out, 0777), 0);
  cr_assert_eq(lbs_simgrid_write(x, out, r), LBS_OK, "%s", lbs_errmsg());
  int sends = 0, recvs = 0, barriers = 0;
  for (int p = 0; p < 4; p++) {
    char name[64], head[32], tail[32];
    snprintf(name, sizeof name, "rank_%d.txt", p);
    char *path = tu_path(out, name), *text = slurp(path);
    snprintf(head, sizeof head, "%d init\n", p);
    snprintf(tail, sizeof tail, "%d finalize\n", p);
    cr_assert(!strncmp(text, head, strlen(head)) && strstr(text, tail), "%s", text);
    sends += count(text, " send "), recvs += count(text, " recv ");
    barriers = count(text, " barrier\n");
    /* bsp: a barrier and barrier_us per step, two barriers per repartition */
    cr_assert_eq(barriers, r->steps + 2 * r->nrep);
    cr_assert_eq(count(text, " sleep 0.000003000\n"), r->steps);
    free(text), free(path);
  }
  cr_assert_eq(sends, recvs);
  cr_assert_eq(sends, lbs_simgrid_messages(x));
  char *plat = tu_path(out, "platform.xml"), *xml = slurp(plat), *run = tu_path(out, "run.sh");
  cr_assert_eq(count(xml, "<host "), 4);
  cr_assert_eq(count(xml, "<route "), 12);
  cr_assert(strstr(xml, "<link id=\"link_c0_c1\" bandwidth=\"125000000Bps\" latency=\"50000ns\""),
            "%s", xml);
  struct stat sb;
  cr_assert(stat(run, &sb) == 0 && (sb.st_mode & S_IXUSR));
  char *jp = tu_path(out, "lbsim.json"), *json = slurp(jp);
  cr_assert(strstr(json, "\"procs\":4"), "%s", json);
  /* a second export into the same directory: the files exist */
  cr_assert_eq(lbs_simgrid_write(x, out, r), LBS_IO);
  cr_assert(strstr(lbs_errmsg(), "rank_0.txt: cannot create"), "%s", lbs_errmsg());
  free(xml), free(plat), free(run), free(json), free(jp);
  lbs_replay_result_free(&r);
  lbs_simgrid_destroy(&x);
  cr_assert_null(x);
  lbs_session_close(&s);
  free(trace), free(grid), free(out);
}

Test(export, simgrid_takes_the_envelope_off_every_message) {
  char *trace = gen_trace("h.lbt", LBS_ORDER_NATURAL), *grid = grid_file("g.ini", "");
  for (int env = 0; env <= 16; env += 16) {
    char name[32];
    snprintf(name, sizeof name, "sg%d", env);
    char *out = tu_path(dir, name), *r0 = tu_path(out, "rank_0.txt");
    lbs_session s = open_session(trace, grid, "sim.mode=des");
    lbs_simgrid *x;
    lbs_replay_result *r;
    cr_assert_eq(lbs_simgrid_create(&s, env, 1, &x), LBS_OK);
    cr_assert_eq(
        lbs_replay_record(s.trace, s.grid, &s.opts, lbs_simgrid_recorder(x), MPI_COMM_WORLD, &r),
        LBS_OK);
    cr_assert_eq(mkdir(out, 0777), 0);
    cr_assert_eq(lbs_simgrid_write(x, out, r), LBS_OK, "%s", lbs_errmsg());
    char *text = slurp(r0), *send = strstr(text, " send ");
    cr_assert_eq(count(text, "barrier"), 0, "des has no barriers");
    cr_assert_not_null(send);
    long long bytes = atoll(strrchr(strtok(send, "\n"), ' ') + 1);
    cr_assert_eq((bytes + env) % 4000, 0, "%lld bytes with an envelope of %d", bytes,
                 env); /* 4000 per edge */
    free(text), free(r0), free(out);
    lbs_replay_result_free(&r);
    lbs_simgrid_destroy(&x);
    lbs_session_close(&s);
  }
  free(trace), free(grid);
}

Test(export, simgrid_refuses_more_routes_than_it_writes) {
  char *trace = gen_trace("h.lbt", LBS_ORDER_NATURAL), *grid = tu_path(dir, "big.ini");
  /* two clusters without NICs: a route per pair */
  tu_write(grid, "[cluster A]\nnodes = 65536\n[cluster B]\nnodes = 1\n");
  lbs_session s = open_session(trace, grid, NULL);
  lbs_simgrid *x = (lbs_simgrid *)1;
  cr_assert_eq(lbs_simgrid_create(&s, 16, 1, &x), LBS_RANGE);
  cr_assert_null(x);
  cr_assert(strstr(lbs_errmsg(), "65537 processors: this grid's export writes a route per pair"),
            "%s", lbs_errmsg());
  lbs_session_close(&s);
  /* one cluster is a zone: no routes, no limit */
  tu_write(grid, "[cluster A]\nnodes = 65537\n");
  s = open_session(trace, grid, NULL);
  cr_assert_eq(lbs_simgrid_create(&s, 16, 1, &x), LBS_OK, "%s", lbs_errmsg());
  lbs_simgrid_destroy(&x);
  lbs_session_close(&s);
  free(trace), free(grid);
}

/* platform.xml of the replay of trace on grid (the caller frees it). */
static char *export_platform(const char *trace, const char *grid, const char *name) {
  char *out = tu_path(dir, name), *plat = tu_path(out, "platform.xml");
  lbs_session s = open_session(trace, grid, "sim.mode=des");
  lbs_simgrid *x;
  lbs_replay_result *r;
  cr_assert_eq(lbs_simgrid_create(&s, 16, 1, &x), LBS_OK, "%s", lbs_errmsg());
  cr_assert_eq(
      lbs_replay_record(s.trace, s.grid, &s.opts, lbs_simgrid_recorder(x), MPI_COMM_WORLD, &r),
      LBS_OK, "%s", lbs_errmsg());
  cr_assert_eq(mkdir(out, 0777), 0);
  cr_assert_eq(lbs_simgrid_write(x, out, r), LBS_OK, "%s", lbs_errmsg());
  char *xml = slurp(plat);
  lbs_replay_result_free(&r);
  lbs_simgrid_destroy(&x);
  lbs_session_close(&s);
  free(out), free(plat);
  return xml;
}

/* A route per pair would be P (P - 1) routes: the zones write O(P + C^2) lines. */
Test(export, simgrid_platform_is_zones_of_size_p_not_p_squared) {
  char *trace = gen_trace("h.lbt", LBS_ORDER_NATURAL), *grid = tu_path(dir, "one.ini");
  /* one cluster: a star, each host's links are the network (no NICs) */
  tu_write(grid, "[cluster A]\nnodes = 24\nlatency_us = 5\n");
  char *xml = export_platform(trace, grid, "star");
  cr_assert(strstr(xml, "<zone id=\"lbsim\" routing=\"Cluster\">"), "%s", xml);
  cr_assert_eq(count(xml, "<host "), 24);
  cr_assert_eq(count(xml, "<route "), 0);
  cr_assert_eq(count(xml, "<host_link "), 24);
  cr_assert(strstr(xml, "<host_link id=\"p23\" up=\"net_c0\" down=\"net_c0\"/>"), "%s", xml);
  cr_assert_lt(strlen(xml), 24 * 160, "%zu bytes", strlen(xml));
  free(xml);
  /* one cluster with NICs on a shared network: the network is the backbone */
  tu_write(grid, "[nodetype n]\nnic_gbps = 2\n[cluster A]\nnodes = 24\nshared = true\n"
                 "nodetype = n\n");
  xml = export_platform(trace, grid, "backbone");
  cr_assert(strstr(xml, "<backbone id=\"net_c0\" "), "%s", xml);
  cr_assert(strstr(xml, "<host_link id=\"p5\" up=\"nic_p5_UP\" down=\"nic_p5_DOWN\"/>"), "%s", xml);
  cr_assert_eq(count(xml, "<route "), 0);
  free(xml);
  /* three clusters, every processor with a NIC: a graph of 2P + C^2 edges */
  tu_write(grid, "[nodetype n]\nnic_gbps = 2\n[cluster A]\nnodes = 8\nnodetype = n\n"
                 "[cluster B]\nnodes = 8\nnodetype = n\n[cluster C]\nnodes = 8\nnodetype = n\n");
  xml = export_platform(trace, grid, "graph");
  cr_assert(strstr(xml, "<zone id=\"lbsim\" routing=\"DijkstraCache\">"), "%s", xml);
  cr_assert_eq(count(xml, "<router "), 6);
  cr_assert_eq(count(xml, "<route "), 2 * 24 + 9);
  cr_assert(strstr(xml, "<route src=\"c0_in\" dst=\"c2_out\" symmetrical=\"NO\"><link_ctn "
                        "id=\"link_c0_c2\"/></route>"),
            "%s", xml);
  free(xml);
  /* two clusters, the processors of one without NICs: a route per pair */
  tu_write(grid, "[nodetype n]\nnic_gbps = 2\n[cluster A]\nnodes = 6\nnodetype = n\n"
                 "[cluster B]\nnodes = 2\n");
  xml = export_platform(trace, grid, "pairs");
  cr_assert(strstr(xml, "<zone id=\"lbsim\" routing=\"Full\">"), "%s", xml);
  cr_assert_eq(count(xml, "<route "), 8 * 7);
  free(xml);
  free(trace), free(grid);
}

/* The numbers of a DataArray named name in a VTK file's text (n at most). */
static int array_of(const char *text, const char *name, double *v, int n) {
  char key[64];
  snprintf(key, sizeof key, "Name=\"%s\" format=\"ascii\">\n", name);
  const char *p = strstr(text, key);
  cr_assert_not_null(p, "no array %s", name);
  p += strlen(key);
  int k = 0;
  char *end;
  while (k < n && *p != '<') {
    v[k++] = strtod(p, &end);
    p = end;
    while (*p == ' ' || *p == '\n') p++;
  }
  return k;
}

Test(export, vtk_files_hold_the_trace_values_and_the_owners_in_cell_order) {
  char *trace = gen_trace("b.lbt", LBS_ORDER_HILBERT), *grid = grid_file("g.ini", "");
  char *out = tu_path(dir, "v");
  lbs_session s = open_session(trace, grid, "sim.policy=fixed:2");
  s.opts.save_assignment = 1;
  lbs_vtk *v;
  lbs_replay_result *r;
  cr_assert_eq(lbs_vtk_create(&s, &v), LBS_OK, "%s", lbs_errmsg());
  cr_assert(lbs_vtk_structured(v));
  cr_assert_eq(lbs_replay(s.trace, s.grid, &s.opts, MPI_COMM_WORLD, &r), LBS_OK);
  cr_assert_eq(mkdir(out, 0777), 0);
  lbs_vtk_opts o = {.every = 2};
  int64_t files = 0;
  cr_assert_eq(lbs_vtk_write(v, r, &o, out, &files), LBS_OK, "%s", lbs_errmsg());
  cr_assert_eq(files, 3); /* steps 0, 2, 4 of 6 */
  char *pvd = tu_path(out, "replay.pvd"), *col = slurp(pvd);
  cr_assert_eq(count(col, "<DataSet "), 3);
  char *f2 = tu_path(out, "step_000002.vti"), *text = slurp(f2);
  cr_assert(strstr(text, "WholeExtent=\"0 6 0 4 0 2\""), "%s", text);
  /* cell c of the file is the element the mesh puts there: its value and owner */
  double cost[48], owner[48], el[48], want[48];
  cr_assert_eq(array_of(text, "cost", cost, 48), 48);
  cr_assert_eq(array_of(text, "owner", owner, 48), 48);
  cr_assert_eq(array_of(text, "element", el, 48), 48);
  cr_assert_eq(lbs_trace_read(s.trace, 2, 0, 0, 48, want), LBS_OK);
  const int64_t *cell = lbs_mesh_cell_index(lbs_trace_mesh(s.trace));
  int k = 0;
  while (k < r->nrep && r->reparts[k].step <= 2) k++;
  for (int c = 0; c < 48; c++) {
    int64_t e = (int64_t)el[c];
    cr_assert_eq(cell[e], c);
    cr_assert_eq(cost[c], want[e]);
    cr_assert_eq((int)owner[c], r->assign[(size_t)k * 48 + (size_t)e]);
  }
  free(text), free(f2), free(col), free(pvd), free(out);
  lbs_replay_result_free(&r);
  lbs_vtk_destroy(&v);
  cr_assert_null(v);
  lbs_session_close(&s);
  free(trace), free(grid);
}

/* A trace with an unstructured mesh: 1-D coordinates (coords) or none. */
static char *line_trace(const char *name, int coords) {
  char *p = tu_path(dir, name);
  int64_t xadj[] = {0, 1, 3, 5, 6}, adj[] = {1, 0, 2, 1, 3, 2};
  double x[] = {0, 1, 2, 3}, v[4] = {1, 2, 3, 4};
  lbs_mesh *m;
  cr_assert_eq(lbs_mesh_create_unstructured(4, coords, coords ? x : NULL, xadj, adj, NULL, 0, &m),
               LBS_OK);
  lbs_metric_spec ms = {"work", "1", LBS_CODEC_LOSSLESS, {LBS_BOUND_LOSSLESS, 0}, {0, 0}};
  lbs_trace_spec spec = {4, 0, 1, &ms, m, 0, NULL};
  lbs_trace_writer *w;
  cr_assert_eq(lbs_trace_create(p, &spec, &w), LBS_OK, "%s", lbs_errmsg());
  const double *cols[1] = {v};
  for (int s = 0; s < 2; s++) cr_assert_eq(lbs_trace_write_step(w, s, cols), LBS_OK);
  cr_assert_eq(lbs_trace_writer_close(&w), LBS_OK);
  lbs_mesh_destroy(&m);
  return p;
}

Test(export, vtk_places_points_and_refuses_a_graph_alone) {
  char *with = line_trace("line.lbt", 1), *without = line_trace("graph.lbt", 0),
       *grid = grid_file("g.ini", "");
  char *out = tu_path(dir, "u");
  lbs_session s = open_session(with, grid, "sim.partitioner=zoltan:block");
  s.opts.save_assignment = 1;
  lbs_vtk *v;
  lbs_replay_result *r;
  cr_assert_eq(lbs_vtk_create(&s, &v), LBS_OK, "%s", lbs_errmsg());
  cr_assert(!lbs_vtk_structured(v));
  cr_assert_eq(lbs_replay(s.trace, s.grid, &s.opts, MPI_COMM_WORLD, &r), LBS_OK);
  cr_assert_eq(mkdir(out, 0777), 0);
  lbs_vtk_opts o = {.every = 1, .app_time = 1};
  int64_t files = 0;
  cr_assert_eq(lbs_vtk_write(v, r, &o, out, &files), LBS_OK, "%s", lbs_errmsg());
  cr_assert_eq(files, 2);
  char *f1 = tu_path(out, "step_000001.vtu"), *text = slurp(f1), *pvd = tu_path(out, "replay.pvd"),
       *col = slurp(pvd);
  cr_assert(strstr(text, "\n3 0 0\n"), "1-D coordinates padded with zeros: %s", text);
  cr_assert(strstr(col, "timestep=\"1\""), "--time app: %s", col);
  free(text), free(f1), free(col), free(pvd), free(out);
  lbs_replay_result_free(&r);
  lbs_vtk_destroy(&v);
  lbs_session_close(&s);
  s = open_session(without, grid, NULL);
  cr_assert_eq(lbs_vtk_create(&s, &v), LBS_INVAL);
  cr_assert_null(v);
  cr_assert(strstr(lbs_errmsg(), "graph.lbt: the trace's mesh has no coordinates"), "%s",
            lbs_errmsg());
  lbs_session_close(&s);
  free(with), free(without), free(grid);
}
