/* test_part_sections.c - the sections a partitioner reads hang on its ops
 * (lbs_partitioner_ops.sections): the partitioner registry lists them (lbs_part_sections), the
 * grid's key table passes them through in registry order (lbs_grid_spec: a grid file may hold
 * them, 'lbsim grid --help-config' shows them), and a mock partitioner's own section joins both
 * when it registers; a section that a grid file has already is refused. */
#include <criterion/criterion.h>
#include <string.h>

#include "lbs_config.h"
#include "lbs_grid.h"
#include "lbs_part.h"

static lbs_err tiles_create(void **s, const char *a, const lbs_config *c, MPI_Comm comm) {
  (void)a, (void)c, (void)comm;
  *s = NULL;
  return LBS_OK;
}
static int tiles_no(const void *s) { return (void)s, 0; }
static lbs_err tiles_partition(void *s, const lbs_part_input *in, int *np) {
  (void)s;
  for (int64_t i = 0; i < in->nlocal; i++) np[i] = 0;
  return LBS_OK;
}

static const lbs_opt tiles_opts[] = {{"size", LBS_OPT_INT, "4", 1, 64, "elements per tile"},
                                     {NULL, 0, NULL, 0, 0, NULL}};
static const lbs_section_spec tiles_sections[] = {{"tiles", 0, 0, tiles_opts, "tile settings"},
                                                  {NULL, 0, 0, NULL, NULL}};
static const lbs_section_spec cluster_section[] = {{"cluster", 1, 0, NULL, "not the grid's"},
                                                   {NULL, 0, 0, NULL, NULL}};

/* A partitioner with the sections given. */
#define MOCK(var, nm, secs)                                                                        \
  static const lbs_partitioner_ops var = {.abi = LBS_PART_ABI,                                     \
                                          .name = nm,                                              \
                                          .create = tiles_create,                                  \
                                          .needs_graph = tiles_no,                                 \
                                          .needs_coords = tiles_no,                                \
                                          .partition = tiles_partition,                            \
                                          .sections = secs}
MOCK(tiles, "tiles", tiles_sections);
MOCK(clusters, "clusters", cluster_section);
MOCK(minex2, "minex2", cluster_section + 1); /* no section: an empty list */

static const lbs_section_spec *find(const lbs_section_spec *specs, const char *kind) {
  for (; specs->kind; specs++)
    if (!strcmp(specs->kind, kind)) return specs;
  return NULL;
}

static const char *GRID = "[grid]\n[cluster A]\nnodes = 2\n";

static lbs_err load(const char *extra) {
  char text[512];
  snprintf(text, sizeof text, "%s%s", GRID, extra);
  lbs_config *c = NULL;
  lbs_grid *g = NULL;
  cr_assert_eq(lbs_config_parse_string("g.ini", text, &c), LBS_OK, "%s", lbs_errmsg());
  lbs_err e = lbs_grid_from_config(c, &g);
  lbs_grid_destroy(&g);
  lbs_config_destroy(&c);
  return e;
}

Test(part_sections, every_partitioners_sections_are_a_grid_files_in_registry_order) {
  const lbs_section_spec *parts = lbs_part_sections(), *grid = lbs_grid_spec();
  int n = 0;
  for (int i = 0; i < lbs_part_count(); i++)
    for (const lbs_section_spec *s = lbs_part_at(i)->sections; s && s->kind; s++, n++) {
      cr_assert_str_eq(parts[n].kind, s->kind, "section %d", n);
      const lbs_section_spec *g = find(grid, s->kind);
      cr_assert_not_null(g, "[%s] of %s in the grid's table", s->kind, lbs_part_at(i)->name);
      cr_assert_null(g->opts, "[%s]: the grid passes its keys through", s->kind);
      cr_assert_eq(g->named, s->named);
      cr_assert_eq(g->required, 0);
      if (s->opts)
        cr_assert(strstr(g->help, "(see 'lbsim partition --help-config')"), "%s", g->help);
    }
  cr_assert_null(parts[n].kind, "nothing else");
  cr_assert(n >= 2, "[zoltan] and [minex] at least");
  /* the grid's own come first and [sim] last, the partitioners' between them in their order */
  int at_zoltan = (int)(find(grid, "zoltan") - grid), at_minex = (int)(find(grid, "minex") - grid);
  cr_assert_str_eq(grid[4].kind, "availability");
  cr_assert_eq(at_zoltan, 5);
  cr_assert_lt(at_zoltan, at_minex);
  cr_assert_str_eq(grid[5 + n].kind, "sim");
  cr_assert_null(grid[6 + n].kind);
}

Test(part_sections, a_new_partitioners_section_joins_the_grids) {
  cr_assert_eq(load("[tiles]\nsize = 3\n"), LBS_PARSE);
  cr_assert(strstr(lbs_errmsg(), "g.ini:4: unknown section [tiles]"), "%s", lbs_errmsg());
  cr_assert_eq(lbs_part_register(&tiles), LBS_OK, "%s", lbs_errmsg());
  cr_assert_not_null(find(lbs_part_sections(), "tiles"));
  const lbs_section_spec *g = find(lbs_grid_spec(), "tiles");
  cr_assert_not_null(g);
  cr_assert_str_eq(g->help, "tile settings (see 'lbsim partition --help-config')");
  cr_assert_eq(load("[tiles]\nsize = 3\n"), LBS_OK, "%s", lbs_errmsg());
  /* the grid passes them through; the partitioners' own check (partition, or its create) reads
   * the keys */
  cr_assert_eq(load("[tiles]\nsise = 3\n"), LBS_OK, "%s", lbs_errmsg());
  lbs_config *c;
  cr_assert_eq(lbs_config_parse_string("g.ini", "[tiles]\nsise = 3\n", &c), LBS_OK);
  cr_assert_eq(lbs_config_check_only(c, lbs_part_sections()), LBS_PARSE);
  cr_assert(strstr(lbs_errmsg(), "unknown key 'sise' in [tiles] (did you mean 'size'?)"), "%s",
            lbs_errmsg());
  lbs_config_destroy(&c);
  cr_assert_eq(lbs_part_register(&minex2), LBS_OK, "an empty list: %s", lbs_errmsg());
}

Test(part_sections, a_section_a_grid_file_has_is_refused) {
  cr_assert_eq(lbs_part_register(&clusters), LBS_INVAL);
  cr_assert_str_eq(lbs_errmsg(),
                   "cannot register partitioner 'clusters': a grid file's [cluster] is taken");
  cr_assert_null(lbs_part_find("clusters"), "not registered");
  static const lbs_partitioner_ops again = {.abi = LBS_PART_ABI,
                                            .name = "again",
                                            .create = tiles_create,
                                            .needs_graph = tiles_no,
                                            .needs_coords = tiles_no,
                                            .partition = tiles_partition,
                                            .sections = tiles_sections};
  cr_assert_eq(lbs_part_register(&tiles), LBS_OK, "%s", lbs_errmsg());
  cr_assert_eq(lbs_part_register(&again), LBS_INVAL);
  cr_assert_str_eq(lbs_errmsg(),
                   "cannot register partitioner 'again': a grid file's [tiles] is taken");
  cr_assert_eq(lbs_part_register(&tiles), LBS_INVAL, "the name is taken");
}

/* What a grid file gives every partitioner is checked whichever runs (lbs_part_check_config:
 * `grid info` and every replay session): [minex]'s keys, and no [zoltan] key the Zoltan adapter
 * sets itself (the method would not be the one recorded; a weight dimension Zoltan would read
 * past the query functions' arrays), in any case; Zoltan's other parameters pass. */
Test(part_sections, a_grid_files_partitioner_sections_are_checked) {
  static const struct {
    const char *text, *msg;
  } cases[] = {
      {"[zoltan]\nIMBALANCE_TOL = 1.2\nRCB_REUSE = 1\n[minex]\npasses = 3\n", NULL},
      {"[zoltan]\nRCB_REUSE = 1\nLB_METHOD = BLOCK\n",
       "g.ini:3: [zoltan] LB_METHOD is set by lbsim: the method is the partitioner's name: choose "
       "it there (zoltan:hsfc, zoltan:phg, ...), not in [zoltan]"},
      {"[zoltan]\nobj_weight_dim = 3\n",
       "g.ini:2: [zoltan] obj_weight_dim is set by lbsim: lbsim gives one weight per element (the "
       "trace's metric)"},
      {"[zoltan]\nEDGE_WEIGHT_DIM = 2\n", "g.ini:2: [zoltan] EDGE_WEIGHT_DIM is set by lbsim"},
      {"[minex]\nthrotle = 0.5\n", "g.ini:2: unknown key 'throtle' in [minex]"},
      {"[minex]\nlatency = nosuch\n", "nosuch"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    lbs_config *c;
    cr_assert_eq(lbs_config_parse_string("g.ini", cases[i].text, &c), LBS_OK, "%s", lbs_errmsg());
    lbs_err e = lbs_part_check_config(c);
    lbs_config_destroy(&c);
    if (!cases[i].msg) {
      cr_assert_eq(e, LBS_OK, "%s", lbs_errmsg());
      continue;
    }
    cr_assert_neq(e, LBS_OK, "case %zu", i);
    cr_assert(!strncmp(lbs_errmsg(), cases[i].msg, strlen(cases[i].msg)) ||
                  (i == 5 && strstr(lbs_errmsg(), cases[i].msg)),
              "case %zu: %s", i, lbs_errmsg());
  }
}
