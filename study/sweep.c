/* sweep.c - a what-if study (lbsim sweep, docs/sweep.md): the study file read into an
 * lbs_sweep and checked, its tasks and their axis values, its id, its generated traces, and the
 * task farm over an MPI communicator.
 *
 * The farm: rank 0 hands out task numbers in messages, answering between its own replay's steps
 * (farm_loop); each rank replays its task alone (MPI_COMM_SELF: a replay's answer does not depend
 * on the rank count) and appends the run to the store in its own transaction (SQLite's lock
 * serialises the ranks). The requests say how many tasks are done, for rank 0's progress.
 * Resumable: the study's id is a hash of what it is made of, and the tasks the store holds are
 * skipped. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lbs_grid.h"
#include "lbs_json.h"
#include "lbs_mpi.h"
#include "lbs_part.h"
#include "lbs_policy.h"
#include "lbs_sweep.h"

#ifndef LBSIM_VERSION
#define LBSIM_VERSION "0.1.0"
#endif

const char *const lbs_sweep_axis_key[4] = {"traces", "grids", "partitioners", "policies"};
const char *const lbs_sweep_axis_label[4] = {"trace", "grid", "partitioner", "policy"};

static const lbs_opt study_opts[] = {
    {"name", LBS_OPT_STRING, "study", 0, -1,
     "the study's name: default outputs NAME.db and NAME-csv/"},
    {"traces", LBS_OPT_STRING, NULL, 0, -1,
     "trace files, comma-separated (relative to the study file)"},
    {"grids", LBS_OPT_STRING, NULL, 0, -1, "grid files or gen:FAMILY:P:C:I specs, comma-separated"},
    {"partitioners", LBS_OPT_STRING, "zoltan:rcb", 0, -1, "partitioners, comma-separated"},
    {"policies", LBS_OPT_STRING, "none", 0, -1, "policies, comma-separated"},
    {"steps", LBS_OPT_STRING, "", 0, -1,
     "A:B: replay trace steps A..B-1 (default: [sim] steps, else all)"},
    {"seeds", LBS_OPT_STRING, "", 0, -1,
     "seeds of the generated traces (gen:...), comma-separated: one more axis"},
    {NULL, 0, NULL, 0, 0, NULL}};
static const lbs_section_spec study_spec[] = {
    {"study", 0, 1, study_opts, "the study's axes"},
    {"overrides", 0, 0, NULL,
     "grid keys (SECTION.KEY = v1, v2, ...): one value sets, several are an axis"},
    {NULL, 0, 0, NULL, NULL}};

/* ---------------------------------------------------------------- the study file */

/* A comma-separated list into a: the values trimmed, empty ones dropped. -1 out of memory, -2
 * more than LBS_SWEEP_MAXV values. */
static int split(lbs_sweep_axis *a, const char *name, const char *list) {
  a->name = strdup(name);
  a->list = strdup(list);
  a->n = 0;
  if (!a->name || !a->list) return -1;
  for (char *save, *tok = strtok_r(a->list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
    while (*tok == ' ' || *tok == '\t') tok++;
    char *end = tok + strlen(tok);
    while (end > tok && (end[-1] == ' ' || end[-1] == '\t')) *--end = 0;
    if (!*tok) continue;
    if (a->n == LBS_SWEEP_MAXV) return -2;
    a->v[a->n++] = tok;
  }
  return 0;
}

/* split, and an axis must have 1 to LBS_SWEEP_MAXV values: the error names key's line. */
static lbs_err split_axis(lbs_sweep_axis *a, const char *name, const char *list,
                          const lbs_config *cfg, const char *section) {
  int r = split(a, name, list);
  if (r == -1) return lbs_fail(LBS_NOMEM, "study");
  if (r == -2 || a->n == 0)
    return lbs_fail(LBS_PARSE, "%s: %s: %s", lbs_config_where(cfg, section, "", name), name,
                    r == -2 ? "more than 64 values" : "no values: the product is empty");
  return LBS_OK;
}

void lbs_sweep_free(lbs_sweep *s) {
  for (int i = 0; i < 4; i++) free(s->ax[i].name), free(s->ax[i].list);
  for (int i = 0; i < s->nov; i++) free(s->ov[i].name), free(s->ov[i].list);
  free(s->ov);
  for (int i = 0; s->trace_path && i < s->ax[0].n; i++) free(s->trace_path[i]);
  free(s->trace_path);
  free(s->gen);
  free(s->gen_kinds);
  free(s->expanded);
  free(s->name);
  memset(s, 0, sizeof *s);
}

/* "gen:KIND:NXxNYxNZ:STEPS[:SEED]" ('lbsim trace gen' with its defaults) into p; kind points
 * into kbuf (16 bytes). *has_seed: the spec names its seed. */
static int parse_gen(const char *spec, lbs_gen_params *p, char *kbuf, int *has_seed) {
  char mesh[64], num[2][32] = {"", ""}, extra;
  int64_t nx = 0, ny = 1, nz = 1, steps = 0, seed = 1;
  memset(p, 0, sizeof *p);
  /* the numbers as text, each read strictly: sscanf's %lld would take an overflow as the
   * largest number (a seed silently changed) */
  int n = sscanf(spec, "gen:%15[a-z]:%63[0-9x]:%31[0-9]:%31[0-9]%c", kbuf, mesh, num[0], num[1],
                 &extra);
  if (n < 3 || n > 4 || lbs_parse_i64(num[0], 1, INT64_MAX, &steps) ||
      (n == 4 && lbs_parse_i64(num[1], 0, INT64_MAX, &seed)))
    return -1;
  if (strlen(spec) !=
      (size_t)snprintf(NULL, 0, "gen:%s:%s:%s%s%s", kbuf, mesh, num[0], n == 4 ? ":" : "", num[1]))
    return -1; /* something after the steps other than :SEED */
  char *part[3] = {mesh, NULL, NULL}, *x = mesh;
  for (int k = 1; k < 3 && (x = strchr(x, 'x')); k++) *x++ = '\0', part[k] = x;
  if ((x && strchr(x, 'x')) || lbs_parse_i64(part[0], 1, INT64_MAX, &nx) ||
      (part[1] && lbs_parse_i64(part[1], 1, INT64_MAX, &ny)) ||
      (part[2] && lbs_parse_i64(part[2], 1, INT64_MAX, &nz)))
    return -1;
  *has_seed = n == 4;
  *p = (lbs_gen_params){kbuf, nx, ny, nz, steps, (uint64_t)seed, {0, 0, 0}};
  return 0;
}

/* A trace's or grid's file: relative to the study's directory unless absolute. */
static void value_path(const lbs_sweep *s, const char *spec, char *path, size_t len) {
  if (spec[0] == '/')
    snprintf(path, len, "%s", spec);
  else
    snprintf(path, len, "%s/%s", s->dir, spec);
}

/* A grid file relative to the study, or a gen: spec, as a configuration. */
static lbs_err grid_config(const lbs_sweep *s, const char *spec, lbs_config **out) {
  if (!strncmp(spec, "gen:", 4)) {
    char fam[16];
    int P, C;
    double I;
    char tail;
    if (sscanf(spec + 4, "%15[^:]:%d:%d:%lf%c", fam, &P, &C, &I, &tail) != 4 || P < 1 || C < 1 ||
        I < 1)
      return lbs_fail(
          LBS_PARSE,
          "grid '%s': expected gen:FAMILY:P:C:I (HO|UP|DN, processors, clusters, slowdown >= 1)",
          spec);
    lbs_buf b = {0};
    lbs_err e = lbs_grid_family_ini(fam, P, C, I, 10, 10, &b);
    if (!e) e = lbs_config_parse_string(spec, (const char *)b.data, out);
    lbs_buf_free(&b);
    return e;
  }
  char path[8192];
  value_path(s, spec, path, sizeof path);
  return lbs_config_load(path, out);
}

/* [study] name: in the study's id and the default output paths, so short, and safe in both. */
static lbs_err load_name(lbs_sweep *s, const lbs_config *cfg) {
  static const char safe[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-";
  const char *name = NULL;
  lbs_err e = lbs_config_string(cfg, study_spec, "study", "", "name", &name);
  if (!e && !(s->name = strdup(name))) e = lbs_fail(LBS_NOMEM, "study");
  if (!e && (strlen(name) < 1 || strlen(name) > 40 || strspn(name, safe) != strlen(name) ||
             name[0] == '.'))
    e = lbs_fail(LBS_PARSE, "%s: name: '%s': 1 to 40 letters, digits, '_', '-' or '.' (not first)",
                 lbs_config_where(cfg, "study", "", "name"), name);
  return e;
}

/* The four axes, then [study] steps as [sim] steps reads it. */
static lbs_err load_axes(lbs_sweep *s, const lbs_config *cfg) {
  lbs_err e = LBS_OK;
  for (int k = 0; !e && k < 4; k++) {
    const char *list;
    if (!(e = lbs_config_string(cfg, study_spec, "study", "", lbs_sweep_axis_key[k], &list)))
      e = split_axis(&s->ax[k], lbs_sweep_axis_key[k], list, cfg, "study");
  }
  const char *steps = "";
  if (!e) e = lbs_config_string(cfg, study_spec, "study", "", "steps", &steps);
  if (!e) {
    lbs_replay_opts w;
    lbs_replay_opts_default(&w);
    if ((e = lbs_replay_opts_set(&w, "steps", steps)))
      e = lbs_fail(e, "%s: steps = %s", lbs_config_where(cfg, "study", "", "steps"), lbs_errmsg());
    s->first = w.first_step, s->nsteps = w.nsteps;
  }
  return e;
}

/* [overrides]: each key an axis of its values (one value: a setting). */
static lbs_err load_overrides(lbs_sweep *s, const lbs_config *cfg) {
  const char *key, *val;
  lbs_err e = LBS_OK;
  for (int i = 0; !e && lbs_config_entry(cfg, "overrides", "", i, &key, &val); i++) {
    const char *where = lbs_config_where(cfg, "overrides", "", key);
    if (s->nov == LBS_SWEEP_MAXOV)
      return lbs_fail(LBS_PARSE, "%s: %s: more than %d override keys", where, key, LBS_SWEEP_MAXOV);
    if (strlen(key) + 2 + strlen(val) >= LBS_SWEEP_OVLEN)
      return lbs_fail(LBS_PARSE, "%s: %s: longer than %d characters", where, key,
                      LBS_SWEEP_OVLEN - 1);
    lbs_sweep_axis *nov = realloc(s->ov, (size_t)(s->nov + 1) * sizeof *nov);
    if (!nov) return lbs_fail(LBS_NOMEM, "study");
    s->ov = nov;
    e = split_axis(&s->ov[s->nov++], key, val, cfg, "overrides");
  }
  return e;
}

/* The product of the axes, bounded (each factor is at most 64: checked as it grows). */
static lbs_err count_tasks(lbs_sweep *s) {
  s->ntasks = 1;
  for (int k = 0; k < 4 + s->nov && s->ntasks <= LBS_SWEEP_MAXTASKS; k++)
    s->ntasks *= k < 4 ? s->ax[k].n : s->ov[k - 4].n;
  if (s->ntasks > LBS_SWEEP_MAXTASKS)
    return lbs_fail(LBS_RANGE, "%s: the study has more than %d tasks", s->file, LBS_SWEEP_MAXTASKS);
  return LBS_OK;
}

/* The trace values with their seeds, trace-major and seed-minor, in one buffer. */
static lbs_err expand_seeds(lbs_sweep *s, const lbs_sweep_axis *sd) {
  size_t len = 0;
  for (int i = 0; i < s->ax[0].n; i++)
    for (int j = 0; j < sd->n; j++) len += strlen(s->ax[0].v[i]) + strlen(sd->v[j]) + 2;
  char *buf = s->expanded = malloc(len + 1), *vals[LBS_SWEEP_MAXV];
  if (!buf) return lbs_fail(LBS_NOMEM, "study");
  int nv = 0;
  for (int i = 0; i < s->ax[0].n; i++)
    for (int j = 0; j < sd->n; j++) {
      vals[nv++] = buf;
      buf += sprintf(buf, "%s:%s", s->ax[0].v[i], sd->v[j]) + 1;
    }
  s->ntasks = s->ntasks / s->ax[0].n * nv;
  lbs_err e = LBS_OK;
  if (s->ntasks > LBS_SWEEP_MAXTASKS)
    e = lbs_fail(LBS_RANGE, "%s: the study has more than %d tasks", s->file, LBS_SWEEP_MAXTASKS);
  for (int k = 0; k < nv; k++) s->ax[0].v[k] = vals[k];
  s->ax[0].n = nv;
  s->has_seeds = 1;
  return e;
}

/* The seeds' values, and every trace a gen: spec without a seed of its own. */
static lbs_err check_seeds(const lbs_sweep *s, const lbs_sweep_axis *sd, int r,
                           const lbs_config *cfg) {
  if (r == -1) return lbs_fail(LBS_NOMEM, "study");
  if (r == -2 || sd->n == 0 || (long long)s->ax[0].n * sd->n > LBS_SWEEP_MAXV)
    return lbs_fail(LBS_PARSE, "%s: seeds: %s", lbs_config_where(cfg, "study", "", "seeds"),
                    sd->n == 0 ? "no values: the product is empty" : "more than 64 traces x seeds");
  for (int j = 0; j < sd->n; j++) {
    char *end;
    long long v = strtoll(sd->v[j], &end, 10);
    if (*end || v < 0)
      return lbs_fail(LBS_PARSE, "%s: seeds: '%s' is not a whole number >= 0",
                      lbs_config_where(cfg, "study", "", "seeds"), sd->v[j]);
  }
  for (int i = 0; i < s->ax[0].n; i++) {
    lbs_gen_params gp;
    char kb[16];
    int hs;
    if (parse_gen(s->ax[0].v[i], &gp, kb, &hs) || hs)
      return lbs_fail(
          LBS_PARSE,
          "%s: traces: '%s': with seeds, every trace is generated and names no seed of its own "
          "(gen:KIND:MESH:STEPS)",
          lbs_config_where(cfg, "study", "", "traces"), s->ax[0].v[i]);
  }
  return LBS_OK;
}

/* [study] seeds: each generated trace once per seed (the trace axis grows; labels carry the seed).
 */
static lbs_err load_seeds(lbs_sweep *s, const lbs_config *cfg) {
  const char *seeds = "";
  lbs_err e = lbs_config_string(cfg, study_spec, "study", "", "seeds", &seeds);
  if (e || !*seeds) return e;
  lbs_sweep_axis sd;
  int r = split(&sd, "seeds", seeds);
  e = check_seeds(s, &sd, r, cfg);
  if (!e) e = expand_seeds(s, &sd);
  free(sd.name), free(sd.list);
  return e;
}

/* The step window past the end of a trace of `steps` steps. */
static lbs_err past_end(const lbs_sweep *s, const lbs_config *cfg, const char *trace,
                        int64_t steps) {
  return lbs_fail(LBS_PARSE, "%s: steps: %lld:%lld is past the end of trace '%s' (%lld steps)",
                  lbs_config_where(cfg, "study", "", "steps"), (long long)s->first,
                  (long long)(s->first + s->nsteps), trace, (long long)steps);
}

/* Trace value i: a gen: spec makes a generator, a file opens; the window fits. */
static lbs_err check_trace(lbs_sweep *s, const lbs_config *cfg, int i) {
  const char *v = s->ax[0].v[i];
  if (!strncmp(v, "gen:", 4)) {
    int hs;
    lbs_gen *g = NULL;
    lbs_err ge = parse_gen(v, &s->gen[i], s->gen_kinds + 16 * i, &hs)
                     ? LBS_PARSE
                     : lbs_gen_create(&s->gen[i], &g);
    lbs_gen_destroy(&g);
    if (ge)
      return lbs_fail(ge,
                      "%s: traces: '%s': expected gen:KIND:NXxNYxNZ:STEPS[:SEED] with KIND bump, "
                      "hotspot or random%s%s",
                      lbs_config_where(cfg, "study", "", "traces"), v, ge == LBS_PARSE ? "" : ": ",
                      ge == LBS_PARSE ? "" : lbs_errmsg());
    if (s->nsteps && s->first + s->nsteps > s->gen[i].steps)
      return past_end(s, cfg, v, s->gen[i].steps);
    return LBS_OK;
  }
  char path[8192];
  value_path(s, v, path, sizeof path);
  if (!(s->trace_path[i] = strdup(path))) return lbs_fail(LBS_NOMEM, "study");
  lbs_trace *t = NULL;
  lbs_err e = lbs_trace_open(path, &t);
  if (e)
    e = lbs_fail(e, "%s: traces: '%s': %s", lbs_config_where(cfg, "study", "", "traces"), v,
                 lbs_errmsg());
  else if (s->nsteps && s->first + s->nsteps > lbs_trace_steps(t))
    e = past_end(s, cfg, v, lbs_trace_steps(t));
  lbs_trace_close(&t);
  return e;
}

/* Grid value i loads with every override value, and makes a grid. */
static lbs_err check_grid(const lbs_sweep *s, const lbs_config *cfg, int i) {
  lbs_config *g = NULL;
  lbs_err e = LBS_OK, ge = grid_config(s, s->ax[1].v[i], &g);
  for (int k = 0; !ge && k < s->nov; k++)
    for (int j = 0; !ge && j < s->ov[k].n; j++) {
      char a[LBS_SWEEP_OVLEN];
      snprintf(a, sizeof a, "%s=%s", s->ov[k].name, s->ov[k].v[j]);
      if ((ge = lbs_config_override(g, a)))
        e = lbs_fail(ge, "%s: %s: %s", lbs_config_where(cfg, "overrides", "", s->ov[k].name),
                     s->ov[k].name, lbs_errmsg());
    }
  lbs_grid *gr = NULL;
  if (!e && (ge || (ge = lbs_grid_from_config(g, &gr))))
    e = lbs_fail(ge, "%s: grids: '%s': %s", lbs_config_where(cfg, "study", "", "grids"),
                 s->ax[1].v[i], lbs_errmsg());
  lbs_grid_destroy(&gr);
  lbs_config_destroy(&g);
  return e;
}

/* Every trace, grid, partitioner and policy of the study. */
static lbs_err check_values(lbs_sweep *s, const lbs_config *cfg) {
  int n = s->ax[0].n;
  if (!(s->trace_path = calloc((size_t)n, sizeof *s->trace_path)) ||
      !(s->gen = calloc((size_t)n, sizeof *s->gen)) || !(s->gen_kinds = calloc((size_t)n, 16)))
    return lbs_fail(LBS_NOMEM, "study");
  lbs_err e = LBS_OK;
  for (int i = 0; !e && i < n; i++) e = check_trace(s, cfg, i);
  for (int i = 0; !e && i < s->ax[1].n; i++) e = check_grid(s, cfg, i);
  for (int i = 0; !e && i < s->ax[2].n; i++) {
    lbs_partitioner *p = NULL;
    lbs_err pe = lbs_part_create(s->ax[2].v[i], NULL, MPI_COMM_SELF, &p);
    if (pe)
      e = lbs_fail(pe, "%s: partitioners: %s", lbs_config_where(cfg, "study", "", "partitioners"),
                   lbs_errmsg());
    lbs_part_destroy(&p);
  }
  for (int i = 0; !e && i < s->ax[3].n; i++) {
    lbs_policy *p = NULL;
    lbs_err pe = lbs_policy_create(s->ax[3].v[i], &p);
    if (pe)
      e = lbs_fail(pe, "%s: policies: %s", lbs_config_where(cfg, "study", "", "policies"),
                   lbs_errmsg());
    lbs_policy_destroy(&p);
  }
  return e;
}

/* The study's id: a hash of the study file and of every trace's and grid file's bytes, so that
 * a changed input is a new study and never resumes an old one. */
static lbs_err study_id(lbs_sweep *s) {
  lbs_buf b = {0};
  char h[65];
  lbs_err e = lbs_file_sha256(s->file, s->file_hash);
  if (!e) e = lbs_buf_append(&b, s->file_hash, 64);
  if (!e)
    e = lbs_buf_append(&b, LBSIM_VERSION,
                       strlen(LBSIM_VERSION) + 1); /* another lbsim: another study */
  for (int i = 0; !e && i < s->ax[0].n; i++)
    if (s->gen[i].kind)
      e = lbs_buf_append(&b, s->ax[0].v[i], strlen(s->ax[0].v[i]));
    else if (!(e = lbs_file_sha256(s->trace_path[i], h)))
      e = lbs_buf_append(&b, h, 64);
  for (int i = 0; !e && i < s->ax[1].n;
       i++) { /* each grid as it resolves (a gen: one, a file's keys) */
    lbs_config *g = NULL;
    if (!(e = grid_config(s, s->ax[1].v[i], &g))) e = lbs_config_dump(g, &b);
    lbs_config_destroy(&g);
    const char *v = s->ax[1].v[i];
    char path[8192];
    if (e || !strncmp(v, "gen:", 4)) continue;
    value_path(s, v, path, sizeof path);
    if (!(e = lbs_file_sha256(path, h))) e = lbs_buf_append(&b, h, 64);
  }
  if (!e) e = lbs_sha256_hex(b.data, b.len, h);
  if (!e) snprintf(s->id, sizeof s->id, "sweep-%s-%.16s", s->name, h);
  lbs_buf_free(&b);
  return e;
}

lbs_err lbs_sweep_load(lbs_sweep *s, const char *file) {
  memset(s, 0, sizeof *s);
  s->file = file;
  const char *slash = strrchr(file, '/');
  if (slash)
    snprintf(s->dir, sizeof s->dir, "%.*s", (int)(slash - file), file);
  else
    strcpy(s->dir, ".");
  lbs_config *cfg = NULL;
  lbs_err e = lbs_config_load(file, &cfg);
  if (!e) e = lbs_config_check(cfg, study_spec);
  if (!e) e = load_name(s, cfg);
  if (!e) e = load_axes(s, cfg);
  if (!e) e = load_overrides(s, cfg);
  if (!e) e = count_tasks(s);
  if (!e) e = load_seeds(s, cfg);
  if (!e) e = check_values(s, cfg);
  lbs_config_destroy(&cfg);
  if (!e) e = study_id(s);
  return e;
}

lbs_err lbs_sweep_agree(const lbs_sweep *s, lbs_err e, MPI_Comm comm, int *tell) {
  int rank;
  MPI_Comm_rank(comm, &rank);
  char id0[sizeof s->id];
  memcpy(id0, s->id, sizeof id0);
  MPI_Bcast(id0, (int)sizeof id0, MPI_CHAR, 0, comm);
  int why = e ? 1 : strcmp(id0, s->id) ? 2 : 0, worst = why, why0 = why;
  MPI_Allreduce(MPI_IN_PLACE, &worst, 1, MPI_INT, MPI_MAX, comm);
  MPI_Bcast(&why0, 1, MPI_INT, 0, comm);
  *tell = 0;
  if (!worst) return LBS_OK;
  /* rank 0 says why; another rank only what rank 0 could not know */
  if (why == 1) {
    *tell = rank == 0 || why0 != 1;
    return e;
  }
  if (why == 2) {
    *tell = 1;
    return lbs_fail(LBS_INVAL,
                    "rank %d sees another study than rank 0 (%s, not %s): its files differ", rank,
                    s->id, id0);
  }
  return lbs_fail(LBS_INVAL, "another rank could not load the study");
}

/* ---------------------------------------------------------------- tasks */

void lbs_sweep_task_axes(const lbs_sweep *s, int64_t t, int *ax4, int *iov) {
  for (int k = s->nov - 1; k >= 0; k--) iov[k] = (int)(t % s->ov[k].n), t /= s->ov[k].n;
  for (int k = 3; k >= 0; k--) ax4[k] = (int)(t % s->ax[k].n), t /= s->ax[k].n;
}

void lbs_sweep_task_overrides(const lbs_sweep *s, int64_t t, char (*buf)[LBS_SWEEP_OVLEN],
                              const char **ov) {
  int i4[4], iov[LBS_SWEEP_MAXOV];
  lbs_sweep_task_axes(s, t, i4, iov);
  for (int k = 0; k < s->nov; k++) {
    snprintf(buf[k], sizeof buf[k], "%s=%s", s->ov[k].name, s->ov[k].v[iov[k]]);
    ov[k] = buf[k];
  }
}

char *lbs_sweep_axes_json(const lbs_sweep *s) {
  json_t *o = json_object();
  int bad = !o;
  for (int k = 0; !bad && k < 4 + s->nov; k++) {
    const lbs_sweep_axis *a = k < 4 ? &s->ax[k] : &s->ov[k - 4];
    json_t *v = json_array();
    bad = lbs_json_set(o, k < 4 ? lbs_sweep_axis_label[k] : a->name, json_incref(v));
    for (int i = 0; !bad && i < a->n; i++) bad = json_array_append_new(v, lbs_json_str(a->v[i]));
    json_decref(v);
  }
  char *txt = bad ? NULL : lbs_json_dumps(o, LBS_JSON_COMPACT);
  json_decref(o);
  return txt;
}

char *lbs_sweep_labels_json(const lbs_sweep *s, int64_t t) {
  int i4[4], iov[LBS_SWEEP_MAXOV];
  lbs_sweep_task_axes(s, t, i4, iov);
  json_t *o = json_object();
  int bad = !o;
  for (int k = 0; !bad && k < 4 + s->nov; k++) {
    bad = lbs_json_set(o, k < 4 ? lbs_sweep_axis_label[k] : s->ov[k - 4].name,
                       lbs_json_str(k < 4 ? s->ax[k].v[i4[k]] : s->ov[k - 4].v[iov[k - 4]]));
    if (!bad && k == 0 && s->has_seeds)
      bad = lbs_json_set(o, "seed", json_integer((json_int_t)s->gen[i4[0]].seed));
  }
  char *txt = bad ? NULL : lbs_json_dumps(o, LBS_JSON_COMPACT);
  json_decref(o);
  return txt;
}

lbs_err lbs_sweep_done(const lbs_sweep *s, const char *results, uint8_t *done, int64_t *ndone) {
  *ndone = 0;
  if (access(results, F_OK)) return LBS_OK; /* no store yet */
  struct stat sb;                           /* an empty file is a store yet to be made */
  lbs_err e = stat(results, &sb) == 0 && sb.st_size == 0 ? LBS_OK : lbs_results_check(results);
  if (!e) e = lbs_results_study_tasks(results, s->id, done, s->ntasks);
  for (int64_t t = 0; !e && t < s->ntasks; t++) *ndone += done[t];
  return e;
}

/* Makes the generated trace of recipe p at path: whole under a temporary name, then renamed. */
static lbs_err generate(const lbs_gen_params *p, const char *gdir, const char *path) {
  struct stat sb;
  if (mkdir(gdir, 0777) && errno != EEXIST)
    return lbs_fail(LBS_IO, "%s: %s", gdir, strerror(errno));
  if (stat(gdir, &sb) || !S_ISDIR(sb.st_mode))
    return lbs_fail(LBS_IO, "%s: not a directory (the study's generated traces go there)", gdir);
  char tmp[8300];
  snprintf(tmp, sizeof tmp, "%s.tmp-%ld", path, (long)getpid());
  lbs_err e = lbs_gen_write(p, LBS_ORDER_NATURAL, tmp, NULL, NULL);
  if (!e && rename(tmp, path)) e = lbs_fail(LBS_IO, "%s: %s", path, strerror(errno));
  if (e) unlink(tmp);
  return e;
}

lbs_err lbs_sweep_inputs(lbs_sweep *s, const char *results, int make, lbs_progress_fn note,
                         void *note_arg) {
  char gdir[4300];
  snprintf(gdir, sizeof gdir, "%s.traces", results);
  for (int i = 0; i < s->ax[0].n; i++) {
    if (!s->gen[i].kind) continue;
    char path[8192];
    snprintf(path, sizeof path, "%s/%s.lbt", gdir, s->ax[0].v[i]);
    for (char *c = path + strlen(gdir) + 1; *c; c++)
      if (*c == ':' || *c == '/') *c = '_';
    free(s->trace_path[i]);
    if (!(s->trace_path[i] = strdup(path))) return lbs_fail(LBS_NOMEM, "study");
    if (!make || access(path, F_OK) == 0) continue; /* made by an earlier run: a resume */
    if (note) note(note_arg, i, s->ax[0].n);
    lbs_err e = generate(&s->gen[i], gdir, path);
    if (e) return e;
  }
  return LBS_OK;
}

/* Task t's run to the store: its provenance, task number and labels. */
static lbs_err save_task(const lbs_sweep *s, int64_t t, const lbs_config *cfg,
                         const char *const *ov, int cost, lbs_replay_result *r, const char *results,
                         const lbs_study_info *si) {
  int i4[4], iov[LBS_SWEEP_MAXOV];
  lbs_sweep_task_axes(s, t, i4, iov);
  const char *gv = s->ax[1].v[i4[1]];
  int gen = !strncmp(gv, "gen:", 4);
  char gpath[8192];
  if (gen)
    snprintf(gpath, sizeof gpath, "%s", gv);
  else
    value_path(s, gv, gpath, sizeof gpath);
  lbs_prov_run ri;
  lbs_prov_run_init(&ri, s->trace_path[i4[0]], gen ? NULL : gpath, cfg, ov, s->nov, cost);
  if (gen) ri.info.grid = gv;
  char *labels = lbs_sweep_labels_json(s, t);
  ri.info.labels = labels;
  ri.info.task = t;
  lbs_err e = lbs_results_save_study(results, si, &r, &ri.info, 1, NULL);
  free(labels);
  lbs_prov_run_free(&ri);
  return e;
}

lbs_err lbs_sweep_task(const lbs_sweep *s, int64_t t, lbs_trace *trace, const char *results,
                       const lbs_study_info *si, lbs_progress_fn progress, void *progress_arg) {
  int i4[4], iov[LBS_SWEEP_MAXOV];
  lbs_sweep_task_axes(s, t, i4, iov);
  char ovbuf[LBS_SWEEP_MAXOV][LBS_SWEEP_OVLEN];
  const char *ov[LBS_SWEEP_MAXOV];
  lbs_sweep_task_overrides(s, t, ovbuf, ov);
  lbs_config *cfg = NULL;
  lbs_grid *g = NULL;
  lbs_replay_result *r = NULL;
  lbs_replay_opts o;
  lbs_replay_opts_default(&o);
  /* as a session loads: the grid, the overrides in order, [sim]; then the task's own axes */
  lbs_err e = grid_config(s, s->ax[1].v[i4[1]], &cfg);
  for (int k = 0; !e && k < s->nov; k++) e = lbs_config_override(cfg, ov[k]);
  if (!e) e = lbs_grid_from_config(cfg, &g);
  if (!e) e = lbs_replay_opts_from_config(cfg, &o);
  if (!e) {
    o.partitioner = s->ax[2].v[i4[2]];
    o.policy = s->ax[3].v[i4[3]];
    if (s->nsteps)
      o.first_step = s->first,
      o.nsteps = s->nsteps; /* else [sim] steps, the grid's or an override's */
    o.cfg = cfg;
    o.progress = progress, o.progress_arg = progress_arg;
    e = lbs_replay(trace, g, &o, MPI_COMM_SELF, &r);
  }
  if (!e) e = save_task(s, t, cfg, ov, (int)o.cost, r, results, si);
  lbs_replay_result_free(&r);
  lbs_grid_destroy(&g);
  lbs_config_destroy(&cfg);
  return e;
}

/* ---------------------------------------------------------------- the farm */

typedef struct farm {
  const lbs_sweep *s;
  lbs_sweep_farm *f;
  MPI_Comm comm; /* a duplicate of the sweep's: the farm's messages apart from any other */
  int rank, size;
  int64_t next, done; /* rank 0: the next task to hand out; tasks finished on every rank */
  int left;           /* rank 0: the other ranks that take no more tasks */
  int64_t resumed;
  char first_msg[1024]; /* this rank's first failure's message */
} farm;

/* The farm's messages: a rank asks rank 0 (FARM_ASK: how many tasks it finished since it last
 * asked, and 1 for another task or 0 when it leaves), rank 0 answers with a task (FARM_TASK;
 * the study's task count or more: none left). Rank 0 works too, and answers between its replay's
 * steps (farm_progress) and its tasks: no RMA window, whose atomics Open MPI cannot give across
 * nodes over TCP (MPI_Win_allocate fails there: osc/pt2pt wants MPI_THREAD_MULTIPLE and osc/rdma
 * an RDMA network), and no progress thread. */
enum { FARM_ASK = 1, FARM_TASK = 2 };

/* Rank 0: answers every request that has arrived. */
static void serve(farm *fm) {
  for (;;) {
    int flag;
    MPI_Status st;
    MPI_Iprobe(MPI_ANY_SOURCE, FARM_ASK, fm->comm, &flag, &st);
    if (!flag) return;
    int64_t msg[2], t;
    MPI_Recv(msg, 2, MPI_INT64_T, st.MPI_SOURCE, FARM_ASK, fm->comm, MPI_STATUS_IGNORE);
    fm->done += msg[0];
    if (!msg[1]) {
      fm->left++;
      continue;
    }
    t = fm->next++;
    if (t >= fm->s->ntasks) fm->left++; /* told there is none: it leaves */
    MPI_Send(&t, 1, MPI_INT64_T, st.MPI_SOURCE, FARM_TASK, fm->comm);
  }
}

/* The next task for this rank; a rank other than 0 tells rank 0 the tasks it finished since. */
static int64_t next_task(farm *fm, int64_t finished) {
  if (fm->rank == 0) {
    serve(fm);
    return fm->next++;
  }
  int64_t msg[2] = {finished, 1}, t;
  MPI_Send(msg, 2, MPI_INT64_T, 0, FARM_ASK, fm->comm);
  MPI_Recv(&t, 1, MPI_INT64_T, 0, FARM_TASK, fm->comm, MPI_STATUS_IGNORE);
  return t;
}

/* Rank 0's progress: every rank's finished tasks. Between its replay's steps it answers the
 * others too. */
static int farm_progress(void *arg, int64_t done, int64_t total) {
  (void)done, (void)total;
  farm *fm = arg;
  serve(fm);
  return fm->f->progress
             ? fm->f->progress(fm->f->progress_arg, fm->resumed + fm->done, fm->s->ntasks)
             : 0;
}

/* Errors of the store: the rank that meets one takes no more tasks. */
static int store_error(lbs_err e) {
  return e == LBS_IO || e == LBS_DB || e == LBS_CORRUPT || e == LBS_FORMAT || e == LBS_VERSION;
}

/* This rank's tasks until none is left; its failures, the first one in *first. Rank 0 then
 * answers the others until each has left. */
static int farm_loop(farm *fm, const uint8_t *done, lbs_trace *const *traces, const char *results,
                     const lbs_study_info *si, lbs_err *first) {
  const lbs_sweep *s = fm->s;
  int failures = 0, watch = fm->rank == 0 && fm->f->progress, told = 0;
  int64_t finished = 0;
  for (;;) {
    int64_t t = next_task(fm, finished);
    finished = 0;
    if (t >= s->ntasks) {
      told = 1;
      break;
    }
    if (done[t]) continue;
    int i4[4], iov[LBS_SWEEP_MAXOV];
    lbs_sweep_task_axes(s, t, i4, iov);
    lbs_err e = lbs_sweep_task(s, t, traces[i4[0]], results, si,
                               fm->rank == 0 && (fm->size > 1 || watch) ? farm_progress : NULL, fm);
    if (e) { /* told now; the others go on, and a restart retries this one */
      if (!failures++)
        *first = e, snprintf(fm->first_msg, sizeof fm->first_msg, "%s", lbs_errmsg());
      if (fm->f->failed) fm->f->failed(fm->f->failed_arg, s, t, e);
      if (store_error(e)) break;
      continue;
    }
    if (fm->rank)
      finished = 1;
    else if (fm->done++, watch)
      fm->f->progress(fm->f->progress_arg, fm->resumed + fm->done, s->ntasks);
  }
  if (fm->rank && !told) { /* leaving early (a store error): rank 0 stops waiting for it */
    int64_t msg[2] = {finished, 0};
    MPI_Send(msg, 2, MPI_INT64_T, 0, FARM_ASK, fm->comm);
  }
  while (fm->rank == 0 && fm->left < fm->size - 1) {
    MPI_Probe(MPI_ANY_SOURCE, FARM_ASK, fm->comm, MPI_STATUS_IGNORE);
    serve(fm);
    if (watch) fm->f->progress(fm->f->progress_arg, fm->resumed + fm->done, s->ntasks);
  }
  return failures;
}

/* The study's row in the store, for every task's run. */
static void study_row(const lbs_sweep *s, lbs_prov_study *cs, char *axes) {
  lbs_prov_study_init(cs, "sweep", s->id);
  cs->info.file = s->file;
  cs->info.file_hash = s->file_hash;
  cs->info.axes = axes;
  cs->info.tasks = s->ntasks;
  cs->info.checked = 1; /* lbs_sweep_done read it whole */
}

/* Each of the study's traces, opened once on this rank. */
static lbs_err open_traces(const lbs_sweep *s, lbs_trace ***out) {
  lbs_trace **traces = *out = calloc((size_t)s->ax[0].n, sizeof *traces);
  lbs_err e = traces ? LBS_OK : lbs_fail(LBS_NOMEM, "traces");
  for (int i = 0; !e && i < s->ax[0].n; i++) e = lbs_trace_open(s->trace_path[i], &traces[i]);
  return e;
}

lbs_err lbs_sweep_run(const lbs_sweep *s, const char *results, uint8_t *done, MPI_Comm comm,
                      lbs_sweep_farm *f) {
  farm fm = {.s = s, .f = f};
  MPI_Comm_rank(comm, &fm.rank);
  MPI_Bcast(done, (int)s->ntasks, MPI_UINT8_T, 0, comm);
  for (int64_t t = 0; t < s->ntasks; t++) fm.resumed += done[t];
  f->resumed = fm.resumed;
  lbs_prov_study cs;
  char *axes = lbs_sweep_axes_json(s);
  study_row(s, &cs, axes);
  lbs_trace **traces = NULL;
  lbs_err first = open_traces(s, &traces);
  int failures = first != LBS_OK;
  if (first) snprintf(fm.first_msg, sizeof fm.first_msg, "%s", lbs_errmsg());
  if (first && f->failed) f->failed(f->failed_arg, s, -1, first);
  MPI_Comm_size(comm, &fm.size);
  MPI_Comm_dup(comm, &fm.comm);
  MPI_Barrier(comm);
  double t0 = MPI_Wtime();
  if (fm.rank == 0 && f->progress) f->progress(f->progress_arg, fm.resumed, s->ntasks);
  if (!first)
    failures = farm_loop(&fm, done, traces, results, &cs.info, &first);
  else if (fm.rank) { /* no task for this rank: it leaves at once */
    int64_t msg[2] = {0, 0};
    MPI_Send(msg, 2, MPI_INT64_T, 0, FARM_ASK, fm.comm);
  } else
    while (fm.left < fm.size - 1) {
      MPI_Probe(MPI_ANY_SOURCE, FARM_ASK, fm.comm, MPI_STATUS_IGNORE);
      serve(&fm);
    }
  MPI_Allreduce(&failures, &f->failures, 1, MPI_INT, MPI_SUM, comm);
  f->wall_s = MPI_Wtime() - t0;
  if (fm.rank == 0 && f->progress) f->progress(f->progress_arg, fm.resumed + fm.done, s->ntasks);
  MPI_Comm_free(&fm.comm);
  for (int i = 0; traces && i < s->ax[0].n; i++) lbs_trace_close(&traces[i]);
  free(traces);
  free(axes);
  if (first) lbs_fail(first, "%s", fm.first_msg);
  return lbs_mpi_agree(comm, first);
}

/* ---------------------------------------------------------------- the tidy CSV */

static const char *MEASURES[] = {
    "total_time_s", "compute_time_s", "comm_time_s",   "partition_time_s", "migration_time_s",
    "repartitions", "mean_imbalance", "max_imbalance", "mean_loadimb",     "moved_elements"};
#define NMEASURES (sizeof MEASURES / sizeof *MEASURES)

/* The header: study, task, the axes (a seed after the trace when seeds are an axis), measure,
 * value. */
static void tidy_header(FILE *f, const lbs_sweep *s) {
  fprintf(f, "study,task");
  for (int k = 0; k < 4; k++)
    fprintf(f, ",%s%s", lbs_sweep_axis_label[k], k == 0 && s->has_seeds ? ",seed" : "");
  for (int k = 0; k < s->nov; k++) {
    fputc(',', f);
    lbs_csv_field(f, s->ov[k].name);
  }
  fprintf(f, ",measure,value\n");
}

/* The rows of run r (task t), a row per measure; a NULL value reads as 0, as it always did. */
static void tidy_rows(FILE *f, const lbs_sweep *s, int64_t t, const lbs_results_run *r) {
  int i4[4], iov[LBS_SWEEP_MAXOV];
  lbs_sweep_task_axes(s, t, i4, iov);
  int64_t reps = r->repartitions, moved = r->moved_elements;
  double v[NMEASURES] = {r->total_time_s,     r->compute_time_s,
                         r->comm_time_s,      r->partition_time_s,
                         r->migration_time_s, reps == LBS_RESULTS_NONE ? 0 : (double)reps,
                         r->mean_imbalance,   r->max_imbalance,
                         r->mean_loadimb,     moved == LBS_RESULTS_NONE ? 0 : (double)moved};
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

/* The study's runs in task order, one per task, into f. */
static void tidy_write(FILE *f, const lbs_sweep *s, const lbs_results_run *runs, int64_t nruns) {
  tidy_header(f, s);
  for (int64_t i = 0, last = -1; i < nruns; i++) {
    int64_t t =
        runs[i].task == LBS_RESULTS_NONE ? 0 : runs[i].task; /* a NULL reads as 0, as it did */
    if (t == last) continue; /* one run per task (two ranks never run the same task) */
    last = t;
    tidy_rows(f, s, t, &runs[i]);
  }
}

/* Renames tmp onto csv, which may be a regular file or a link (the link is replaced, not what it
 * points to), never anything else. */
static int tidy_replace(const char *tmp, const char *csv) {
  struct stat sb;
  if (lstat(csv, &sb) == 0 && !S_ISREG(sb.st_mode) && !S_ISLNK(sb.st_mode)) {
    errno = S_ISDIR(sb.st_mode) ? EISDIR : EINVAL;
    return -1;
  }
  return rename(tmp, csv);
}

lbs_err lbs_sweep_write_tidy(const lbs_sweep *s, const char *results, const char *csv) {
  lbs_results *h = NULL;
  const lbs_results_run *runs = NULL;
  int64_t nruns = 0;
  /* the study's runs in task order (none in a schema-1 store whose every task failed: never
     upgraded, it holds none of the study) */
  lbs_err e = lbs_results_open(results, &h);
  if (!e) e = lbs_results_runs(h, s->id, LBS_RESULTS_BY_STUDY, &runs, &nruns);
  char tmp[4200];
  FILE *f = NULL;
  if (!e && snprintf(tmp, sizeof tmp, "%s.tmp-%ld", csv, (long)getpid()) >= (int)sizeof tmp)
    e = lbs_fail(LBS_IO, "%s: path too long", csv);
  else if (!e && !(f = fopen(tmp, "w")))
    e = lbs_fail(LBS_IO, "%s: cannot write: %s", tmp, strerror(errno));
  if (e) return lbs_results_close(&h), e;
  tidy_write(f, s, runs, nruns);
  lbs_results_close(&h);
  errno = 0;
  int bad = ferror(f) || fflush(f);
  if (fclose(f)) bad = 1;
  if (bad || tidy_replace(tmp, csv)) {
    e = lbs_fail(LBS_IO, "%s: write failed: %s", csv, errno ? strerror(errno) : "I/O error");
    unlink(tmp);
  }
  return e;
}
