/* cmd_report.c - lbsim report: a results store as one self-contained HTML page (report/). */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "lbs_report.h"

#ifndef LBSIM_VERSION
#define LBSIM_VERSION "0.1.0"
#endif

/* What every report carries near its start, so that --force knows a page lbsim wrote. */
#define GENERATOR "lbsim " LBSIM_VERSION

static void usage(void) {
  printf(
      "usage: lbsim report STORE -o FILE.html [options]\n\n"
      "Writes one self-contained HTML page (Vega and the data inlined; it works offline) from\n"
      "a results store (--results of replay, policy compare, partition, sweep):\n"
      "  - imbalance per step for each policy, repartitions marked (seed 002, Figure 10)\n"
      "  - the adaptive policy's probes: step and interval (Figure 9)\n"
      "  - per-processor compute over time as a heat map, and a per-processor timeline of\n"
      "    compute, communication (and waiting), partitioning and migration\n"
      "  - total time by policy, partitioner and grid, with the sweep's axes\n"
      "  - MinEX against METIS (lbsim partition rows: MaxQWgt, LoadImb, ... seed 003)\n"
      "  - the grid's clusters and links, and sortable tables of studies, runs and partitions\n"
      "Large stores are thinned: steps are summed in buckets (see --max-cells).\n\noptions:\n"
      "  -o, --output FILE    the page to write (required)\n"
      "  -f, --force          replace FILE if it is a report lbsim wrote (never anything else)\n"
      "  --title TEXT         the page's heading (default: lbsim report: STORE)\n"
      "  --study ID           only this study's runs and partition rows ('lbsim results' lists\n"
      "                       the studies: a sweep, a compare, ...)\n"
      "  --max-cells N        per-processor cells (steps x processors) kept over all runs\n"
      "                       (default 2000000); beyond it steps are summed in buckets\n"
      "  --max-points N       steps per run in the imbalance series (default 2000; every\n"
      "                       repartition is kept)\n\n"
      "examples:\n"
      "  lbsim policy compare bump.lbt --grid g.ini --policies none,fixed:20,adaptive --results r.db\n"
      "  lbsim partition nbody.lbt --grid up.ini --partitioner minex,metis --results r.db\n"
      "  lbsim report r.db -o report.html && xdg-open report.html\n"
      "  lbsim report whatif.db --study sweep-whatif-054b96caa3de4653 -o whatif.html\n");
}

/* What is at path: 0 nothing, 1 a regular file (or a link to one), -1 anything else. */
static int out_kind(const char *path) {
  struct stat sb;
  if (lstat(path, &sb)) return errno == ENOENT ? 0 : -1;
  if (S_ISLNK(sb.st_mode) && stat(path, &sb)) return -1;
  return S_ISREG(sb.st_mode) ? 1 : -1;
}

/* 1 when the regular file at path begins like a page lbsim report wrote. */
static int our_report(const char *path) {
  char head[1024];
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) return 0;
  ssize_t n = read(fd, head, sizeof head - 1);
  close(fd);
  if (n <= 0) return 0;
  head[n] = '\0';
  return !strncmp(head, "<!DOCTYPE html>", 15) &&
         strstr(head, "<meta name=\"generator\" content=\"lbsim ") != NULL;
}

/* The output before the work: nothing there, or with force a report lbsim wrote; never the
 * store itself; its directory takes a new file. Prints why not and returns 1. */
static int check_output(const char *out, const char *store, int force) {
  int kind = out_kind(out);
  if (kind < 0)
    return fprintf(stderr, "lbsim: %s: not a regular file; refusing to replace it\n", out), 1;
  struct stat a, b;
  if (kind && stat(out, &a) == 0 && stat(store, &b) == 0 && a.st_dev == b.st_dev &&
      a.st_ino == b.st_ino)
    return fprintf(stderr, "lbsim: %s: that is the results store itself\n", out), 1;
  if (kind && !force)
    return fprintf(stderr, "lbsim: %s: file exists (use --force to overwrite)\n", out), 1;
  if (kind && !our_report(out))
    return fprintf(stderr, "lbsim: %s: not a report lbsim wrote; refusing to replace it\n", out), 1;
  if (lbs_parent_writable(out)) return fprintf(stderr, "lbsim: %s\n", lbs_errmsg()), 1;
  return 0;
}

/* Writes the page beside out and renames it into place: a failed write leaves what was there,
 * and so does a signal (the file beside out is removed, cli_interrupt_remove). */
static int write_page(const char *out, const void *data, size_t len) {
  size_t n = strlen(out);
  char *tmp = malloc(n + 16);
  if (!tmp) return fprintf(stderr, "lbsim: report: out of memory\n"), 1;
  snprintf(tmp, n + 16, "%s.tmp-XXXXXX", out);
  sigset_t saved;
  cli_interrupt_hold(&saved); /* no signal between making it and registering it */
  int fd = mkstemp(tmp), guard = fd < 0 ? -1 : cli_interrupt_remove(tmp, CLI_RM_FILE, NULL);
  cli_interrupt_release(&saved);
  if (fd < 0) {
    fprintf(stderr, "lbsim: %s: cannot create: %s\n", tmp, strerror(errno));
    return free(tmp), 1;
  }
  mode_t um = umask(0); /* mkstemp makes 0600; the page gets the usual mode */
  umask(um);
  fchmod(fd, 0666 & ~um);
  const char *p = data;
  size_t left = len;
  int err = 0;
  while (left > 0 && !err) {
    ssize_t w = write(fd, p, left);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0)
      err = w < 0 ? errno : EIO;
    else
      p += w, left -= (size_t)w;
  }
  if (close(fd) && !err) err = errno;
  /* again: something may have appeared at out while the page was made */
  if (!err && out_kind(out) < 0) err = EEXIST;
  if (!err && rename(tmp, out)) err = errno;
  if (err) {
    unlink(tmp);
    fprintf(stderr, "lbsim: %s: write failed: %s\n", out,
            err == EEXIST ? "no longer a regular file" : strerror(err));
  }
  cli_interrupt_keep(guard); /* renamed into place, or removed */
  free(tmp);
  return err ? 1 : 0;
}

enum { O_TITLE = 1000, O_CELLS, O_POINTS, O_STUDY };

int cmd_report(int argc, char **argv) {
  static const struct option lo[] = {
      {"output", required_argument, 0, 'o'},          {"force", no_argument, 0, 'f'},
      {"title", required_argument, 0, O_TITLE},       {"max-cells", required_argument, 0, O_CELLS},
      {"max-points", required_argument, 0, O_POINTS}, {"help", no_argument, 0, 'h'},
      {"study", required_argument, 0, O_STUDY},       {0, 0, 0, 0}};
  lbs_report_opts o = {.generator = GENERATOR};
  const char *out = NULL;
  int force = 0, c;
  while ((c = cli_getopt(argc, argv, "ho:f", lo)) != -1) {
    switch (c) {
    case 'o':
      if (cli_output_arg("report", "-o", optarg, &out)) return 2;
      break;
    case 'f': force = 1; break;
    case O_TITLE: o.title = optarg; break;
    case O_STUDY: o.study = optarg; break;
    case O_CELLS:
      if (cli_parse_i64("--max-cells", optarg, 1000, INT64_C(1) << 40, &o.max_cells)) return 2;
      break;
    case O_POINTS:
      if (cli_parse_i64("--max-points", optarg, 10, INT64_C(1) << 40, &o.max_points)) return 2;
      break;
    case 'h': usage(); return 0;
    default: return cli_bad_option("report");
    }
  }
  if (optind != argc - 1) return cli_usage("report", "expected one results store");
  if (!out) return cli_usage("report", "missing -o FILE.html");
  const char *store = argv[optind];
  if (check_output(out, store, force)) return 1;
  lbs_buf page = {0};
  lbs_err e = lbs_report_html(store, &o, &page);
  int rc = e ? cli_error("report", e) : write_page(out, page.data, page.len);
  if (!rc) cli_wrote("report", out, "%zu bytes", page.len);
  lbs_buf_free(&page);
  return rc;
}
