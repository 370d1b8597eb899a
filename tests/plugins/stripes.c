/* stripes.c - a partitioner plug-in for the partitioners' contract (mpi.part_contract), as
 * e2e.install builds one against the installed headers: stripes puts element e on part
 * e mod P, and takes no method. */
#include <lbsim_plugin.h>

static lbs_err create(void **s, const char *a, const lbs_config *c, MPI_Comm comm) {
  (void)c, (void)comm;
  *s = NULL;
  return *a ? lbs_fail(LBS_INVAL, "stripes takes no method (got '%s')", a) : LBS_OK;
}

static int no(const void *s) { return (void)s, 0; }

static lbs_err partition(void *s, const lbs_part_input *in, int *newpart) {
  (void)s;
  for (int64_t i = 0; i < in->nlocal; i++) newpart[i] = (int)(in->gid[i] % in->nparts);
  return LBS_OK;
}

static const lbs_partitioner_ops stripes = {.abi = LBS_PART_ABI,
                                            .name = "stripes",
                                            .create = create,
                                            .needs_graph = no,
                                            .needs_coords = no,
                                            .partition = partition};
static const lbs_partitioner_ops *const parts[] = {&stripes, NULL};
static const lbsim_plugin plugin = {
    .abi = LBSIM_PLUGIN_ABI, .name = "stripes", .partitioners = parts};

const lbsim_plugin *lbsim_plugin_entry(void) { return &plugin; }
