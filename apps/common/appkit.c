/* appkit.c - the contract's shared parts (appkit.h). */
#include "appkit.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

void app_init(app *a, const char *name, MPI_Comm comm) {
  memset(a, 0, sizeof *a);
  a->name = name, a->comm = comm;
  MPI_Comm_rank(comm, &a->rank);
  MPI_Comm_size(comm, &a->size);
}

void app_error(const app *a, const char *fmt, ...) {
  if (a->rank != 0) return;
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "%s: ", a->name);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  fflush(stderr);
}

int app_agree(const app *a, int bad) {
  int any = bad != 0;
  MPI_Allreduce(MPI_IN_PLACE, &any, 1, MPI_INT, MPI_MAX, a->comm);
  return any;
}

int app_opt(const app *a, int argc, char **argv, int *i, const char *name, const char **value) {
  const char *arg = argv[*i];
  size_t n = strlen(name);
  if (strncmp(arg, name, n)) return 0;
  if (arg[n] == '=') {
    *value = arg + n + 1;
    return 1;
  }
  if (arg[n]) return 0;
  if (*i + 1 >= argc) {
    app_error(a, "%s: needs a value (see --help)", name);
    return -1;
  }
  *value = argv[++*i];
  return 1;
}

int app_common_arg(app *a, int argc, char **argv, int *i) {
  static const char *names[] = {"--trace", "--schedule", "--policy", "--json", "--part-sizes"};
  const char **dst[] = {&a->trace, &a->schedule, &a->policy, &a->json, &a->part_sizes};
  for (int k = 0; k < 5; k++) {
    int r = app_opt(a, argc, argv, i, names[k], dst[k]);
    if (r) return r;
  }
  return 0;
}

int app_int(const app *a, const char *opt, const char *text, long long lo, long long hi,
            long long *out) {
  char *end;
  errno = 0;
  long long v = strtoll(text, &end, 10);
  if (end == text || *end || errno) {
    app_error(a, "%s %s: not a whole number", opt, text);
    return -1;
  }
  if (v < lo || v > hi) {
    app_error(a, "%s %s: must be in %lld..%lld", opt, text, lo, hi);
    return -1;
  }
  *out = v;
  return 0;
}

int app_double(const app *a, const char *opt, const char *text, double lo, double hi, double *out) {
  char *end;
  errno = 0;
  double v = strtod(text, &end);
  if (end == text || *end || errno || !isfinite(v)) {
    app_error(a, "%s %s: not a number", opt, text);
    return -1;
  }
  if (!(v > lo && v < hi)) {
    app_error(a, "%s %s: must lie in (%g, %g)", opt, text, lo, hi);
    return -1;
  }
  *out = v;
  return 0;
}

void app_fmt_double(char *buf, size_t len, double v) {
  if (!buf || len < 2) return;
  for (int prec = 1; prec <= 17; prec++) {
    snprintf(buf, len, "%.*g", prec, v);
    if (strtod(buf, NULL) == v) return;
  }
}

double app_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* ---------------------------------------------------------------- schedules and policies */

int app_sched_create(const app *a, app_sched *s, int64_t steps) {
  memset(s, 0, sizeof *s);
  s->steps = steps, s->P = a->size;
  if (a->schedule && a->policy) {
    app_error(a,
              "--schedule and --policy: give one of them (--schedule LIST is --policy steps:LIST)");
    return -1;
  }
  const char *spec = a->policy;
  char *owned = NULL;
  if (a->schedule) {
    size_t n = strlen(a->schedule) + 8;
    if (!(owned = malloc(n))) {
      app_error(a, "--schedule: out of memory");
      return -1;
    }
    snprintf(owned, n, "steps:%s", a->schedule);
    spec = owned;
  }
  const char *opt = a->schedule ? "--schedule" : "--policy";
  const char *val = a->schedule ? a->schedule : a->policy;
  if (!spec || !strcmp(spec, "none")) return free(owned), 0;
  const lbs_policy_ops *ops = lbs_policy_find(spec); /* what it needs of a run, by its flags */
  if (ops && (ops->flags & (LBS_POLICY_PLANS_AHEAD | LBS_POLICY_NAVIGATES))) {
    app_error(
        a,
        "--policy %s: needs to look ahead over the whole run, which only the simulator can; choose the "
        "schedule with `lbsim replay TRACE --policy %s` and run it here with --schedule",
        spec, spec);
    free(owned);
    return -1;
  }
  if (ops && (ops->flags & LBS_POLICY_RECORDED)) {
    app_error(a,
              "--policy %s: replays the assignments a trace recorded, which only the simulator "
              "reads (`lbsim replay TRACE --policy %s`); an application chooses its own here",
              spec, spec);
    free(owned);
    return -1;
  }
  int bad = 0;
  if (a->rank == 0) {
    lbs_err e = lbs_policy_create(spec, &s->pol);
    if (!e) { /* the window is known now: steps:LIST checks its steps against it */
      int64_t zero = 0, *load = calloc((size_t)a->size, sizeof *load);
      lbs_loadview v = {.steps = steps, .procs = a->size, .load_ns = load ? load : &zero};
      int rep;
      if (!load && a->size > 1)
        e = lbs_fail(LBS_NOMEM, "loads");
      else
        e = lbs_policy_decide(s->pol, &v, &rep);
      free(load);
    }
    if (e) {
      app_error(a, "%s %s: %s", opt, val, lbs_errmsg());
      bad = 1;
    }
  }
  free(owned);
  MPI_Bcast(&bad, 1, MPI_INT, 0, a->comm);
  if (bad) {
    app_sched_free(s);
    return -1;
  }
  s->active = 1;
  s->load_ns = calloc((size_t)a->size, sizeof *s->load_ns);
  s->gather = calloc((size_t)a->size * 2, sizeof *s->gather);
  s->step_ns = calloc((size_t)steps + 1, sizeof *s->step_ns);
  s->imb = calloc((size_t)steps + 1, sizeof *s->imb);
  s->excess_ns = calloc((size_t)steps + 1, sizeof *s->excess_ns);
  if (app_agree(a, !s->load_ns || !s->gather || !s->step_ns || !s->imb || !s->excess_ns)) {
    app_error(a, "%s: out of memory for %lld steps", opt, (long long)steps);
    app_sched_free(s);
    return -1;
  }
  return 0;
}

void app_sched_free(app_sched *s) {
  lbs_policy_destroy(&s->pol);
  free(s->load_ns), free(s->gather), free(s->step_ns), free(s->imb), free(s->excess_ns);
  memset(s, 0, sizeof *s);
}

double app_step_times(const app *a, int64_t S, const double *step_loc, const double *comp_loc,
                      double *step_s, double *comp_s, double *rank_comp) {
  double sum = 0, mine = 0;
  MPI_Reduce(step_loc, step_s, (int)S, MPI_DOUBLE, MPI_MAX, 0, a->comm);
  MPI_Reduce(comp_loc, comp_s, (int)S, MPI_DOUBLE, MPI_MAX, 0, a->comm);
  for (int64_t k = 0; k < S; k++) sum += comp_s[k], mine += comp_loc[k];
  MPI_Gather(&mine, 1, MPI_DOUBLE, rank_comp, 1, MPI_DOUBLE, 0, a->comm);
  return sum;
}

void app_sched_record(const app *a, app_sched *s, int64_t step, int64_t compute_ns,
                      int64_t step_ns) {
  if (!s->active || step < 0 || step >= s->steps) return;
  int64_t mine[2] = {compute_ns, step_ns}, *all = s->gather;
  MPI_Allgather(mine, 2, MPI_INT64_T, all, 2, MPI_INT64_T, a->comm);
  int64_t lmax = 0, smax = 0;
  double sum = 0;
  for (int r = 0; r < a->size; r++) {
    s->load_ns[r] = all[2 * r];
    lmax = all[2 * r] > lmax ? all[2 * r] : lmax;
    smax = all[2 * r + 1] > smax ? all[2 * r + 1] : smax;
    sum += (double)all[2 * r];
  }
  double avg = sum / a->size;
  s->step_ns[step] = smax;
  s->imb[step] = lmax > 0 ? ((double)lmax - avg) / (double)lmax : 0;
  s->excess_ns[step] = lmax - llround(avg);
}

int app_sched_decide(const app *a, app_sched *s, int64_t step) {
  if (!s->active || step < 1) return 0;
  int out[2] = {0, 0};
  if (a->rank == 0) {
    lbs_loadview v = {.step = step,
                      .steps = s->steps,
                      .since = step - s->last_step,
                      .procs = s->P,
                      .load_ns = s->load_ns,
                      .imbalance = s->imb[step - 1],
                      .step_ns = s->step_ns,
                      .past_imbalance = s->imb,
                      .past_excess_ns = s->excess_ns,
                      .last_repart_ns = s->last_repart_ns,
                      .est_repart_ns = s->est_repart_ns};
    lbs_err e = lbs_policy_decide(s->pol, &v, &out[0]);
    if (e) {
      app_error(a, "%s %s: before step %lld: %s", a->schedule ? "--schedule" : "--policy",
                a->schedule ? a->schedule : a->policy, (long long)step, lbs_errmsg());
      out[1] = 1;
    }
  }
  MPI_Bcast(out, 2, MPI_INT, 0, a->comm);
  return out[1] ? -1 : out[0] != 0;
}

void app_sched_repartitioned(app_sched *s, int64_t step, int64_t cost_ns) {
  s->last_step = step;
  s->last_repart_ns = cost_ns;
}

/* ---------------------------------------------------------------- JSON */

lbs_err app_buf_printf(lbs_buf *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (n < 0) return lbs_fail(LBS_INVAL, "format");
  lbs_err e = lbs_buf_reserve(b, (size_t)n + 1);
  if (e) return e;
  va_start(ap, fmt);
  vsnprintf((char *)b->data + b->len, (size_t)n + 1, fmt, ap);
  va_end(ap);
  b->len += (size_t)n;
  return LBS_OK;
}

lbs_err app_json_str(lbs_buf *b, const char *s) {
  lbs_err e = lbs_buf_append(b, "\"", 1);
  for (const unsigned char *c = (const unsigned char *)s; !e && *c; c++) {
    if (*c == '"' || *c == '\\')
      e = app_buf_printf(b, "\\%c", *c);
    else if (*c < 0x20)
      e = app_buf_printf(b, "\\u%04x", *c);
    else
      e = lbs_buf_append(b, c, 1);
  }
  return e ? e : lbs_buf_append(b, "\"", 1);
}

int app_check_output(const app *a, const char *opt, const char *path) {
  int bad = 0;
  if (a->rank == 0 && path && strcmp(path, "-")) {
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
      app_error(a, "%s %s: not a regular file", opt, path);
      bad = 1;
    } else if (lbs_parent_writable(path)) {
      app_error(a, "%s %s: %s", opt, path, lbs_errmsg());
      bad = 1;
    }
  }
  MPI_Bcast(&bad, 1, MPI_INT, 0, a->comm);
  return bad ? -1 : 0;
}

int app_write_json(const app *a, const char *path, const app_summary *s) {
  int bad = 0;
  if (a->rank == 0) {
    lbs_buf b = {0};
    lbs_err e = app_buf_printf(&b, "{\"app\":");
    if (!e) e = app_json_str(&b, a->name);
    if (!e)
      e = app_buf_printf(
          &b, ",\"ranks\":%d,\"steps\":%lld,\"elements\":%lld,\"total_s\":%.6f,\"step_s\":[",
          a->size, (long long)s->steps, (long long)s->elements, s->total_s);
    for (int64_t k = 0; !e && k < s->steps; k++)
      e = app_buf_printf(&b, "%s%.6f", k ? "," : "", s->step_s[k]);
    if (!e) e = app_buf_printf(&b, "],\"repartitions\":[");
    for (int k = 0; !e && k < s->nrep; k++)
      e = app_buf_printf(&b, "%s%lld", k ? "," : "", (long long)s->repartitions[k]);
    if (!e)
      e = app_buf_printf(&b,
                         "],\"partition_s\":%.6f,\"migration_s\":%.6f,\"profiled\":%s,\"args\":",
                         s->partition_s, s->migration_s, s->profiled ? "true" : "false");
    if (!e) e = app_json_str(&b, s->args);
    if (!e && s->extra && *s->extra) e = app_buf_printf(&b, ",%s", s->extra);
    if (!e) e = app_buf_printf(&b, "}\n");
    if (e) {
      app_error(a, "--json: %s", lbs_errmsg());
      bad = 1;
    } else {
      FILE *f = strcmp(path, "-") ? fopen(path, "w") : stdout;
      if (!f) {
        app_error(a, "--json %s: %s", path, strerror(errno));
        bad = 1;
      } else {
        int werr = fwrite(b.data, 1, b.len, f) != b.len;
        werr |= f == stdout ? fflush(f) != 0 : fclose(f) != 0;
        if (werr) {
          app_error(a, "--json %s: write failed: %s", path, strerror(errno));
          bad = 1;
        }
      }
    }
    lbs_buf_free(&b);
  }
  return bad ? -1 : 0;
}

int app_part_sizes(const app *a, double *sizes, char *meta, size_t len) {
  char why[128];
  if (!app_parse_part_sizes(a->part_sizes, a->size, sizes, meta, len, why, sizeof why)) return 0;
  app_error(a, "--part-sizes %s: %s", a->part_sizes, why);
  return -1;
}
