/* cmd_sweep.c - lbsim sweep study.ini: the product of traces, grids, partitioners, policies
 * and override values, replayed as a dynamic task farm over the MPI ranks (MPI starts once for
 * the whole study), into one results store and a tidy CSV. Resumable: the study's id is a hash
 * of what it is made of, and a restarted sweep skips the tasks the store holds already.
 *
 * The farm: a counter on rank 0 (an MPI window, MPI_Fetch_and_op) hands out task numbers; each
 * rank replays its task alone (MPI_COMM_SELF: a replay's answer does not depend on the rank
 * count) and appends the run to the store in its own transaction (SQLite's lock serialises the
 * ranks). A second counter tells rank 0's progress bar how many tasks are done. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <mpi.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "lbs_grid.h"
#include "lbs_mpi.h"
#include "lbs_part.h"
#include "lbs_policy.h"
#include "lbs_sim.h"

#ifndef LBSIM_VERSION
#define LBSIM_VERSION "0.1.0"
#endif

static void usage(void) {
  printf("usage: [mpirun -n R] lbsim sweep study.ini [--results r.db] [--csv tidy.csv] [-f]\n\n"
         "Replays every combination of the study's traces, grids, partitioners, policies and\n"
         "override values (a what-if study), farming the replays over the MPI ranks, and appends\n"
         "each run to one results store with its provenance and its axis values (runs.labels).\n"
         "The tidy CSV has one row per run and measure. A sweep that is stopped (even killed)\n"
         "and started again skips the runs the store holds: nothing done is lost or redone.\n\n"
         "study file:\n"
         "  [study]\n"
         "  name = whatif                        the default outputs: whatif.db, whatif.csv\n"
         "  traces = bump.lbt                    comma-separated, relative to the study file, or\n"
         "                                       gen:KIND:NXxNYxNZ:STEPS[:SEED] ('lbsim trace gen',\n"
         "                                       KIND bump|hotspot|random), made in RESULTS.traces/\n"
         "  seeds = 1, 2, 3                      generated traces once per seed (an axis)\n"
         "  grids = ../grids/homogeneous16.ini, gen:UP:16:4:2\n"
         "                                       files, or gen:FAMILY:P:C:I as 'lbsim grid gen'\n"
         "  partitioners = zoltan:rcb, metis     (default zoltan:rcb)\n"
         "  policies = none, fixed:10            (default none)\n"
         "  steps = 0:50                         the trace steps replayed (default: [sim] steps,\n"
         "                                       else all)\n"
         "  [overrides]                          'lbsim replay -o' keys: one value is a setting,\n"
         "  sim.cost = model                     several (comma-separated) are an axis\n"
         "  cluster main.bandwidth_gbps = 1, 10, 100\n\n"
         "options:\n"
         "  --results FILE       the results store (default NAME.db); runs are appended\n"
         "  --csv FILE           the tidy CSV (default NAME.csv): study, task, the axes, measure,\n"
         "                       value; rewritten from the store at the end, in task order\n"
         "  -f, --force          replace an existing CSV file\n"
         "  --dry-run            list the tasks and exit\n\n"
         "examples:\n"
         "  lbsim sweep examples/whatif/study.ini\n"
         "  mpirun -n 2 lbsim sweep study.ini --results whatif.db   # two replays at a time\n"
         "  lbsim results whatif.db; lbsim report whatif.db -o whatif.html\n");
}

static const lbs_opt study_opts[] = {
    {"name", LBS_OPT_STRING, "study", 0, -1, "the study's name: default outputs NAME.db and NAME.csv"},
    {"traces", LBS_OPT_STRING, NULL, 0, -1, "trace files, comma-separated (relative to the study file)"},
    {"grids", LBS_OPT_STRING, NULL, 0, -1, "grid files or gen:FAMILY:P:C:I specs, comma-separated"},
    {"partitioners", LBS_OPT_STRING, "zoltan:rcb", 0, -1, "partitioners, comma-separated"},
    {"policies", LBS_OPT_STRING, "none", 0, -1, "policies, comma-separated"},
    {"steps", LBS_OPT_STRING, "", 0, -1, "A:B: replay trace steps A..B-1 (default: [sim] steps, else all)"},
    {"seeds", LBS_OPT_STRING, "", 0, -1, "seeds of the generated traces (gen:...), comma-separated: one more axis"},
    {NULL, 0, NULL, 0, 0, NULL}};
static const lbs_section_spec study_spec[] = {
    {"study", 0, 1, study_opts, "the study's axes"},
    {"overrides", 0, 0, NULL, "grid keys (SECTION.KEY = v1, v2, ...): one value sets, several are an axis"},
    {NULL, 0, 0, NULL, NULL}};

#define MAXV 64       /* values per axis */
#define MAXOV 64      /* override keys */
#define OVLEN 1024    /* one override assignment, key=value */
#define MAXTASKS 10000000

typedef struct {
  char *name;        /* "traces", ... or the override key */
  char *v[MAXV];     /* values (trimmed, into a copy of the list) */
  char *list;        /* the copy */
  int n;
} axis;

typedef struct {
  const char *file;  /* the study file */
  char dir[4096];    /* its directory, for relative paths */
  char *name;
  axis ax[4];        /* traces, grids, partitioners, policies */
  axis *ov;          /* override keys */
  int nov;
  int64_t first, nsteps;
  char **trace_path; /* resolved; a generated trace's once the outputs are known */
  lbs_gen_params *gen; /* per trace: a generated trace's recipe (kind NULL: a file) */
  char *gen_kinds;   /* their kinds' storage */
  char *expanded;    /* the trace values with their seeds (seeds given) */
  int has_seeds;
  int64_t ntasks;
  char id[96];       /* sweep-NAME-<hash of the study, its traces and grids>: NAME <= 40 */
} study;

static const char *AXIS[4] = {"traces", "grids", "partitioners", "policies"};
static const char *LABEL[4] = {"trace", "grid", "partitioner", "policy"};

static int split(axis *a, const char *name, const char *list) {
  a->name = strdup(name);
  a->list = strdup(list);
  a->n = 0;
  if (!a->name || !a->list) return -1;
  for (char *save, *tok = strtok_r(a->list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
    while (*tok == ' ' || *tok == '\t') tok++;
    char *end = tok + strlen(tok);
    while (end > tok && (end[-1] == ' ' || end[-1] == '\t')) *--end = 0;
    if (!*tok) continue;
    if (a->n == MAXV) return -2;
    a->v[a->n++] = tok;
  }
  return 0;
}

static void study_free(study *s) {
  for (int i = 0; i < 4; i++) free(s->ax[i].name), free(s->ax[i].list);
  for (int i = 0; i < s->nov; i++) free(s->ov[i].name), free(s->ov[i].list);
  free(s->ov);
  for (int i = 0; s->trace_path && i < s->ax[0].n; i++) free(s->trace_path[i]);
  free(s->trace_path);
  free(s->gen);
  free(s->gen_kinds);
  free(s->expanded);
}

/* "gen:KIND:NXxNYxNZ:STEPS[:SEED]" ('lbsim trace gen' with its defaults) into p; kind points
 * into kbuf (16 bytes). *has_seed: the spec names its seed. */
static int parse_gen(const char *spec, lbs_gen_params *p, char *kbuf, int *has_seed) {
  long long nx = 0, ny = 1, nz = 1, steps = 0, seed = 1;
  char mesh[64], tail[32] = "";
  memset(p, 0, sizeof *p);
  if (sscanf(spec, "gen:%15[a-z]:%63[0-9x]:%lld%31s", kbuf, mesh, &steps, tail) < 3) return -1;
  int k = sscanf(mesh, "%lldx%lldx%lld", &nx, &ny, &nz);
  if (k < 1 || nx < 1 || ny < 1 || nz < 1 || steps < 1) return -1;
  *has_seed = 0;
  if (*tail) {
    char extra;
    if (sscanf(tail, ":%lld%c", &seed, &extra) != 1 || seed < 0) return -1;
    *has_seed = 1;
  }
  *p = (lbs_gen_params){kbuf, nx, ny, nz, steps, (uint64_t)seed, {0, 0, 0}};
  return 0;
}

/* The task's index along each axis: the last axis varies fastest. */
static void task_axes(const study *s, int64_t t, int *i4, int *iov) {
  for (int k = s->nov - 1; k >= 0; k--) iov[k] = (int)(t % s->ov[k].n), t /= s->ov[k].n;
  for (int k = 3; k >= 0; k--) i4[k] = (int)(t % s->ax[k].n), t /= s->ax[k].n;
}

/* A grid file relative to the study, or a gen: spec, as a configuration. */
static lbs_err grid_config(const study *s, const char *spec, lbs_config **out) {
  if (!strncmp(spec, "gen:", 4)) {
    char fam[16];
    int P, C;
    double I;
    char tail;
    if (sscanf(spec + 4, "%15[^:]:%d:%d:%lf%c", fam, &P, &C, &I, &tail) != 4 || P < 1 || C < 1 || I < 1)
      return lbs_fail(LBS_PARSE, "grid '%s': expected gen:FAMILY:P:C:I (HO|UP|DN, processors, clusters, slowdown >= 1)", spec);
    lbs_buf b = {0};
    lbs_err e = lbs_grid_family_ini(fam, P, C, I, 10, 10, &b);
    if (!e) e = lbs_config_parse_string(spec, (const char *)b.data, out);
    lbs_buf_free(&b);
    return e;
  }
  char path[8192];
  if (spec[0] == '/') snprintf(path, sizeof path, "%s", spec);
  else snprintf(path, sizeof path, "%s/%s", s->dir, spec);
  return lbs_config_load(path, out);
}

/* The assignments of task t's overrides ("key=value"), into buf; pointers in ov. */
static void task_overrides(const study *s, const int *iov, char (*buf)[OVLEN], const char **ov) {
  for (int k = 0; k < s->nov; k++) {
    snprintf(buf[k], sizeof buf[k], "%s=%s", s->ov[k].name, s->ov[k].v[iov[k]]);
    ov[k] = buf[k];
  }
}

/* Reads and checks the study: every axis value must be usable (a trace opens, a grid loads
 * with every override value, a partitioner and a policy exist), before any work. */
static lbs_err study_load(const char *file, study *s) {
  memset(s, 0, sizeof *s);
  s->file = file;
  const char *slash = strrchr(file, '/');
  if (slash) snprintf(s->dir, sizeof s->dir, "%.*s", (int)(slash - file), file);
  else strcpy(s->dir, ".");
  lbs_config *cfg = NULL;
  lbs_err e = lbs_config_load(file, &cfg);
  if (!e) e = lbs_config_check(cfg, study_spec);
  const char *steps = "", *name = NULL;
  if (!e) e = lbs_config_string(cfg, study_spec, "study", "", "name", &name);
  if (!e && !(s->name = strdup(name))) e = lbs_fail(LBS_NOMEM, "study");
  /* the name is in the study's id and the default output paths: short, and safe in both */
  if (!e && (strlen(name) < 1 || strlen(name) > 40 || strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-") != strlen(name) || name[0] == '.'))
    e = lbs_fail(LBS_PARSE, "%s: name: '%s': 1 to 40 letters, digits, '_', '-' or '.' (not first)",
                 lbs_config_where(cfg, "study", "", "name"), name);
  for (int k = 0; !e && k < 4; k++) {
    const char *list;
    if ((e = lbs_config_string(cfg, study_spec, "study", "", AXIS[k], &list))) break;
    int r = split(&s->ax[k], AXIS[k], list);
    if (r == -1) e = lbs_fail(LBS_NOMEM, "study");
    else if (r == -2 || s->ax[k].n == 0)
      e = lbs_fail(LBS_PARSE, "%s: %s: %s", lbs_config_where(cfg, "study", "", AXIS[k]), AXIS[k],
                   r == -2 ? "more than 64 values" : "no values: the product is empty");
  }
  if (!e) e = lbs_config_string(cfg, study_spec, "study", "", "steps", &steps);
  if (!e) { /* parsed as [sim] steps is */
    lbs_replay_opts w;
    lbs_replay_opts_default(&w);
    if ((e = lbs_replay_opts_set(&w, "steps", steps)))
      e = lbs_fail(e, "%s: steps = %s", lbs_config_where(cfg, "study", "", "steps"), lbs_errmsg());
    s->first = w.first_step, s->nsteps = w.nsteps;
  }
  const char *key, *val;
  for (int i = 0; !e && lbs_config_entry(cfg, "overrides", "", i, &key, &val); i++) {
    if (s->nov == MAXOV) {
      e = lbs_fail(LBS_PARSE, "%s: %s: more than %d override keys", lbs_config_where(cfg, "overrides", "", key), key, MAXOV);
      break;
    }
    if (strlen(key) + 2 + strlen(val) >= OVLEN) {
      e = lbs_fail(LBS_PARSE, "%s: %s: longer than %d characters", lbs_config_where(cfg, "overrides", "", key), key, OVLEN - 1);
      break;
    }
    axis *nov = realloc(s->ov, (size_t)(s->nov + 1) * sizeof *nov);
    if (!nov) {
      e = lbs_fail(LBS_NOMEM, "study");
      break;
    }
    s->ov = nov;
    int r = split(&s->ov[s->nov++], key, val);
    if (r == -1) e = lbs_fail(LBS_NOMEM, "study");
    else if (r == -2 || s->ov[s->nov - 1].n == 0)
      e = lbs_fail(LBS_PARSE, "%s: %s: %s", lbs_config_where(cfg, "overrides", "", key), key,
                   r == -2 ? "more than 64 values" : "no values: the product is empty");
  }
  if (!e) {
    s->ntasks = 1; /* each factor is at most 64: the product is checked as it grows */
    for (int k = 0; k < 4 + s->nov && s->ntasks <= MAXTASKS; k++) s->ntasks *= k < 4 ? s->ax[k].n : s->ov[k - 4].n;
    if (s->ntasks > MAXTASKS)
      e = lbs_fail(LBS_RANGE, "%s: the study has more than %d tasks", file, MAXTASKS);
  }
  /* seeds: each generated trace once per seed (the trace axis grows; labels carry the seed) */
  const char *seeds = "";
  if (!e) e = lbs_config_string(cfg, study_spec, "study", "", "seeds", &seeds);
  if (!e && *seeds) {
    axis sd;
    int r = split(&sd, "seeds", seeds);
    long long n = (long long)s->ax[0].n * sd.n;
    if (r == -1) e = lbs_fail(LBS_NOMEM, "study");
    else if (r == -2 || sd.n == 0 || n > MAXV)
      e = lbs_fail(LBS_PARSE, "%s: seeds: %s", lbs_config_where(cfg, "study", "", "seeds"),
                   sd.n == 0 ? "no values: the product is empty" : "more than 64 traces x seeds");
    for (int j = 0; !e && j < sd.n; j++) {
      char *end;
      long long v = strtoll(sd.v[j], &end, 10);
      if (*end || v < 0) e = lbs_fail(LBS_PARSE, "%s: seeds: '%s' is not a whole number >= 0", lbs_config_where(cfg, "study", "", "seeds"), sd.v[j]);
    }
    for (int i = 0; !e && i < s->ax[0].n; i++) {
      lbs_gen_params gp;
      char kb[16];
      int hs;
      if (parse_gen(s->ax[0].v[i], &gp, kb, &hs) || hs)
        e = lbs_fail(LBS_PARSE, "%s: traces: '%s': with seeds, every trace is generated and names no seed of its own (gen:KIND:MESH:STEPS)",
                     lbs_config_where(cfg, "study", "", "traces"), s->ax[0].v[i]);
    }
    if (!e) { /* the expanded values, in one buffer: trace-major, seed-minor */
      size_t len = 0;
      for (int i = 0; i < s->ax[0].n; i++)
        for (int j = 0; j < sd.n; j++) len += strlen(s->ax[0].v[i]) + strlen(sd.v[j]) + 2;
      char *buf = s->expanded = malloc(len + 1), *vals[MAXV];
      int nv = 0;
      for (int i = 0; buf && i < s->ax[0].n; i++)
        for (int j = 0; j < sd.n; j++) {
          vals[nv++] = buf;
          buf += sprintf(buf, "%s:%s", s->ax[0].v[i], sd.v[j]) + 1;
        }
      if (!s->expanded) e = lbs_fail(LBS_NOMEM, "study");
      else {
        s->ntasks = s->ntasks / s->ax[0].n * nv;
        if (s->ntasks > MAXTASKS) e = lbs_fail(LBS_RANGE, "%s: the study has more than %d tasks", file, MAXTASKS);
        for (int k = 0; k < nv; k++) s->ax[0].v[k] = vals[k];
        s->ax[0].n = nv;
        s->has_seeds = 1;
      }
    }
    free(sd.name), free(sd.list);
  }
  /* traces: files must open, generators must be valid (the trace's steps against the window) */
  if (!e && (!(s->trace_path = calloc((size_t)s->ax[0].n, sizeof *s->trace_path)) ||
             !(s->gen = calloc((size_t)s->ax[0].n, sizeof *s->gen)) || !(s->gen_kinds = calloc((size_t)s->ax[0].n, 16))))
    e = lbs_fail(LBS_NOMEM, "study");
  for (int i = 0; !e && i < s->ax[0].n; i++) {
    const char *v = s->ax[0].v[i];
    if (!strncmp(v, "gen:", 4)) {
      int hs;
      lbs_gen *g = NULL;
      lbs_err ge = parse_gen(v, &s->gen[i], s->gen_kinds + 16 * i, &hs) ? LBS_PARSE : lbs_gen_create(&s->gen[i], &g);
      lbs_gen_destroy(&g);
      if (ge)
        e = lbs_fail(ge, "%s: traces: '%s': expected gen:KIND:NXxNYxNZ:STEPS[:SEED] with KIND bump, hotspot or random%s%s",
                     lbs_config_where(cfg, "study", "", "traces"), v, ge == LBS_PARSE ? "" : ": ", ge == LBS_PARSE ? "" : lbs_errmsg());
      else if (s->nsteps && s->first + s->nsteps > s->gen[i].steps)
        e = lbs_fail(LBS_PARSE, "%s: steps: %lld:%lld is past the end of trace '%s' (%lld steps)",
                     lbs_config_where(cfg, "study", "", "steps"), (long long)s->first, (long long)(s->first + s->nsteps), v,
                     (long long)s->gen[i].steps);
      continue;
    }
    char path[8192];
    if (v[0] == '/') snprintf(path, sizeof path, "%s", v);
    else snprintf(path, sizeof path, "%s/%s", s->dir, v);
    if (!(s->trace_path[i] = strdup(path))) {
      e = lbs_fail(LBS_NOMEM, "study");
      break;
    }
    lbs_trace *t = NULL;
    lbs_err te = lbs_trace_open(path, &t);
    if (te) e = lbs_fail(te, "%s: traces: '%s': %s", lbs_config_where(cfg, "study", "", "traces"), v, lbs_errmsg());
    else if (s->nsteps && s->first + s->nsteps > lbs_trace_steps(t))
      e = lbs_fail(LBS_PARSE, "%s: steps: %lld:%lld is past the end of trace '%s' (%lld steps)",
                   lbs_config_where(cfg, "study", "", "steps"), (long long)s->first, (long long)(s->first + s->nsteps), v,
                   (long long)lbs_trace_steps(t));
    lbs_trace_close(&t);
  }
  /* grids with every override value */
  for (int i = 0; !e && i < s->ax[1].n; i++) {
    lbs_config *g = NULL;
    lbs_err ge = grid_config(s, s->ax[1].v[i], &g);
    for (int k = 0; !ge && k < s->nov; k++)
      for (int j = 0; !ge && j < s->ov[k].n; j++) {
        char a[OVLEN];
        snprintf(a, sizeof a, "%s=%s", s->ov[k].name, s->ov[k].v[j]);
        if ((ge = lbs_config_override(g, a)))
          e = lbs_fail(ge, "%s: %s: %s", lbs_config_where(cfg, "overrides", "", s->ov[k].name), s->ov[k].name, lbs_errmsg());
      }
    lbs_grid *gr = NULL;
    if (!e && (ge || (ge = lbs_grid_from_config(g, &gr))))
      e = lbs_fail(ge, "%s: grids: '%s': %s", lbs_config_where(cfg, "study", "", "grids"), s->ax[1].v[i], lbs_errmsg());
    lbs_grid_destroy(&gr);
    lbs_config_destroy(&g);
  }
  for (int i = 0; !e && i < s->ax[2].n; i++) {
    lbs_partitioner *p = NULL;
    lbs_err pe = lbs_part_create(s->ax[2].v[i], NULL, MPI_COMM_SELF, &p);
    if (pe) e = lbs_fail(pe, "%s: partitioners: %s", lbs_config_where(cfg, "study", "", "partitioners"), lbs_errmsg());
    lbs_part_destroy(&p);
  }
  for (int i = 0; !e && i < s->ax[3].n; i++) {
    lbs_policy *p = NULL;
    lbs_err pe = lbs_policy_create(s->ax[3].v[i], &p);
    if (pe) e = lbs_fail(pe, "%s: policies: %s", lbs_config_where(cfg, "study", "", "policies"), lbs_errmsg());
    lbs_policy_destroy(&p);
  }
  lbs_config_destroy(&cfg);
  return e;
}

/* The study's id: a hash of the study file and of every trace's and grid file's bytes, so that
 * a changed input is a new study and never resumes an old one. */
static lbs_err study_id(study *s, char *file_hash) {
  lbs_buf b = {0};
  char h[65];
  lbs_err e = lbs_file_sha256(s->file, file_hash);
  if (!e) e = lbs_buf_append(&b, file_hash, 64);
  if (!e) e = lbs_buf_append(&b, LBSIM_VERSION, strlen(LBSIM_VERSION) + 1); /* another lbsim: another study */
  for (int i = 0; !e && i < s->ax[0].n; i++)
    if (s->gen[i].kind) e = lbs_buf_append(&b, s->ax[0].v[i], strlen(s->ax[0].v[i]));
    else if (!(e = lbs_file_sha256(s->trace_path[i], h))) e = lbs_buf_append(&b, h, 64);
  for (int i = 0; !e && i < s->ax[1].n; i++) { /* each grid as it resolves (a gen: one, a file's keys) */
    lbs_config *g = NULL;
    if (!(e = grid_config(s, s->ax[1].v[i], &g))) e = lbs_config_dump(g, &b);
    lbs_config_destroy(&g);
    const char *v = s->ax[1].v[i];
    char path[8192];
    if (e || !strncmp(v, "gen:", 4)) continue;
    if (v[0] == '/') snprintf(path, sizeof path, "%s", v);
    else snprintf(path, sizeof path, "%s/%s", s->dir, v);
    if (!(e = lbs_file_sha256(path, h))) e = lbs_buf_append(&b, h, 64);
  }
  if (!e) e = lbs_sha256_hex(b.data, b.len, h);
  if (!e) snprintf(s->id, sizeof s->id, "sweep-%s-%.16s", s->name, h);
  lbs_buf_free(&b);
  return e;
}

/* The axes as a JSON object (studies.axes) and a task's values (runs.labels), as text; NULL
 * when out of memory. */
static char *json_axes(const study *s) {
  json_t *o = json_object();
  int bad = !o;
  for (int k = 0; !bad && k < 4 + s->nov; k++) {
    const axis *a = k < 4 ? &s->ax[k] : &s->ov[k - 4];
    json_t *v = json_array();
    bad = lbs_json_set(o, k < 4 ? LABEL[k] : a->name, json_incref(v));
    for (int i = 0; !bad && i < a->n; i++) bad = json_array_append_new(v, lbs_json_str(a->v[i]));
    json_decref(v);
  }
  char *txt = bad ? NULL : lbs_json_dumps(o, LBS_JSON_COMPACT, LBS_JSON_EXACT);
  json_decref(o);
  return txt;
}

static char *json_labels(const study *s, const int *i4, const int *iov) {
  json_t *o = json_object();
  int bad = !o;
  for (int k = 0; !bad && k < 4 + s->nov; k++) {
    bad = lbs_json_set(o, k < 4 ? LABEL[k] : s->ov[k - 4].name,
                       lbs_json_str(k < 4 ? s->ax[k].v[i4[k]] : s->ov[k - 4].v[iov[k - 4]]));
    if (!bad && k == 0 && s->has_seeds)
      bad = lbs_json_set(o, "seed", json_integer((json_int_t)s->gen[i4[0]].seed));
  }
  char *txt = bad ? NULL : lbs_json_dumps(o, LBS_JSON_COMPACT, LBS_JSON_EXACT);
  json_decref(o);
  return txt;
}

typedef struct {
  MPI_Win win;
  int64_t *counters; /* rank 0: next task, tasks done */
  cli_progress *bar;
  int64_t done_before; /* resumed */
} farm;

static int64_t fetch_add(farm *fm, int which, int64_t add) {
  int64_t old = 0;
  MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, fm->win);
  MPI_Fetch_and_op(&add, &old, MPI_INT64_T, 0, which, add ? MPI_SUM : MPI_NO_OP, fm->win);
  MPI_Win_unlock(0, fm->win);
  return old;
}

/* rank 0's replay progress: the bar counts every rank's finished tasks */
static int farm_progress(void *arg, int64_t done, int64_t total) {
  (void)done, (void)total;
  farm *fm = arg;
  cli_progress_update(fm->bar, fm->done_before + fetch_add(fm, 1, 0));
  return 0;
}

/* Runs task t on this rank alone and appends it to the store. */
static lbs_err run_task(const study *s, int64_t t, lbs_trace *const *traces, const char *results, const lbs_prov_study *cs,
                        farm *fm, int rank) {
  int i4[4], iov[MAXOV];
  task_axes(s, t, i4, iov);
  char ovbuf[MAXOV][OVLEN];
  const char *ov[MAXOV];
  task_overrides(s, iov, ovbuf, ov);
  lbs_config *cfg = NULL;
  lbs_grid *g = NULL;
  lbs_replay_result *r = NULL;
  lbs_replay_opts o;
  lbs_replay_opts_default(&o);
  lbs_err e = grid_config(s, s->ax[1].v[i4[1]], &cfg);
  for (int k = 0; !e && k < s->nov; k++) e = lbs_config_override(cfg, ov[k]);
  if (!e) e = lbs_grid_from_config(cfg, &g);
  if (!e) e = lbs_replay_opts_from_config(cfg, &o);
  if (!e) {
    o.partitioner = s->ax[2].v[i4[2]];
    o.policy = s->ax[3].v[i4[3]];
    if (s->nsteps) o.first_step = s->first, o.nsteps = s->nsteps; /* else [sim] steps, the grid's or an override's */
    o.cfg = cfg;
    if (rank == 0 && fm->bar->on) o.progress = farm_progress, o.progress_arg = fm;
    e = lbs_replay(traces[i4[0]], g, &o, MPI_COMM_SELF, &r);
  }
  if (!e) {
    lbs_prov_run ri;
    char gpath[8192];
    const char *gv = s->ax[1].v[i4[1]];
    if (!strncmp(gv, "gen:", 4) || gv[0] == '/') snprintf(gpath, sizeof gpath, "%s", gv);
    else snprintf(gpath, sizeof gpath, "%s/%s", s->dir, gv);
    lbs_prov_run_init(&ri, s->trace_path[i4[0]], strncmp(gv, "gen:", 4) ? gpath : NULL, cfg, ov, s->nov, o.cost);
    if (!strncmp(gv, "gen:", 4)) ri.info.grid = gv;
    char *labels = json_labels(s, i4, iov);
    ri.info.labels = labels;
    ri.info.task = t;
    e = lbs_results_save_study(results, &cs->info, &r, &ri.info, 1, NULL);
    free(labels);
    lbs_prov_run_free(&ri);
  }
  lbs_replay_result_free(&r);
  lbs_grid_destroy(&g);
  lbs_config_destroy(&cfg);
  return e;
}


static const char *MEASURES[] = {"total_time_s", "compute_time_s", "comm_time_s", "partition_time_s", "migration_time_s",
                                 "repartitions", "mean_imbalance", "max_imbalance", "mean_loadimb", "moved_elements"};
#define NMEASURES (sizeof MEASURES / sizeof *MEASURES)

/* The tidy CSV from the store: the study's runs in task order, a row per measure. */
static int write_tidy(const study *s, const char *results, const char *csv) {
  lbs_results *h;
  const lbs_results_run *runs = NULL;
  int64_t nruns = 0;
  /* the study's runs in task order (none in a schema-1 store whose every task failed: never
     upgraded, it holds none of the study) */
  lbs_err e = lbs_results_open(results, &h);
  if (!e) e = lbs_results_runs(h, s->id, LBS_RESULTS_BY_STUDY, &runs, &nruns);
  if (e) {
    lbs_results_close(&h);
    return cli_error("sweep", e);
  }
  char tmp[4200];
  FILE *f = NULL;
  if (snprintf(tmp, sizeof tmp, "%s.tmp-%ld", csv, (long)getpid()) >= (int)sizeof tmp)
    fprintf(stderr, "lbsim: sweep: %s: path too long\n", csv);
  else if (!(f = fopen(tmp, "w")))
    fprintf(stderr, "lbsim: sweep: %s: cannot write: %s\n", tmp, strerror(errno));
  if (!f) {
    lbs_results_close(&h);
    return 1;
  }
  fprintf(f, "study,task");
  for (int k = 0; k < 4; k++) fprintf(f, ",%s%s", LABEL[k], k == 0 && s->has_seeds ? ",seed" : "");
  for (int k = 0; k < s->nov; k++) {
    fputc(',', f);
    lbs_csv_field(f, s->ov[k].name);
  }
  fprintf(f, ",measure,value\n");
  for (int64_t i = 0, last = -1; i < nruns; i++) {
    const lbs_results_run *r = &runs[i];
    int64_t t = r->task == LBS_RESULTS_NONE ? 0 : r->task; /* a NULL reads as 0, as it did */
    if (t == last) continue; /* one run per task (two ranks never run the same task) */
    last = t;
    int i4[4], iov[MAXOV];
    task_axes(s, t, i4, iov);
    /* MEASURES' values in its order, a NULL as 0 */
    int64_t reps = r->repartitions, moved = r->moved_elements;
    double v[NMEASURES] = {r->total_time_s,      r->compute_time_s,
                           r->comm_time_s,       r->partition_time_s,
                           r->migration_time_s,  reps == LBS_RESULTS_NONE ? 0 : (double)reps,
                           r->mean_imbalance,    r->max_imbalance,
                           r->mean_loadimb,      moved == LBS_RESULTS_NONE ? 0 : (double)moved};
    for (size_t m = 0; m < NMEASURES; m++) {
      lbs_csv_field(f, s->id);
      fprintf(f, ",%lld", (long long)t);
      for (int k = 0; k < 4 + s->nov; k++) {
        fputc(',', f);
        lbs_csv_field(f, k < 4 ? s->ax[k].v[i4[k]] : s->ov[k - 4].v[iov[k - 4]]);
        if (k == 0 && s->has_seeds) fprintf(f, ",%llu", (unsigned long long)s->gen[i4[0]].seed);
      }
      fprintf(f, ",%s,%.9g\n", MEASURES[m], isnan(v[m]) ? 0 : v[m]);
    }
  }
  lbs_results_close(&h);
  errno = 0;
  int bad = ferror(f) || fflush(f);
  if (fclose(f)) bad = 1;
  if (bad || cli_replace_output(csv, 1) || rename(tmp, csv)) {
    fprintf(stderr, "lbsim: sweep: %s: write failed: %s\n", csv,
            errno ? strerror(errno) : "I/O error");
    unlink(tmp);
    return 1;
  }
  return 0;
}

int cmd_sweep(int argc, char **argv) {
  enum { O_RESULTS = 1000, O_CSV, O_DRY };
  static const struct option lo[] = {{"results", required_argument, 0, O_RESULTS}, {"csv", required_argument, 0, O_CSV},
                                     {"dry-run", no_argument, 0, O_DRY}, {"force", no_argument, 0, 'f'},
                                     {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
  const char *results = NULL, *csv = NULL;
  int force = 0, dry = 0, c;
  optind = 1;
  while ((c = getopt_long(argc, argv, "fh", lo, NULL)) != -1) {
    switch (c) {
    case O_RESULTS: results = optarg; break;
    case O_CSV: csv = optarg; break;
    case O_DRY: dry = 1; break;
    case 'f': force = 1; break;
    case 'h': usage(); return 0;
    default: return cli_usage("sweep", "bad option");
    }
  }
  if (optind != argc - 1) return cli_usage("sweep", "expected one study file");
  const char *file = argv[optind];
  MPI_Init(NULL, NULL);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  study s;
  char file_hash[65] = "", dbname[4200], csvname[4200];
  /* every rank reads the same study: the same tasks, the same errors */
  lbs_err e = study_load(file, &s);
  if (!e) e = study_id(&s, file_hash);
  /* the ranks must agree (another node may miss a file, or see another one) */
  char id0[96];
  memcpy(id0, s.id, sizeof id0);
  MPI_Bcast(id0, (int)sizeof id0, MPI_CHAR, 0, MPI_COMM_WORLD);
  int why = e ? 1 : strcmp(id0, s.id) ? 2 : 0, worst = why, why0 = why;
  MPI_Allreduce(MPI_IN_PLACE, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Bcast(&why0, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (worst) { /* rank 0 says why; another rank only what rank 0 could not know */
    if (why == 1 && (rank == 0 || why0 != 1)) {
      char what[32];
      snprintf(what, sizeof what, rank ? "sweep (rank %d)" : "sweep", rank);
      cli_error(what, e);
    } else if (why == 2)
      fprintf(stderr, "lbsim: sweep: rank %d sees another study than rank 0 (%s, not %s): its files differ\n", rank, s.id, id0);
    study_free(&s);
    free(s.name);
    MPI_Finalize();
    return 1;
  }
  snprintf(dbname, sizeof dbname, "%s.db", s.name);
  snprintf(csvname, sizeof csvname, "%s.csv", s.name);
  if (!results) results = dbname;
  if (!csv) csv = csvname;
  uint8_t *done = calloc((size_t)s.ntasks, 1);
  int bad = !done;
  if (dry) {
    if (rank == 0) {
      printf("study %s: %lld tasks\n", s.id, (long long)s.ntasks);
      for (int64_t t = 0; t < s.ntasks; t++) {
        int i4[4], iov[MAXOV];
        task_axes(&s, t, i4, iov);
        printf("  %4lld  %s  %s  %s  %s", (long long)t, s.ax[0].v[i4[0]], s.ax[1].v[i4[1]], s.ax[2].v[i4[2]], s.ax[3].v[i4[3]]);
        for (int k = 0; k < s.nov; k++) printf("  %s=%s", s.ov[k].name, s.ov[k].v[iov[k]]);
        printf("\n");
      }
    }
    free(done);
    study_free(&s);
    free(s.name);
    MPI_Finalize();
    return 0;
  }
  /* the outputs before the work, and what the store holds of this study already */
  int64_t ndone = 0;
  if (rank == 0 && !bad) {
    bad = cli_check_output(results, CLI_OUT_APPEND) || cli_check_output(csv, force ? CLI_OUT_FORCE : CLI_OUT_APPEND);
    if (!bad && !force && access(csv, F_OK) == 0) { /* the CSV is ours to rewrite only when it is this study's */
      FILE *f = fopen(csv, "r");
      char head[512] = "", line[512] = "";
      int ours = f && fgets(head, sizeof head, f) && !strncmp(head, "study,task,", 11) &&
                 (!fgets(line, sizeof line, f) || !strncmp(line, s.id, strlen(s.id)));
      if (f) fclose(f);
      if (!ours) {
        fprintf(stderr, "lbsim: sweep: %s: exists and is not this study's tidy CSV (use --force to replace it)\n", csv);
        bad = 1;
      }
    }
    if (!bad && access(results, F_OK) == 0) { /* checked whole once here, not at every task's write */
      struct stat sb;
      lbs_err de = stat(results, &sb) == 0 && sb.st_size == 0 ? LBS_OK : lbs_results_check(results);
      if (!de) de = lbs_results_study_tasks(results, s.id, done, s.ntasks);
      if (de) bad = cli_error("sweep", de);
    }
    /* the CSV is written over only when it is not the store */
    struct stat a, b;
    if (!bad && (!strcmp(csv, results) ||
                 (stat(csv, &a) == 0 && stat(results, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino))) {
      fprintf(stderr, "lbsim: sweep: %s: the tidy CSV would replace the results store\n", csv);
      bad = 1;
    }
    for (int64_t t = 0; t < s.ntasks; t++) ndone += done[t];
  }
  /* generated traces: made once by rank 0 beside the store (RESULTS.traces/), kept for a
   * resume, each written whole under a temporary name and renamed */
  char gdir[4300];
  snprintf(gdir, sizeof gdir, "%s.traces", results);
  for (int i = 0; !bad && i < s.ax[0].n; i++) {
    if (!s.gen[i].kind) continue;
    char path[8192];
    snprintf(path, sizeof path, "%s/%s.lbt", gdir, s.ax[0].v[i]);
    for (char *c = path + strlen(gdir) + 1; *c; c++)
      if (*c == ':' || *c == '/') *c = '_';
    if (!(s.trace_path[i] = strdup(path))) bad = 1;
    if (rank != 0 || bad || access(path, F_OK) == 0) continue;
    struct stat sb;
    if (mkdir(gdir, 0777) && errno != EEXIST) {
      fprintf(stderr, "lbsim: sweep: %s: %s\n", gdir, strerror(errno));
      bad = 1;
    } else if (stat(gdir, &sb) || !S_ISDIR(sb.st_mode)) {
      fprintf(stderr, "lbsim: sweep: %s: not a directory (the study's generated traces go there)\n", gdir);
      bad = 1;
    }
    char tmp[8300];
    snprintf(tmp, sizeof tmp, "%s.tmp-%ld", path, (long)getpid());
    fprintf(stderr, "lbsim: sweep: generating %s\n", path);
    lbs_err ge = bad ? LBS_OK : lbs_gen_write(&s.gen[i], LBS_ORDER_NATURAL, tmp, NULL, NULL);
    if (ge || (!bad && rename(tmp, path))) {
      if (ge) cli_error("sweep", ge);
      else fprintf(stderr, "lbsim: sweep: %s: %s\n", path, strerror(errno));
      unlink(tmp);
      bad = 1;
    }
  }
  /* rank 0's checks, any rank's memory */
  bad = lbs_mpi_agree(MPI_COMM_WORLD, bad ? LBS_IO : LBS_OK) != LBS_OK;
  if (!bad) MPI_Bcast(done, (int)s.ntasks, MPI_UINT8_T, 0, MPI_COMM_WORLD);
  if (bad) {
    free(done);
    study_free(&s);
    free(s.name);
    MPI_Finalize();
    return 1;
  }
  lbs_prov_study cs;
  lbs_prov_study_init(&cs, "sweep", s.id);
  char *axes = json_axes(&s);
  cs.info.file = file;
  cs.info.file_hash = file_hash;
  cs.info.axes = axes;
  cs.info.tasks = s.ntasks;
  cs.info.checked = 1;
  if (rank == 0) {
    fprintf(stderr, "lbsim: sweep: study %s: %lld tasks", s.id, (long long)s.ntasks);
    if (ndone) fprintf(stderr, ", %lld done already (resuming)", (long long)ndone);
    fprintf(stderr, ", on %d rank%s\n", size, size > 1 ? "s" : "");
  }
  /* each rank's traces, opened once */
  lbs_trace **traces = calloc((size_t)s.ax[0].n, sizeof *traces);
  e = traces ? LBS_OK : lbs_fail(LBS_NOMEM, "traces");
  for (int i = 0; !e && i < s.ax[0].n; i++) e = lbs_trace_open(s.trace_path[i], &traces[i]);
  farm fm = {0};
  cli_progress bar;
  cli_progress_start(&bar, "sweep", rank == 0 ? s.ntasks : 0);
  fm.bar = &bar;
  fm.done_before = ndone;
  bar.base = ndone; /* the ETA from this run's pace, not the resumed tasks' */
  MPI_Win_allocate(rank == 0 ? 2 * (MPI_Aint)sizeof(int64_t) : 0, sizeof(int64_t), MPI_INFO_NULL, MPI_COMM_WORLD,
                   &fm.counters, &fm.win);
  if (rank == 0) {
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, fm.win);
    fm.counters[0] = fm.counters[1] = 0;
    MPI_Win_unlock(0, fm.win);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  int failed = e != LBS_OK;
  if (e) cli_error("sweep", e);
  cli_progress_update(&bar, ndone);
  while (!e) {
    int64_t t = fetch_add(&fm, 0, 1);
    if (t >= s.ntasks) break;
    if (done[t]) continue;
    lbs_err te = run_task(&s, t, traces, results, &cs, &fm, rank);
    if (te) { /* said now; the others go on, and a restart retries this one */
      int i4[4], iov[MAXOV];
      task_axes(&s, t, i4, iov);
      fprintf(stderr, "lbsim: sweep: task %lld (%s, %s, %s, %s): %s\n", (long long)t, s.ax[0].v[i4[0]], s.ax[1].v[i4[1]],
              s.ax[2].v[i4[2]], s.ax[3].v[i4[3]], lbs_errmsg());
      failed++;
      if (te == LBS_IO || te == LBS_DB || te == LBS_CORRUPT || te == LBS_FORMAT || te == LBS_VERSION) break; /* the store */
      continue;
    }
    int64_t d = fetch_add(&fm, 1, 1) + 1;
    if (rank == 0) cli_progress_update(&bar, ndone + d);
  }
  MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  double wall = MPI_Wtime() - t0;
  if (rank == 0) cli_progress_update(&bar, ndone + fetch_add(&fm, 1, 0));
  cli_progress_end(&bar);
  MPI_Win_free(&fm.win);
  int rc = failed ? 1 : 0;
  if (rank == 0) {
    int csv_bad = write_tidy(&s, results, csv);
    printf("sweep %s: %lld tasks (%lld resumed) in %.3f s on %d rank%s: results in %s, tidy CSV in %s\n", s.id,
           (long long)s.ntasks, (long long)ndone, wall, size, size > 1 ? "s" : "", results, csv);
    if (failed) fprintf(stderr, "lbsim: sweep: %d task%s failed; run the sweep again to retry them\n", failed, failed > 1 ? "s" : "");
    rc = rc || csv_bad;
  }
  rc = lbs_mpi_agree(MPI_COMM_WORLD, rc ? LBS_IO : LBS_OK) ? 1 : 0; /* rank 0's tidy CSV too */
  for (int i = 0; traces && i < s.ax[0].n; i++) lbs_trace_close(&traces[i]);
  free(traces);
  free(axes);
  free(done);
  study_free(&s);
  free(s.name);
  MPI_Finalize();
  return rc;
}
