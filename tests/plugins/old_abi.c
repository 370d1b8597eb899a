/* old_abi.c - a plug-in as it was built against the ops ABIs before this lbsim's: its tables
 * laid out as LBS_POLICY_ABI 2 (up to example), LBS_PART_ABI 3 (up to cost_model),
 * LBS_SPEED_ABI 2 (up to fini) and LBS_MINEX_LATENCY_ABI 1 (up to destroy) had them, with nothing
 * after them, as a plug-in compiled then holds them. lbs_plugin_load takes them, the fields added
 * since at 0 (tests/plugin/test_loader.c). ANCIENT defined: a policy table of ABI 1, which it
 * refuses. */
#include <lbsim_plugin.h>

/* lbs_policy_ops at ABI 2 */
typedef struct {
  int abi;
  const char *name, *usage;
  lbs_err (*init)(void **state, const char *args);
  lbs_err (*decide)(void *state, const lbs_loadview *view, int *repartition);
  void (*fini)(void *state);
  int (*series)(const void *state, const int64_t **steps, const double **values);
  const char *example;
} policy_abi2;

/* lbs_partitioner_ops at ABI 3 */
typedef struct {
  int abi;
  const char *name, *methods;
  lbs_err (*create)(void **state, const char *args, const lbs_config *cfg, MPI_Comm comm);
  int (*needs_graph)(const void *state);
  int (*needs_coords)(const void *state);
  lbs_err (*partition)(void *state, const lbs_part_input *in, int *newpart);
  void (*destroy)(void *state);
  int (*uses_current)(const void *state);
  double (*tolerance)(const void *state);
  int (*takes_sizes)(const void *state);
  int (*distributed)(const void *state);
  void (*cost_model)(const void *state, double *fixed_us, double *per_elem_ns);
} part_abi3;

/* lbs_minex_latency_ops at ABI 1 */
typedef struct {
  int abi;
  const char *name, *usage, *example;
  lbs_err (*create)(void **user, const char *args);
  lbs_minex_latency_fn latency;
  lbs_err (*begin)(void *user, const lbs_minex_ipg *ipg);
  const char *(*failed)(void *user);
  void (*destroy)(void *user);
} latency_abi1;

/* lbs_speed_ops at ABI 2 */
typedef struct {
  int abi;
  const char *name;
  const lbs_opt *keys;
  const char *example;
  int monotone;
  lbs_err (*init)(void **state, const lbs_config *cfg, const char *nodetype, double ns_per_work);
  int64_t (*time_ns)(const void *state, double work);
  double (*rate)(const void *state);
  void (*fini)(void *state);
} speed_abi2;

static lbs_err init(void **s, const char *a) {
  (void)a;
  *s = NULL;
  return LBS_OK;
}
/* repartitions every 10 steps */
static lbs_err decide(void *s, const lbs_loadview *v, int *r) {
  (void)s;
  *r = v->step > 0 && v->step % 10 == 0;
  return LBS_OK;
}

#ifndef ANCIENT
static lbs_err create(void **s, const char *a, const lbs_config *c, MPI_Comm comm) {
  (void)a, (void)c, (void)comm;
  *s = NULL;
  return LBS_OK;
}
static int no(const void *s) { return (void)s, 0; }
static lbs_err partition(void *s, const lbs_part_input *in, int *newpart) {
  (void)s;
  for (int64_t i = 0; i < in->nlocal; i++) newpart[i] = (int)(in->gid[i] % in->nparts);
  return LBS_OK;
}

static lbs_err lat_create(void **u, const char *a) {
  (void)a;
  *u = NULL;
  return LBS_OK;
}
static double lat(void *u, const lbs_minex_ipg *ipg, const lbs_minex_tot *tot) {
  (void)u, (void)ipg;
  return tot->pproc + tot->comm + tot->remap;
}

static lbs_err sp_init(void **s, const lbs_config *c, const char *nt, double npw) {
  (void)c, (void)nt, (void)npw;
  *s = NULL;
  return LBS_OK;
}
static int64_t sp_time(const void *s, double w) { return (void)s, (int64_t)(3 * w); }
static double sp_rate(const void *s) { return (void)s, 1.0 / 3; }

static const policy_abi2 every10 = {.abi = 2,
                                    .name = "every10",
                                    .usage = "every10",
                                    .init = init,
                                    .decide = decide,
                                    .example = "every10"};
static const part_abi3 modulo = {.abi = 3,
                                 .name = "modulo",
                                 .create = create,
                                 .needs_graph = no,
                                 .needs_coords = no,
                                 .partition = partition};
static const latency_abi1 plain = {.abi = 1,
                                   .name = "plain",
                                   .usage = "plain",
                                   .example = "plain",
                                   .create = lat_create,
                                   .latency = lat};
static const speed_abi2 thrice = {.abi = 2,
                                  .name = "thrice",
                                  .monotone = 1,
                                  .init = sp_init,
                                  .time_ns = sp_time,
                                  .rate = sp_rate};
static const lbs_policy_ops *const policies[] = {(const lbs_policy_ops *)&every10, NULL};
static const lbs_speed_ops *const speeds[] = {(const lbs_speed_ops *)&thrice, NULL};
static const lbs_partitioner_ops *const parts[] = {(const lbs_partitioner_ops *)&modulo, NULL};
static const lbs_minex_latency_ops *const lats[] = {(const lbs_minex_latency_ops *)&plain, NULL};
static const lbsim_plugin plugin = {.abi = LBSIM_PLUGIN_ABI,
                                    .name = "old_abi",
                                    .policies = policies,
                                    .partitioners = parts,
                                    .speed_models = speeds,
                                    .latencies = lats};
#else
static const policy_abi2 ancient = {
    .abi = 1, .name = "ancient", .usage = "ancient", .init = init, .decide = decide};
static const lbs_policy_ops *const policies[] = {(const lbs_policy_ops *)&ancient, NULL};
static const lbsim_plugin plugin = {
    .abi = LBSIM_PLUGIN_ABI, .name = "ancient", .policies = policies};
#endif

const lbsim_plugin *lbsim_plugin_entry(void) { return &plugin; }
