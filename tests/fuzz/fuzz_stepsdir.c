/* libFuzzer: `lbsim trace import --steps-dir DIR` on an arbitrary directory.
 * Input: a tiny text archive of the directory's files. A line "@@ NAME" starts the file NAME;
 * the text before the first such line is the manifest. Names are what the format uses:
 * 1 to 64 of [A-Za-z0-9._-], not "." or ".." (anything else is skipped, so every file lands
 * inside the directory). The directory is imported into a fresh trace with one of a few
 * codec/bound/chunk settings chosen by the input's length; a trace that imports must open,
 * hold what the manifest declared, read back and verify. Everything is removed each time. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lbs_traces.h"

static char root[64], dir[80], out[96];

/* Removes every file in d (the import writes no subdirectory). */
static void clear(const char *d) {
  DIR *h = opendir(d);
  if (!h) return;
  struct dirent *ent;
  char p[400];
  while ((ent = readdir(h)))
    if (strcmp(ent->d_name, ".") && strcmp(ent->d_name, "..")) {
      snprintf(p, sizeof p, "%s/%s", d, ent->d_name);
      if (remove(p)) rmdir(p);
    }
  closedir(h);
}

static void cleanup(void) {
  clear(dir);
  clear(root);
}

static void remove_root(void) {
  cleanup();
  rmdir(root);
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc, (void)argv;
  snprintf(root, sizeof root, "/tmp/lbs_fuzz_stepsdir_%d", (int)getpid());
  snprintf(dir, sizeof dir, "%s/in", root);
  snprintf(out, sizeof out, "%s/out.lbt", root);
  mkdir(root, 0700);
  atexit(remove_root);
  return 0;
}

static int good_name(const char *s, size_t n) {
  if (n < 1 || n > 64 || (n == 1 && s[0] == '.') || (n == 2 && s[0] == '.' && s[1] == '.'))
    return 0;
  for (size_t i = 0; i < n; i++)
    if (!strchr("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-", s[i]) || !s[i])
      return 0;
  return 1;
}

static void put(const char *name, const uint8_t *p, size_t n) {
  char path[200];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "ab"); /* a name given twice: the parts join */
  if (!f) return;
  fwrite(p, 1, n, f);
  fclose(f);
}

/* Splits the archive into files. */
static void unpack(const uint8_t *data, size_t size) {
  const uint8_t *end = data + size, *p = data;
  char name[65] = "manifest";
  for (;;) {
    /* the next "@@ " at the start of a line */
    const uint8_t *q = p;
    const uint8_t *hdr = NULL;
    while (q < end) {
      const uint8_t *h = memmem(q, (size_t)(end - q), "@@ ", 3);
      if (!h) break;
      if (h == data || h[-1] == '\n') {
        hdr = h;
        break;
      }
      q = h + 1;
    }
    const uint8_t *body_end = hdr ? hdr : end;
    if (*name) put(name, p, (size_t)(body_end - p));
    if (!hdr) break;
    const uint8_t *nl = memchr(hdr, '\n', (size_t)(end - hdr));
    const uint8_t *ne = nl ? nl : end;
    size_t n = (size_t)(ne - (hdr + 3));
    if (good_name((const char *)hdr + 3, n)) {
      memcpy(name, hdr + 3, n);
      name[n] = '\0';
    } else {
      name[0] = '\0'; /* skipped */
    }
    if (!nl) break;
    p = nl + 1;
  }
}

static void check_trace(const lbs_import_opts *o) {
  lbs_trace *t;
  if (lbs_trace_open(out, &t)) abort(); /* what the import wrote opens */
  int64_t E = lbs_trace_elements(t), S = lbs_trace_steps(t);
  int M = lbs_trace_nmetrics(t);
  if (E < 1 || S < 1 || M < 1) abort();
  lbs_mesh *mesh = lbs_trace_mesh(t);
  if (mesh && lbs_mesh_elements(mesh) != E) abort();
  double *v = malloc((size_t)E * sizeof *v);
  if (!v) abort();
  for (int64_t s = 0; s < S; s++) {
    int64_t app;
    if (lbs_trace_app_step(t, s, &app)) abort();
    for (int m = 0; m < M; m++) {
      if (lbs_trace_read(t, s, m, 0, E, v)) abort();
      if (!o->allow_nonfinite)
        for (int64_t i = 0; i < E; i++)
          if (v[i] != v[i] || v[i] - v[i] != 0) abort(); /* finite in, finite out */
    }
  }
  free(v);
  for (int m = 0; m < M; m++) {
    lbs_metric_info mi;
    if (lbs_trace_metric(t, m, &mi) || lbs_trace_metric_find(t, mi.name) != m) abort();
  }
  lbs_trace_stats st;
  if (lbs_trace_get_stats(t, -1, &st)) abort();
  if (lbs_trace_verify(t, NULL, NULL)) abort(); /* and is whole */
  lbs_trace_close(&t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  cleanup();
  if (mkdir(dir, 0700)) return 0;
  unpack(data, size);
  /* what `trace import` passes: the default bound and codec, lossless, a tight absolute
   * bound; NaN and infinities allowed or not; the default chunk or a small one */
  static const lbs_import_opts settings[6] = {
      {LBS_CODEC_AUTO, {LBS_BOUND_REL, 0.005}, 0, 0, 0},
      {LBS_CODEC_LOSSLESS, {LBS_BOUND_LOSSLESS, 0}, 7, 0, 0},
      {LBS_CODEC_POLYLINE, {LBS_BOUND_ABS, 1e-3}, 5, 1, 0},
      {LBS_CODEC_QUANT, {LBS_BOUND_RANGE, 0.01}, 0, 1, 0},
      {LBS_CODEC_AUTO, {LBS_BOUND_REL, 0.005}, 3, 1, 0},
      {LBS_CODEC_LOSSLESS, {LBS_BOUND_LOSSLESS, 0}, 0, 1, 0}};
  lbs_import_opts o = settings[size % 6];
  lbs_err e = lbs_stepsdir_import(dir, out, &o);
  if (e == LBS_OK)
    check_trace(&o);
  else if (o.nonfinite < 0)
    abort();
  cleanup();
  return 0;
}
