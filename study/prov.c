/* prov.c - provenance for the results store: who ran what (command line, version, machine,
 * time), the study that groups runs, and what each run was made of (content hashes, the
 * resolved configuration after overrides, the overrides themselves). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "lbs_grid.h"
#include "lbs_study.h"

#ifndef LBSIM_VERSION
#define LBSIM_VERSION "0.1.0"
#endif

static char command[8192]; /* the command line as given (getopt permutes argv later) */

/* Appends s to buf (of size n, holding len bytes), quoted for a POSIX shell when it needs it. */
static size_t put_word(char *buf, size_t n, size_t len, const char *s) {
  int plain = *s != 0;
  for (const char *p = s; *p; p++)
    if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-+=/.,:@%^", *p))
      plain = 0;
  if (plain) return len + (size_t)snprintf(buf + len, len < n ? n - len : 0, "%s", s);
  len += (size_t)snprintf(buf + len, len < n ? n - len : 0, "'");
  for (const char *p = s; *p; p++)
    len += (size_t)snprintf(buf + len, len < n ? n - len : 0, *p == '\'' ? "'\\''" : "%c", *p);
  return len + (size_t)snprintf(buf + len, len < n ? n - len : 0, "'");
}

void lbs_prov_capture(int argc, char **argv) {
  size_t len = 0;
  for (int i = 0; i < argc; i++) {
    if (i)
      len += (size_t)snprintf(command + len, len < sizeof command ? sizeof command - len : 0, " ");
    len = put_word(command, sizeof command, len, argv[i]);
  }
  if (len >= sizeof command) strcpy(command + sizeof command - 5, " ...");
}

void lbs_prov_study_init(lbs_prov_study *s, const char *kind, const char *id) {
  memset(s, 0, sizeof *s);
  snprintf(s->command, sizeof s->command, "%s", command);
  struct utsname u;
  char host[200] = "";
  if (gethostname(host, sizeof host - 1)) strcpy(host, "?");
  if (uname(&u) == 0)
    snprintf(s->host, sizeof s->host, "%.199s (%.64s %.64s %.64s)", host, u.sysname, u.release,
             u.machine);
  else
    snprintf(s->host, sizeof s->host, "%s", host);
  lbs_results_now(s->started);
  if (id)
    snprintf(s->id, sizeof s->id, "%s", id);
  else { /* a new study: its kind, the time and this process */
    char word[32], stamp[32];
    snprintf(word, sizeof word, "%s", kind);
    for (char *c = word; *c; c++)
      if (*c == ' ') *c = '-';
    int k = 0;
    for (const char *c = s->started; *c; c++)
      if (*c != '-' && *c != ':') stamp[k++] = *c;
    stamp[k] = 0;
    snprintf(s->id, sizeof s->id, "%s-%s-%ld", word, stamp, (long)getpid());
  }
  s->info = (lbs_study_info){.id = s->id,
                             .kind = kind,
                             .command = s->command,
                             .version = LBSIM_VERSION,
                             .host = s->host,
                             .started = s->started};
}

/* A file's hash, computed once per process while the file stays the same (a sweep's tasks share
 * their traces: a large trace is not read again for every run). */
static int hash_file(const char *path, char hex[65]) {
  static struct {
    char *path;
    dev_t dev;
    ino_t ino;
    off_t size;
    struct timespec mtime;
    char hex[65];
  } cache[64];
  static int n;
  struct stat sb;
  if (stat(path, &sb) || !S_ISREG(sb.st_mode)) return 0;
  for (int i = 0; i < n; i++)
    if (!strcmp(cache[i].path, path) && cache[i].dev == sb.st_dev && cache[i].ino == sb.st_ino &&
        cache[i].size == sb.st_size && cache[i].mtime.tv_sec == sb.st_mtim.tv_sec &&
        cache[i].mtime.tv_nsec == sb.st_mtim.tv_nsec) {
      memcpy(hex, cache[i].hex, 65);
      return 1;
    }
  if (lbs_file_sha256(path, hex) != LBS_OK) return 0;
  int k = n < 64 ? n++ : 63; /* full: the last slot is reused */
  char *copy = strdup(path);
  if (!copy) return 1;
  free(cache[k].path); /* NULL for a new slot */
  cache[k].path = copy;
  cache[k].dev = sb.st_dev, cache[k].ino = sb.st_ino, cache[k].size = sb.st_size,
  cache[k].mtime = sb.st_mtim;
  memcpy(cache[k].hex, hex, 65);
  return 1;
}

void lbs_prov_run_init(lbs_prov_run *ri, const char *trace, const char *grid, const lbs_config *cfg,
                       const char *const *over, int nover, int cost) {
  memset(ri, 0, sizeof *ri);
  /* a trace given as a directory, or a grid that is not a file, has no content hash */
  int ht = trace && hash_file(trace, ri->trace_hash);
  int hg = grid && hash_file(grid, ri->grid_hash);
  /* every key: what the file and overrides give, and the defaults of [grid], [cluster] and
   * [link] (a node type's keys depend on its speed model: only those given; [sim] as given: the
   * command line may set the replay's settings, whose effective values are the run's columns) */
  lbs_section_spec kept[64];
  int nk = 0;
  for (const lbs_section_spec *sp = lbs_grid_spec(); sp->kind && nk < 63; sp++)
    if (strcmp(sp->kind, "nodetype")) kept[nk++] = *sp;
  kept[nk] = (lbs_section_spec){NULL, 0, 0, NULL, NULL};
  const lbs_section_spec *specs[1] = {kept};
  if (cfg && lbs_config_dump_resolved(cfg, specs, 1, &ri->config)) lbs_buf_free(&ri->config);
  lbs_buf o = {0};
  for (int i = 0; i < nover; i++)
    if (lbs_buf_append(&o, over[i], strlen(over[i])) ||
        lbs_buf_append(&o, i + 1 < nover ? "\n" : "", i + 1 < nover))
      break;
  if (nover && !lbs_buf_append(&o, "", 1))
    ri->overrides = (char *)o.data;
  else
    lbs_buf_free(&o);
  static const char *COST[] = {"model", "measured", "zero"};
  ri->info = (lbs_run_info){.trace = trace,
                            .grid = grid,
                            .trace_hash = ht ? ri->trace_hash : NULL,
                            .grid_hash = hg ? ri->grid_hash : NULL,
                            .cost = cost >= 0 && cost < 3 ? COST[cost] : NULL,
                            .overrides = ri->overrides,
                            .config = ri->config.data ? (const char *)ri->config.data : NULL,
                            .task = -1,
                            .optimum_s = NAN,
                            .gap_to_optimal = NAN};
}

void lbs_prov_run_free(lbs_prov_run *ri) {
  lbs_buf_free(&ri->config);
  free(ri->overrides);
  ri->overrides = NULL;
}
