/* agent_main.c - the lbsprof-agent program: `agent` (one per node) and `collect` (one per
 * run) modes, started by liblbsprof. Not meant to be run by hand; `lbsim collect` is the
 * collector for users. The run's secret comes in LBSPROF_SECRET. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "prof_int.h"

static int usage(void) {
  fprintf(
      stderr,
      "usage: lbsprof-agent agent --shm-fd N --label NAME --node K --collector ADDR\n"
      "       lbsprof-agent collect --fd N --addr ADDR --nodes N -o t.lbt [--private-dir DIR]\n"
      "(started by liblbsprof with LBSPROF_SECRET set; run 'lbsim collect' for a stand-alone collector)\n");
  return 2;
}

int main(int argc, char **argv) {
  if (argc < 2) return usage();
  const char *label = "", *coll = NULL, *addr = "", *out = NULL, *dir = NULL, *compact = NULL;
  int node = -1, fd = -1, shm_fd = -1, nodes = 0;
  for (int i = 2; i + 1 < argc; i += 2) {
    if (!strcmp(argv[i], "--shm-fd"))
      shm_fd = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "--label"))
      label = argv[i + 1];
    else if (!strcmp(argv[i], "--node"))
      node = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "--collector"))
      coll = argv[i + 1];
    else if (!strcmp(argv[i], "--fd"))
      fd = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "--addr"))
      addr = argv[i + 1];
    else if (!strcmp(argv[i], "--nodes"))
      nodes = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "-o"))
      out = argv[i + 1];
    else if (!strcmp(argv[i], "--compact"))
      compact = argv[i + 1];
    else if (!strcmp(argv[i], "--private-dir"))
      dir = argv[i + 1];
    else
      return usage();
  }
  uint8_t secret[LBSPROF_SECRET_BYTES];
  if (lbs__secret_from_env(secret)) {
    fprintf(stderr, "lbsprof-agent: %s\n", lbs_errmsg());
    return 2;
  }
  unsetenv(LBSPROF_SECRET_ENV); /* nothing this process starts inherits it */
  /* what the agent and the collector log: their notes too (info), unless LBSPROF_LOG says
   * otherwise (liblbsprof checked it); each line names who speaks */
  lbs_log_level level = LBS_LOG_INFO;
  lbs_log_level_from_env("LBSPROF_LOG", &level);
  lbs_log_set_level(level);
  static lbs_log_stream sink = {NULL, ""};
  lbs_log_set_sink(lbs_log_stream_sink, &sink);
  if (!strcmp(argv[1], "agent") && shm_fd >= 0 && coll && node >= 0) {
    snprintf(sink.prefix, sizeof sink.prefix, "lbsprof-agent (node %d): ", node);
    return lbs__agent_main(shm_fd, label, node, coll, compact, secret);
  }
  if (!strcmp(argv[1], "collect") && fd >= 0 && out) {
    snprintf(sink.prefix, sizeof sink.prefix,
             "lbsim: "); /* "lbsim: collect: ...", as in `lbsim collect` */
    int rc = lbs__collect_main(fd, addr, out, nodes, secret);
    /* the private directory rank 0 made for the socket, and the socket: ours, and only those */
    if (dir && !strncmp(addr, "unix:", 5)) {
      struct stat sb;
      if (lstat(addr + 5, &sb) == 0 && S_ISSOCK(sb.st_mode) && sb.st_uid == geteuid())
        unlink(addr + 5);
      rmdir(dir); /* only when empty */
    }
    return rc;
  }
  return usage();
}
