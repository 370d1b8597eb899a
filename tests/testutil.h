/* testutil.h - small helpers for the Criterion suites. */
#ifndef LBS_TESTUTIL_H
#define LBS_TESTUTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A fresh temporary directory; the path is static storage per call site. */
static inline char *tu_tmpdir(void) {
  char *d = malloc(64);
  snprintf(d, 64, "/tmp/lbs_test_XXXXXX");
  if (!mkdtemp(d)) abort();
  return d;
}

static inline char *tu_path(const char *dir, const char *name) {
  size_t n = strlen(dir) + strlen(name) + 2;
  char *p = malloc(n);
  snprintf(p, n, "%s/%s", dir, name);
  return p;
}

static inline void tu_rmrf(char *dir) {
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system(cmd)) {}
  free(dir);
}

static inline void tu_write(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  if (!f) abort();
  fputs(text, f);
  fclose(f);
}

/* An MPI singleton's own session directory, set before MPI_Init: Criterion runs each test in a
 * process of its own, two at a time, and two singletons starting together race on Open MPI's
 * one session directory ("mkdir ... ompi.vm.0: File exists", orte_init failed). Remove it with
 * tu_rmrf after MPI_Finalize. */
static inline char *tu_mpi_session(void) {
  char *d = malloc(64);
  snprintf(d, 64, "/tmp/lbs-ompi-test-XXXXXX");
  if (!mkdtemp(d)) abort();
  setenv("OMPI_MCA_orte_tmpdir_base", d, 1);
  return d;
}

#endif
