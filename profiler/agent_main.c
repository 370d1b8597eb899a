/* agent_main.c - the lbsprof-agent program: `agent` (one per node) and `collect` (one per
 * run) modes, started by liblbsprof. Not meant to be run by hand; `lbsim collect` is the
 * collector for users. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prof_int.h"

static int usage(void) {
  fprintf(stderr, "usage: lbsprof-agent agent --shm NAME --node K --collector ADDR\n"
                  "       lbsprof-agent collect --fd N --addr ADDR --nodes N -o t.lbt\n"
                  "(started by liblbsprof; run 'lbsim collect' for a stand-alone collector)\n");
  return 2;
}

int main(int argc, char **argv) {
  if (argc < 2) return usage();
  const char *shm = NULL, *coll = NULL, *addr = "", *out = NULL;
  int node = -1, fd = -1, nodes = 0;
  for (int i = 2; i + 1 < argc; i += 2) {
    if (!strcmp(argv[i], "--shm")) shm = argv[i + 1];
    else if (!strcmp(argv[i], "--node")) node = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "--collector")) coll = argv[i + 1];
    else if (!strcmp(argv[i], "--fd")) fd = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "--addr")) addr = argv[i + 1];
    else if (!strcmp(argv[i], "--nodes")) nodes = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "-o")) out = argv[i + 1];
    else return usage();
  }
  if (!strcmp(argv[1], "agent") && shm && coll && node >= 0) return lbs__agent_main(shm, node, coll);
  if (!strcmp(argv[1], "collect") && fd >= 0 && out) return lbs__collect_main(fd, addr, out, nodes, 0);
  return usage();
}
