/* test_loader.c - lbs_plugin_load and the ops ABIs before this lbsim's: a plug-in built against
 * them (tests/plugins/old_abi.c) loads, each of its tables taken as today's with the fields
 * added since at 0 (no flags, usage, example or sections), and works; an ABI older still is
 * refused with the message that says to rebuild it. A truncated copy of a real plug-in is refused
 * before dlopen maps it (elf_check.c), where it would have been a SIGBUS. */
#include <criterion/criterion.h>
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elf_check.h"

#include "lbs_grid.h"

#include "lbs_minex.h"
#include "lbs_part.h"
#include "lbs_plugin_load.h"
#include "lbs_policy.h"

static int decide_at(lbs_policy *p, int64_t step) {
  int64_t load[1] = {1};
  lbs_loadview v = {.step = step, .steps = 20, .procs = 1, .load_ns = load};
  int r = -1;
  cr_assert_eq(lbs_policy_decide(p, &v, &r), LBS_OK, "%s", lbs_errmsg());
  return r;
}

Test(loader, a_policy_of_the_abi_before_is_taken_as_todays) {
  cr_assert_eq(lbs_plugin_load(LBS_TEST_PLUGIN_OLD_ABI), LBS_OK, "%s", lbs_errmsg());
  const lbs_policy_ops *ops = lbs_policy_find("every10");
  cr_assert_not_null(ops);
  cr_assert_eq(ops->abi, LBS_POLICY_ABI);
  cr_assert_eq(ops->flags, 0, "a field added since reads 0");
  cr_assert_str_eq(ops->example, "every10");
  cr_assert(ops->init && ops->decide && !ops->fini && !ops->series);
  lbs_policy *p = NULL;
  cr_assert_eq(lbs_policy_create("every10", &p), LBS_OK, "%s", lbs_errmsg());
  cr_assert_eq(decide_at(p, 5), 0);
  cr_assert_eq(decide_at(p, 10), 1);
  lbs_policy_destroy(&p);
}

Test(loader, a_partitioner_of_the_abi_before_is_taken_as_todays) {
  cr_assert_eq(lbs_plugin_load(LBS_TEST_PLUGIN_OLD_ABI), LBS_OK, "%s", lbs_errmsg());
  const lbs_partitioner_ops *ops = lbs_part_find("modulo");
  cr_assert_not_null(ops);
  cr_assert_eq(ops->abi, LBS_PART_ABI);
  cr_assert(!ops->usage && !ops->example && !ops->flags && !ops->sections,
            "fields added since read 0");
  cr_assert(strstr(lbs_part_known(), ", modulo"), "listed by its name: %s", lbs_part_known());
  for (const lbs_section_spec *s = lbs_part_sections(); s->kind; s++)
    cr_assert_str_neq(s->kind, "modulo");
  lbs_partitioner *p = NULL;
  cr_assert_eq(lbs_part_create("modulo", NULL, MPI_COMM_SELF, &p), LBS_OK, "%s", lbs_errmsg());
  int64_t gid[] = {0, 1, 2, 3, 4};
  double w[] = {1, 1, 1, 1, 1};
  int cur[] = {0, 0, 0, 0, 0}, np[5];
  double sizes[] = {0.5, 0.5};
  lbs_part_input in = {.comm = MPI_COMM_SELF,
                       .nlocal = 5,
                       .gid = gid,
                       .weight = w,
                       .current = cur,
                       .nparts = 2,
                       .part_sizes = sizes};
  cr_assert_eq(lbs_part_run(p, &in, np), LBS_OK, "%s", lbs_errmsg());
  for (int i = 0; i < 5; i++) cr_assert_eq(np[i], i % 2);
  lbs_part_destroy(&p);
}

Test(loader, a_latency_function_of_the_abi_before_is_taken_as_todays) {
  cr_assert_eq(lbs_plugin_load(LBS_TEST_PLUGIN_OLD_ABI), LBS_OK, "%s", lbs_errmsg());
  const lbs_minex_latency_ops *ops = NULL;
  for (int i = 0; i < lbs_minex_latency_count(); i++)
    if (!strcmp(lbs_minex_latency_at(i)->name, "plain")) ops = lbs_minex_latency_at(i);
  cr_assert_not_null(ops);
  cr_assert_eq(ops->abi, LBS_MINEX_LATENCY_ABI);
  cr_assert_eq(ops->flags, 0, "a field added since reads 0");
  lbs_minex_latency *l = NULL;
  cr_assert_eq(lbs_minex_latency_create("plain", NULL, &l), LBS_OK, "%s", lbs_errmsg());
  lbs_minex_latency_destroy(&l);
}

Test(loader, a_speed_model_of_the_abi_before_is_taken_as_todays) {
  cr_assert_eq(lbs_plugin_load(LBS_TEST_PLUGIN_OLD_ABI), LBS_OK, "%s", lbs_errmsg());
  const lbs_speed_ops *ops = lbs_speed_find("thrice");
  cr_assert_not_null(ops);
  cr_assert_eq(ops->abi, LBS_SPEED_ABI);
  cr_assert(!ops->bind_metric && !ops->range, "fields added since read 0");
  lbs_config *cfg = NULL;
  cr_assert_eq(
      lbs_config_parse_string(
          "t", "[nodetype t]\nspeed_model = thrice\n[cluster A]\nnodes = 2\nnodetype = t\n", &cfg),
      LBS_OK, "%s", lbs_errmsg());
  lbs_grid *g = NULL;
  cr_assert_eq(lbs_grid_from_config(cfg, &g), LBS_OK, "%s", lbs_errmsg());
  cr_assert_eq(lbs_grid_compute_ns(g, 1, 10), 30);
  cr_assert_eq(lbs_grid_bind_metric(g, "weight", "cells"), LBS_OK, "any metric will do");
  double lo, hi;
  char what[64];
  cr_assert_eq(lbs_grid_work_range(g, 0, &lo, &hi, what, sizeof what), 0, "no range");
  lbs_grid_destroy(&g);
  lbs_config_destroy(&cfg);
}

Test(loader, an_abi_older_than_the_one_before_is_refused) {
  char want[1024];
  snprintf(want, sizeof want,
           "plugin %s: policy 'ancient' built against policy ABI 1, this lbsim has %d: rebuild it",
           LBS_TEST_PLUGIN_ANCIENT, LBS_POLICY_ABI);
  cr_assert_eq(lbs_plugin_load(LBS_TEST_PLUGIN_ANCIENT), LBS_INVAL);
  cr_assert_str_eq(lbs_errmsg(), want);
  cr_assert_null(lbs_policy_find("ancient"));
}

/* A copy of the plug-in at src, its first keep bytes, into dir/name; when no_sections, its
 * header first says it has no section headers (so that only its segments can be cut short). */
static void truncated_copy(const char *src, const char *path, long keep, int no_sections) {
  FILE *in = fopen(src, "rb");
  cr_assert_not_null(in);
  char *buf = malloc((size_t)keep);
  cr_assert_not_null(buf);
  cr_assert_eq(fread(buf, 1, (size_t)keep, in), (size_t)keep, "the plug-in is shorter than %ld",
               keep);
  fclose(in);
  if (no_sections) {
    Elf64_Ehdr h;
    memcpy(&h, buf, sizeof h);
    h.e_shoff = 0, h.e_shnum = 0, h.e_shstrndx = 0;
    memcpy(buf, &h, sizeof h);
  }
  FILE *out = fopen(path, "wb");
  cr_assert_not_null(out);
  cr_assert_eq(fwrite(buf, 1, (size_t)keep, out), (size_t)keep);
  cr_assert_eq(fclose(out), 0);
  free(buf);
}

Test(loader, a_truncated_plugin_is_refused_before_dlopen) {
  char dir[] = "/tmp/lbs_loader_XXXXXX", path[64], want[256];
  cr_assert_not_null(mkdtemp(dir));
  snprintf(path, sizeof path, "%s/cut.so", dir);
  truncated_copy(LBS_TEST_PLUGIN_OLD_ABI, path, 5000, 0);
  cr_assert_eq(lbs_plugin_load(path), LBS_INVAL, "%s", lbs_errmsg());
  snprintf(want, sizeof want, "plugin %s: truncated or not a shared object: 5000 bytes, ", path);
  cr_assert(!strncmp(lbs_errmsg(), want, strlen(want)), "%s", lbs_errmsg());
  cr_assert(strstr(lbs_errmsg(), "its section headers end at byte"), "%s", lbs_errmsg());
  unlink(path);
  rmdir(dir);
}

Test(loader, a_segment_cut_short_is_refused_without_section_headers) {
  char dir[] = "/tmp/lbs_loader_XXXXXX", path[64], why[256];
  cr_assert_not_null(mkdtemp(dir));
  snprintf(path, sizeof path, "%s/cut.so", dir);
  truncated_copy(LBS_TEST_PLUGIN_OLD_ABI, path, 5000, 1);
  cr_assert_eq(lbs__plugin_elf_check(path, why, sizeof why), 2, "%s", why);
  cr_assert(strstr(why, "5000 bytes, its segment "), "%s", why);
  truncated_copy(LBS_TEST_PLUGIN_OLD_ABI, path, 40, 0);
  cr_assert_eq(lbs__plugin_elf_check(path, why, sizeof why), 2);
  cr_assert_str_eq(why, "40 bytes, shorter than an ELF header");
  cr_assert_eq(lbs__plugin_elf_check(LBS_TEST_PLUGIN_OLD_ABI, why, sizeof why), 0, "%s", why);
  cr_assert_eq(lbs__plugin_elf_check(dir, why, sizeof why), 1);
  cr_assert_str_eq(why, "not a regular file");
  unlink(path);
  rmdir(dir);
}
