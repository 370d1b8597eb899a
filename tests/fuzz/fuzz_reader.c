/* libFuzzer: open arbitrary files as traces, read every step of every metric, verify. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "lbs_traces.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char path[64], side[80];
  snprintf(path, sizeof path, "/tmp/lbs_fuzz_reader_%d.lbt", (int)getpid());
  const char *sfx[] = {"-wal", "-shm", "-journal"};
  for (int i = 0; i < 3; i++) {
    snprintf(side, sizeof side, "%s%s", path, sfx[i]);
    remove(side);
  }
  FILE *f = fopen(path, "wb");
  if (!f) return 0;
  fwrite(data, 1, size, f);
  fclose(f);
  lbs_trace *t;
  if (lbs_trace_open(path, &t) == LBS_OK) {
    int64_t E = lbs_trace_elements(t), S = lbs_trace_steps(t);
    if (E <= (1 << 16) && S <= 64) {
      double *v = malloc((size_t)E * sizeof *v);
      for (int64_t s = 0; v && s < S; s++)
        for (int m = 0; m < lbs_trace_nmetrics(t); m++) {
          (void)lbs_trace_read(t, s, m, 0, E, v);
          (void)lbs_trace_read(t, S - 1 - s, m, E / 3, E / 2, v);
        }
      free(v);
      lbs_trace_stats st;
      (void)lbs_trace_get_stats(t, -1, &st);
      (void)lbs_trace_verify(t, NULL, NULL);
    }
    lbs_trace_close(&t);
  }
  remove(path);
  return 0;
}
