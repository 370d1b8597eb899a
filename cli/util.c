/* util.c - error printing, progress bar, JSON, option parsing and outputs for the CLI. */
#include "cli.h"
#include "lbs_sim.h"
#include "lbs_traces.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <mpi.h>

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

void cli_wrote(const char *cmd, const char *path, const char *fmt, ...) {
  fprintf(stderr, "lbsim: %s: wrote %s", cmd, path);
  if (fmt) {
    va_list ap;
    va_start(ap, fmt);
    fputs(": ", stderr);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
  }
  fputc('\n', stderr);
}

static double mono_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void cli_progress_start(cli_progress *p, const char *label, int64_t total) {
  p->label = label;
  p->total = total;
  p->on = isatty(STDERR_FILENO) && total > 1 && !getenv("LBSIM_NO_PROGRESS");
  p->last_pct = -1;
  p->t0 = mono_s();
  p->last_t = 0;
  p->pace_t0 = 0;
  p->base = 0;
}

/* "1h02m", "3m05s" or "42s" */
static void fmt_dur(char *b, size_t n, double s) {
  int v = s < 0 ? 0 : s > 3.6e8 ? 360000000 : (int)(s + 0.5);
  if (v >= 3600)
    snprintf(b, n, "%dh%02dm", v / 3600 % 100000, v / 60 % 60);
  else if (v >= 60)
    snprintf(b, n, "%dm%02ds", v / 60 % 100, v % 60);
  else
    snprintf(b, n, "%ds", v % 100);
}

void cli_progress_update(cli_progress *p, int64_t done) {
  if (!p->on || p->total <= 0) return;
  int pct = (int)(100 * done / p->total);
  double now = mono_s();
  if (p->pace_t0 == 0) p->pace_t0 = now, p->base = done;
  if (pct == p->last_pct && now - p->last_t < 1) return; /* the clock moves at least each second */
  p->last_pct = pct;
  p->last_t = now;
  char bar[41], el[32], eta[32] = "?";
  int fill = pct * 40 / 100;
  for (int i = 0; i < 40; i++) bar[i] = i < fill ? '#' : ' ';
  bar[40] = '\0';
  fmt_dur(el, sizeof el, now - p->t0);
  if (done > p->base)
    fmt_dur(eta, sizeof eta,
            (now - p->pace_t0) * (double)(p->total - done) / (double)(done - p->base));
  fprintf(stderr, "\r%s [%s] %3d%% %lld/%lld  %s, ETA %s   ", p->label, bar, pct, (long long)done,
          (long long)p->total, el, eta);
  fflush(stderr);
}

void cli_progress_end(cli_progress *p) {
  if (p->on && p->last_pct >= 0) fputc('\n', stderr);
  p->on = 0;
}

int cli_progress_cb(void *arg, int64_t done, int64_t total) {
  cli_progress *p = arg;
  if (total > 0) p->total = total;
  cli_progress_update(p, done);
  return 0;
}

int cli_json_print(const char *what, json_t *v, size_t flags) {
  int bad = lbs_json_write(stdout, v, flags) && !ferror(stdout);
  json_decref(v);
  if (bad) fprintf(stderr, "lbsim: %s: JSON output: out of memory\n", what);
  return bad;
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

/* ---------------------------------------------------------------- output files */

/* The SQLite side files that go with a trace or results store at path. */
static const char *const side_suffix[] = {"", "-wal", "-shm", "-journal"};

/* What is at path: 0 nothing, 1 a regular file or a link to one, -1 anything else (a
 * directory, device, FIFO, socket, a link to one of those, or a dangling link). */
static int file_kind(const char *path) {
  struct stat sb;
  if (lstat(path, &sb)) return errno == ENOENT ? 0 : -1;
  if (S_ISLNK(sb.st_mode) && stat(path, &sb)) return -1;
  return S_ISREG(sb.st_mode) ? 1 : -1;
}

int cli_output_arg(const char *cmd, const char *opt, const char *arg, const char **out) {
  if (!arg[0]) return cli_usage(cmd, "%s: empty path", opt);
  if (*out) return cli_usage(cmd, "%s given twice ('%s' and '%s')", opt, *out, arg);
  *out = arg;
  return 0;
}

/* Reads from fd into buf until n bytes or the end: the count, or -1 on a read error. */
static ssize_t read_some(int fd, char *buf, size_t n) {
  size_t got = 0;
  while (got < n) {
    ssize_t r = read(fd, buf + got, n - got);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return -1;
    if (r == 0) break;
    got += (size_t)r;
  }
  return (ssize_t)got;
}

/* 1 when the whole file is digits and line ends: a partition as partition --out-parts writes it. */
static int parts_only(int fd, const char *head, ssize_t n) {
  char buf[65536];
  for (;;) {
    for (ssize_t i = 0; i < n; i++)
      if (head[i] != '\n' && (head[i] < '0' || head[i] > '9')) return 0;
    if ((n = read_some(fd, buf, sizeof buf)) <= 0) return n == 0;
    head = buf;
  }
}

/* 1 when the start of a file (n bytes of head, NUL-terminated) is what a command of kind writes;
 * fd reads on after it. Each kind by what lbsim puts first, so that a user's file of another
 * kind is never taken for one. */
static int head_of_kind(int fd, const char *head, ssize_t n, cli_file_kind kind) {
  const unsigned char *u = (const unsigned char *)head;
  switch (kind) {
  case CLI_FILE_TRACE: /* SQLite's header holds the application_id at offset 68, big-endian */
    return n >= 100 && !memcmp(head, "SQLite format 3", 16) &&
           ((uint32_t)u[68] << 24 | (uint32_t)u[69] << 16 | (uint32_t)u[70] << 8 | u[71]) ==
               LBS_TRACE_APP_ID;
  case CLI_FILE_GRID:
    return !strncmp(head, "; lbsim grid gen ", 17) ||
           !strncmp(head, "; written by 'lbsim grid probe'", 31);
  case CLI_FILE_PARTS: return parts_only(fd, head, n);
  case CLI_FILE_PIPELINE: /* the tables, the JSON object's first keys */
    return !strncmp(head, "pipeline ", 9) ||
           (!strncmp(head, "{\"name\":", 8) && strstr(head, ",\"think_s\":"));
  case CLI_FILE_STORE: return 0; /* added to, never replaced */
  }
  return 0;
}

/* 1 when the regular file at path is empty or of kind (see cli_file_kind). It is opened without
 * blocking: a FIFO put there since it was checked reads as nothing, and is no kind. */
static int of_kind(const char *path, cli_file_kind kind) {
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) return 0;
  struct stat sb;
  char head[4097];
  ssize_t n = fstat(fd, &sb) || !S_ISREG(sb.st_mode) ? -1 : read_some(fd, head, sizeof head - 1);
  int yes = n == 0 || (n > 0 && (head[n] = '\0', head_of_kind(fd, head, n, kind)));
  close(fd);
  return yes;
}

/* What --force may replace, for the message that refuses anything else. */
static const char *kind_name(cli_file_kind kind) {
  static const char *const name[] = {"an lbsim trace", "a grid file lbsim wrote",
                                     "a partition file (one part per line)",
                                     "a pipeline report lbsim wrote", "a file --force replaces"};
  return name[kind];
}

/* Checks an output file before the work; changes nothing (see cli.h). */
int cli_check_output(const char *path, cli_out_mode mode, cli_file_kind kind) {
  char side[4200];
  int main_kind = 0;
  for (int k = 0; k < 4; k++) {
    snprintf(side, sizeof side, "%s%s", path, side_suffix[k]);
    int kind = file_kind(side);
    if (k == 0) main_kind = kind;
    if (kind < 0) {
      fprintf(stderr, "lbsim: %s: not a regular file%s\n", side,
              mode == CLI_OUT_APPEND ? "" : "; refusing to replace it");
      return 1;
    }
  }
  if (main_kind && mode == CLI_OUT_NEW) {
    fprintf(stderr, "lbsim: %s: file exists (use --force to overwrite)\n", path);
    return 1;
  }
  if (main_kind && mode == CLI_OUT_FORCE && !of_kind(path, kind)) {
    fprintf(stderr, "lbsim: %s: not %s; refusing to replace it\n", path, kind_name(kind));
    return 1;
  }
  lbs_err e = lbs_parent_writable(path);
  if (e) return fprintf(stderr, "lbsim: %s\n", lbs_errmsg()), 1; /* names path and its directory */
  return 0;
}

/* Checks again, then with force removes the old regular file and its side files. */
int cli_replace_output(const char *path, int force, cli_file_kind kind) {
  if (cli_check_output(path, force ? CLI_OUT_FORCE : CLI_OUT_NEW, kind)) return 1;
  char side[4200];
  for (int k = 0; force && k < 4; k++) {
    snprintf(side, sizeof side, "%s%s", path, side_suffix[k]);
    if (file_kind(side) == 1 && unlink(side) && errno != ENOENT) {
      fprintf(stderr, "lbsim: %s: cannot remove: %s\n", side, strerror(errno));
      return 1;
    }
  }
  return 0;
}

int cli_write_file(const char *path, const void *data, size_t len) {
  FILE *f = fopen(path, "wx");
  if (!f) return fprintf(stderr, "lbsim: %s: cannot create: %s\n", path, strerror(errno)), 1;
  errno = 0;
  int bad = fwrite(data, 1, len, f) != len || fflush(f) != 0, err = errno;
  if (fclose(f) != 0 && !bad) bad = 1, err = errno;
  if (bad) {
    unlink(path); /* the half-written file this call made */
    return fprintf(stderr, "lbsim: %s: write failed: %s\n", path,
                   err ? strerror(err) : "I/O error"),
           1;
  }
  return 0;
}

/* ---------------------------------------------------------------- output directories */

/* 1 when n is prefix, then at least min digits, then suffix. */
static int numbered(const char *n, const char *prefix, size_t min, const char *suffix) {
  size_t len = strlen(n), a = strlen(prefix), b = strlen(suffix);
  if (len < a + min + b || strncmp(n, prefix, a) || strcmp(n + len - b, suffix)) return 0;
  for (size_t i = a; i < len - b; i++)
    if (n[i] < '0' || n[i] > '9') return 0;
  return 1;
}

/* 1 for validate's "runR_K.json" and "runR_K.log" (R, K: digits). */
static int run_file(const char *n) {
  if (strncmp(n, "run", 3)) return 0;
  const char *p = n + 3, *q;
  for (q = p; *q >= '0' && *q <= '9'; q++) {}
  if (q == p || *q != '_') return 0;
  for (p = ++q; *q >= '0' && *q <= '9'; q++) {}
  return q > p && (!strcmp(q, ".json") || !strcmp(q, ".log"));
}

/* The names a command of kind writes in an output directory (see cli_dir_kind). */
static int lbsim_name(const char *n, cli_dir_kind kind) {
  static const char *const export[] = {"manifest",  "mesh.graph",   "mesh.coords",
                                       "steps.csv", "elements.csv", NULL};
  static const char *const compare[] = {"summary.csv", "imbalance.csv", NULL};
  static const char *const calib[] = {"ipgs.csv",     "points.csv",      "samples.csv",
                                      "verifies.csv", "plan_pieces.csv", NULL};
  static const char *const simgrid[] = {"platform.xml", "hostfile",   "replay.txt", "run.sh",
                                        "README",       "lbsim.json", NULL};
  static const char *const results[] = {"runs.csv",
                                        "steps.csv",
                                        "procs.csv",
                                        "repartitions.csv",
                                        "assignment.csv",
                                        "series.csv",
                                        "studies.csv",
                                        "partitions.csv",
                                        "validations.csv",
                                        "measurements.csv",
                                        "validation_pairs.csv",
                                        NULL};
  static const char *const vtk[] = {"replay.pvd", NULL};
  static const char *const sweep[] = {"tidy.csv", NULL};
  static const char *const pipeline[] = {"mappings.csv", NULL};
  static const char *const validate[] = {"runs.csv", NULL};
  static const char *const vt[] = {NULL};
  const char *const *const fixed[] = {export, compare, simgrid,  results,  vtk,
                                      calib,  sweep,   pipeline, validate, vt};
  for (size_t i = 0; fixed[kind][i]; i++)
    if (!strcmp(n, fixed[kind][i])) return 1;
  size_t len = strlen(n);
  switch (kind) {
  case CLI_DIR_EXPORT: return numbered(n, "step_", 6, ".txt");
  case CLI_DIR_COMPARE:
    return !strncmp(n, "series_", 7) && len > 7 + 4 && !strcmp(n + len - 4, ".csv");
  case CLI_DIR_SIMGRID: return numbered(n, "rank_", 1, ".txt");
  case CLI_DIR_VTK: return numbered(n, "step_", 6, ".vti") || numbered(n, "step_", 6, ".vtu");
  case CLI_DIR_RESULTS:
  case CLI_DIR_CALIB:
  case CLI_DIR_SWEEP:
  case CLI_DIR_PIPELINE: return 0;
  case CLI_DIR_VALIDATE: return run_file(n);
  case CLI_DIR_VT: return numbered(n, "data.", 1, ".json");
  }
  return 0;
}

/* Prints "lbsim: [CMD: ]message" for an output directory d (CMD: cli_outdir_check_as's). */
static void say(const cli_outdir *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(const cli_outdir *d, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "lbsim: ");
  if (d->cmd) fprintf(stderr, "%s: ", d->cmd);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
}

static int not_dots(const struct dirent *d) {
  return strcmp(d->d_name, ".") && strcmp(d->d_name, "..");
}

/* Checks that every entry of d->dir is a regular file lbsim writes there. Returns the number
 * of entries, or -1 after printing the first foreign one (in name order) or a read error. */
static int own_entries(const cli_outdir *d) {
  struct dirent **list;
  int n = scandir(d->dir, &list, not_dots, alphasort);
  if (n < 0) {
    say(d, "%s: cannot read the directory: %s", d->dir, strerror(errno));
    return -1;
  }
  int bad = -1;
  char path[4400];
  for (int i = 0; i < n && bad < 0; i++) {
    struct stat sb;
    snprintf(path, sizeof path, "%s/%s", d->dir, list[i]->d_name);
    if (!lbsim_name(list[i]->d_name, d->kind) || lstat(path, &sb) || !S_ISREG(sb.st_mode)) bad = i;
  }
  if (bad >= 0)
    say(d, "%s/%s: not a file lbsim writes there; refusing to replace %s", d->dir,
        list[bad]->d_name, d->dir);
  for (int i = 0; i < n; i++) free(list[i]);
  free(list);
  return bad >= 0 ? -1 : n;
}

/* Checks an output directory before the work (see cli.h). */
int cli_outdir_check_as(cli_outdir *d, const char *cmd, const char *dir, int force,
                        cli_dir_kind kind) {
  memset(d, 0, sizeof *d);
  d->guard = -1;
  d->kind = kind;
  d->cmd = cmd;
  size_t n = strlen(dir);
  while (n > 1 && dir[n - 1] == '/') n--;
  if (n == 0 || n >= sizeof d->dir - 32 || (n == 1 && dir[0] == '/')) {
    say(d, "'%s': not a usable output directory", dir);
    return 1;
  }
  memcpy(d->dir, dir, n);
  d->dir[n] = '\0';
  d->force = force;
  lbs_err e = lbs_parent_writable(d->dir); /* the fresh directory is made beside it */
  if (e) return say(d, "%s", lbs_errmsg()), 1;
  struct stat sb, pb;
  if (lstat(d->dir, &sb)) {
    if (errno == ENOENT) return 0;
    say(d, "%s: %s", d->dir, strerror(errno));
    return 1;
  }
  if (!S_ISDIR(sb.st_mode)) {
    say(d, "%s: %s; refusing to replace it", d->dir,
        S_ISLNK(sb.st_mode) ? "a symbolic link" : "exists and is not a directory");
    return 1;
  }
  char parent[4200];
  snprintf(parent, sizeof parent, "%s/..", d->dir);
  if (stat(parent, &pb) == 0 && pb.st_dev != sb.st_dev) {
    say(d, "%s: a mount point; lbsim cannot put a fresh directory there", d->dir);
    return 1;
  }
  int k = own_entries(d);
  if (k < 0) return 1;
  if (k > 0 && !force) {
    say(d, "%s: directory is not empty (use --force to replace lbsim's output there)", d->dir);
    return 1;
  }
  return 0;
}

/* Makes the fresh directory DIR.tmp-XXXXXX beside DIR, with the usual mode, removed with what
 * it holds if a signal interrupts the command before it is renamed into place. */
int cli_outdir_begin(cli_outdir *d) {
  snprintf(d->tmp, sizeof d->tmp, "%s.tmp-XXXXXX", d->dir);
  sigset_t saved;
  cli_interrupt_hold(&saved); /* no signal between making it and registering it */
  if (!mkdtemp(d->tmp)) {
    cli_interrupt_release(&saved);
    say(d, "%s: cannot create: %s", d->tmp, strerror(errno));
    d->tmp[0] = '\0';
    return 1;
  }
  d->guard = cli_interrupt_remove(d->tmp, CLI_RM_DIR, NULL);
  cli_interrupt_release(&saved);
  mode_t um = umask(0); /* mkdtemp makes 0700; the output gets the usual mode */
  umask(um);
  chmod(d->tmp, 0777 & ~um);
  return 0;
}

/* Removes the regular files in dir that lbsim writes there (all when any is set), then dir. */
static int remove_dir(const char *dir, int any, cli_dir_kind kind) {
  DIR *dp = opendir(dir);
  if (!dp) return -1;
  struct dirent *de;
  char path[4400];
  while ((de = readdir(dp))) {
    struct stat sb;
    if (!not_dots(de) || (!any && !lbsim_name(de->d_name, kind))) continue;
    snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
    if (lstat(path, &sb) == 0 && S_ISREG(sb.st_mode)) unlink(path);
  }
  closedir(dp);
  return rmdir(dir);
}

/* Removes the fresh directory after a failure; nothing after a commit. */
void cli_outdir_abort(cli_outdir *d) {
  if (d->tmp[0]) {
    remove_dir(d->tmp, 1, d->kind); /* a fresh directory: everything in it is lbsim's */
    cli_interrupt_keep(d->guard);
  }
  d->tmp[0] = '\0';
  d->guard = -1;
}

/* Renames d->tmp to d->dir; prints why not and returns 1. */
static int rename_in(cli_outdir *d) {
  if (!rename(d->tmp, d->dir)) { /* in place: a signal now leaves it (its old name is gone) */
    cli_interrupt_keep(d->guard);
    d->tmp[0] = '\0', d->guard = -1;
    cli_wrote(d->cmd ? d->cmd : "output", d->dir, NULL);
    return 0;
  }
  say(d, "%s: cannot rename %s into place: %s", d->dir, d->tmp, strerror(errno));
  return 1;
}

/* Renames the fresh directory into place (see cli.h). */
int cli_outdir_commit(cli_outdir *d) {
  struct stat sb;
  if (lstat(d->dir, &sb)) return rename_in(d); /* nothing there */
  if (!S_ISDIR(sb.st_mode)) {
    say(d, "%s: exists and is not a directory", d->dir);
    return 1;
  }
  /* again: the directory may have changed while lbsim worked */
  int k = own_entries(d);
  if (k < 0) return 1;
  if (k > 0 && !d->force) {
    say(d, "%s: directory is not empty (use --force to replace lbsim's output there)", d->dir);
    return 1;
  }
  if (k == 0) return rename_in(d); /* an empty directory: rename replaces it */
  /* lbsim's old output: moved aside, the new one renamed in, then the old one removed */
  char old[4200];
  snprintf(old, sizeof old, "%s.old-XXXXXX", d->dir);
  if (!mkdtemp(old)) {
    say(d, "%s: cannot create: %s", old, strerror(errno));
    return 1;
  }
  if (rename(d->dir, old)) {
    say(d, "%s: cannot move the old output aside: %s", d->dir, strerror(errno));
    rmdir(old);
    return 1;
  }
  if (rename_in(d)) {
    rename(old, d->dir); /* the old output back */
    return 1;
  }
  if (remove_dir(old, 0, d->kind))
    fprintf(stderr, "lbsim: warning: %s: cannot remove the old output: %s\n", old, strerror(errno));
  return 0;
}

/* ---------------------------------------------------------------- shared replay options */

int cli_override_check(const char *cmd, const char *assignment) {
  /* the one parser of overrides, on an empty configuration; '+' lets it add any section, so that
   * only the form can fail (a section's existence is the grid file's to say, later) */
  while (isspace((unsigned char)*assignment)) assignment++;
  lbs_config *c = NULL;
  char *a = malloc(strlen(assignment) + 2);
  lbs_err e = a ? lbs_config_create(&c) : LBS_NOMEM;
  if (!e) {
    sprintf(a, "%s%s", *assignment == '+' ? "" : "+", assignment);
    e = lbs_config_override(c, a);
  }
  lbs_config_destroy(&c);
  free(a);
  if (e == LBS_NOMEM) return fprintf(stderr, "lbsim: %s: out of memory\n", cmd), 1;
  if (e) return cli_usage(cmd, "override '%s' is not SECTION.KEY=VALUE", assignment);
  return 0;
}

int cli_override(cli_overrides *l, const char *cmd, const char *assignment) {
  int rc = cli_override_check(cmd, assignment);
  if (rc) return rc;
  if (l->n == l->cap) {
    int cap = l->cap ? 2 * l->cap : 16;
    char **v = realloc(l->v, (size_t)cap * sizeof *v);
    if (!v) return fprintf(stderr, "lbsim: %s: out of memory\n", cmd), 1;
    l->v = v, l->cap = cap;
  }
  if (!(l->v[l->n] = strdup(assignment)))
    return fprintf(stderr, "lbsim: %s: out of memory\n", cmd), 1;
  l->n++;
  return 0;
}

/* SECTION.KEY=VALUE, not a path: what -o held when it was an override. */
static int looks_like_override(const char *arg) { return strchr(arg, '=') && !strchr(arg, '/'); }

int cli_o_output(const char *cmd, const char *arg, const char **out) {
  if (looks_like_override(arg))
    return cli_usage(cmd,
                     "-o %s: -o names the output file; override a key with --set %s (a file "
                     "name with '=' is written as ./NAME)",
                     arg, arg);
  return cli_output_arg(cmd, "-o", arg, out);
}

int cli_o_none(const char *cmd, const char *arg) {
  if (looks_like_override(arg))
    return cli_usage(cmd,
                     "-o %s: -o names an output file, and this command writes none; override "
                     "a key with --set %s",
                     arg, arg);
  return cli_usage(cmd, "-o %s: this command writes no output file", arg);
}

lbs_err cli_overrides_apply(const cli_overrides *l, lbs_config *cfg) {
  lbs_err e = LBS_OK;
  for (int i = 0; !e && i < l->n; i++) e = lbs_config_override(cfg, l->v[i]);
  return e;
}

void cli_overrides_free(cli_overrides *l) {
  for (int i = 0; i < l->n; i++) free(l->v[i]);
  free(l->v);
  *l = (cli_overrides){0};
}

int cli_replay_flag(cli_overrides *l, const char *cmd, int c, const char *arg) {
  static const char *const flag[] = {"--partitioner", "--policy",           "--mode",
                                     "--metric",      "--partition-metric", "--cost",
                                     "--cost-scale",  "--part-fixed-us",    "--part-per-elem-ns",
                                     "--steps"};
  static const char *const key[] = {
      "partitioner",           "policy", "mode",       "metric",
      "partition_metric",      "cost",   "cost_scale", "partition_fixed_us",
      "partition_per_elem_ns", "steps"};
  _Static_assert(sizeof flag / sizeof *flag == CLI_RO_LAST - CLI_RO_FIRST + 1, "a flag per code");
  _Static_assert(sizeof key / sizeof *key == CLI_RO_LAST - CLI_RO_FIRST + 1, "a key per code");
  if (c < CLI_RO_FIRST || c > CLI_RO_LAST) return cli_usage(cmd, "bad option");
  int k = c - CLI_RO_FIRST;
  if (!*arg) return cli_usage(cmd, "%s: empty value", flag[k]);
  lbs_replay_opts
      scratch; /* the value parsed where [sim]'s are, so that a bad one names the flag */
  lbs_replay_opts_default(&scratch);
  lbs_err e = lbs_replay_opts_set(&scratch, key[k], arg);
  if (e) return cli_usage(cmd, "%s: %s", flag[k], lbs_errmsg());
  char *a = malloc(strlen(key[k]) + strlen(arg) + 6);
  if (!a) return fprintf(stderr, "lbsim: %s: out of memory\n", cmd), 1;
  sprintf(a, "sim.%s=%s", key[k], arg);
  int rc = cli_override(l, cmd, a);
  free(a);
  return rc;
}

lbs_err cli_session_replay(lbs_session *s, const char *label, const char *search_label,
                           lbs_replay_result **out) {
  return cli_session_record(s, label, search_label, NULL, out);
}

lbs_err cli_session_record(lbs_session *s, const char *label, const char *search_label,
                           const lbs_replay_recorder *rec, lbs_replay_result **out) {
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  cli_progress prog, search;
  cli_progress_start(&prog, label, 0);
  cli_progress_start(&search, search_label, 0);
  if (rank == 0) {
    cli_progress_start(&prog, label, lbs_trace_steps(s->trace));
    s->opts.progress = cli_progress_cb;
    s->opts.progress_arg = &prog;
    cli_progress_start(&search, search_label, 3 * lbs_trace_steps(s->trace));
    s->opts.search_progress = cli_progress_cb;
    s->opts.search_progress_arg = &search;
  }
  lbs_err e = lbs_replay_record(s->trace, s->grid, &s->opts, rec, MPI_COMM_WORLD, out);
  cli_progress_end(&search);
  cli_progress_end(&prog);
  s->opts.progress = s->opts.search_progress = NULL; /* the bars are gone */
  s->opts.progress_arg = s->opts.search_progress_arg = NULL;
  return e;
}

void cli_mpi_init(void) {
  static const char *const launched[] = {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK",
                                         "PMI_SIZE"};
  int singleton = 1;
  for (size_t i = 0; i < sizeof launched / sizeof *launched; i++)
    if (getenv(launched[i])) singleton = 0;
  /* A singleton's MPI_Init discovers the machine with hwloc, whose OpenCL and GL plugins load
   * pocl, LLVM and X11 and whose PCI ones read every device's configuration: 2/3 of the
   * start-up (bench/RESULTS.md, "Start-up"), for I/O devices one process on one node never
   * uses. hwloc skips them while MPI starts, unless the user's HWLOC_COMPONENTS says otherwise;
   * the setting is taken back after, so that nothing lbsim starts inherits it. */
  static const char hw[] = "HWLOC_COMPONENTS";
  int hwset = singleton && !getenv(hw);
  if (singleton) {
    setenv("OMPI_MCA_ess_singleton_isolated", "1", 0);
    setenv("OMPI_MCA_pml", "ob1", 0);
  }
  if (hwset) setenv(hw, "-opencl,-gl,-pci,-linuxio", 1);
  MPI_Init(NULL, NULL);
  if (hwset) unsetenv(hw);
}
