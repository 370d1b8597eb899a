/* libFuzzer: the collector's real state machine (profiler/collector.c) fed arbitrary bytes on
 * three connections: two that skip the challenge (so the hello, mesh, step, remap, end and ping
 * records are reached) and one that must answer it. Input: records {u8 control, u32 length,
 * bytes}, each one recv() of connection control % 3: raw bytes, or when control has bit 7 a
 * payload sent as a well-formed frame (checksum and all) of type (control >> 2) & 15, so that
 * mutations reach the records behind the frame checksum. The trace goes to a temporary file. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "prof_int.h"

/* a claimed run larger than this is refused (the fuzzer's memory limit is 2 GiB) */
int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc, (void)argv;
  setenv("LBSPROF_COLLECT_STEP_MB", "64", 1);
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char path[64];
  snprintf(path, sizeof path, "/tmp/lbs_fuzz_collector_%d.lbt", (int)getpid());
  remove(path);
  uint8_t secret[LBSPROF_SECRET_BYTES] = {0};
  lbs_coll *c = lbs__coll_create(path, 0, secret);
  if (!c) return 0;
  int id[3] = {lbs__coll_open(c, -1, "fuzz 0", 1), lbs__coll_open(c, -1, "fuzz 1", 1),
               lbs__coll_open(c, -1, "fuzz 2", 0)};
  int live[3] = {id[0] >= 0, id[1] >= 0, id[2] >= 0};
  size_t at = 0;
  lbs_buf f = {0};
  while (size - at >= 5) {
    int ctl = data[at], k = ctl % 3;
    uint32_t len;
    memcpy(&len, data + at + 1, 4);
    at += 5;
    if (len > size - at) len = (uint32_t)(size - at);
    f.len = 0;
    if (ctl & 0x80)
      lbs__frame_build(&f, (uint16_t)((ctl >> 2) & 15), data + at, len, NULL, 0);
    else
      lbs_buf_append(&f, data + at, len);
    if (live[k] && lbs__coll_input(c, id[k], f.data, f.len) != 0) live[k] = 0;
    at += len;
  }
  lbs_buf_free(&f);
  (void)lbs__coll_finish(c);
  lbs__coll_free(c);
  remove(path);
  return 0;
}
