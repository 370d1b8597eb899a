/* util.c - error printing, progress bar, JSON and option parsing for the CLI. */
#include "cli.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int cli_error(const char *what, lbs_err e) {
  const char *why = lbs_errmsg();
  fprintf(stderr, "lbsim: %s: %s\n", what, *why ? why : lbs_strerror(e));
  return 1;
}

int cli_usage(const char *cmd, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "lbsim: %s: ", cmd);
  vfprintf(stderr, fmt, ap);
  fprintf(stderr, " (see 'lbsim %s --help')\n", cmd);
  va_end(ap);
  return 2;
}

void cli_progress_start(cli_progress *p, const char *label, int64_t total) {
  p->label = label;
  p->total = total;
  p->on = isatty(STDERR_FILENO) && total > 1 && !getenv("LBSIM_NO_PROGRESS");
  p->last_pct = -1;
}

void cli_progress_update(cli_progress *p, int64_t done) {
  if (!p->on || p->total <= 0) return;
  int pct = (int)(100 * done / p->total);
  if (pct == p->last_pct) return;
  p->last_pct = pct;
  char bar[41];
  int fill = pct * 40 / 100;
  for (int i = 0; i < 40; i++) bar[i] = i < fill ? '#' : ' ';
  bar[40] = '\0';
  fprintf(stderr, "\r%s [%s] %3d%% %lld/%lld", p->label, bar, pct, (long long)done, (long long)p->total);
  fflush(stderr);
}

void cli_progress_end(cli_progress *p) {
  if (p->on && p->last_pct >= 0) fputc('\n', stderr);
  p->on = 0;
}

int cli_progress_cb(void *arg, int64_t done, int64_t total) {
  (void)total;
  cli_progress_update(arg, done);
  return 0;
}

void cli_json_str(FILE *f, const char *s) {
  fputc('"', f);
  for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
    if (*p == '"' || *p == '\\') fprintf(f, "\\%c", *p);
    else if (*p < 0x20) fprintf(f, "\\u%04x", *p);
    else fputc(*p, f);
  }
  fputc('"', f);
}

void cli_json_num(FILE *f, double v) {
  if (isfinite(v)) fprintf(f, "%.17g", v);
  else fputs("null", f);
}

int cli_parse_i64(const char *opt, const char *s, int64_t lo, int64_t hi, int64_t *out) {
  char *end;
  errno = 0;
  long long v = strtoll(s, &end, 10);
  if (!*s || *end || errno || v < lo || v > hi) {
    fprintf(stderr, "lbsim: option %s: '%s' is not an integer in [%lld, %lld]\n", opt, s,
            (long long)lo, (long long)hi);
    return 2;
  }
  *out = v;
  return 0;
}

int cli_parse_f64(const char *opt, const char *s, double lo, double hi, double *out) {
  char *end;
  errno = 0;
  double v = strtod(s, &end);
  if (!*s || *end || errno || !(v >= lo && v <= hi)) {
    fprintf(stderr, "lbsim: option %s: '%s' is not a number in [%g, %g]\n", opt, s, lo, hi);
    return 2;
  }
  *out = v;
  return 0;
}

void cli_remove_db(const char *path) {
  char side[4200];
  remove(path);
  snprintf(side, sizeof side, "%s-wal", path);
  remove(side);
  snprintf(side, sizeof side, "%s-shm", path);
  remove(side);
  snprintf(side, sizeof side, "%s-journal", path);
  remove(side);
}
