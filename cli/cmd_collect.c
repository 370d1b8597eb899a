/* cmd_collect.c - lbsim collect: a stand-alone profiler collector (the seed's GlobalAgent). */
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "prof_int.h"

/* Removes the socket this command listened on (only a socket: never what replaced it). */
static void unlink_socket(const char *addr) {
  struct stat sb;
  if (!strncmp(addr, "unix:", 5) && lstat(addr + 5, &sb) == 0 && S_ISSOCK(sb.st_mode))
    unlink(addr + 5);
}

int cmd_collect(int argc, char **argv) {
  static const struct option lo[] = {{"listen", required_argument, 0, 'l'}, {"output", required_argument, 0, 'o'},
                                     {"nodes", required_argument, 0, 'n'},  {"force", no_argument, 0, 'f'},
                                     {"help", no_argument, 0, 'h'},         {0, 0, 0, 0}};
  const char *addr = NULL, *out = NULL;
  int64_t nodes = 0;
  int force = 0, c;
  while ((c = getopt_long(argc, argv, "l:o:n:fh", lo, NULL)) != -1) {
    switch (c) {
    case 'l': addr = optarg; break;
    case 'o': out = optarg; break;
    case 'n': if (cli_parse_i64("--nodes", optarg, 1, 1 << 20, &nodes)) return 2; break;
    case 'f': force = 1; break;
    case 'h':
      printf("usage: lbsim collect --listen ADDR -o t.lbt [--nodes N] [--force]\n\n"
             "Receives the profiler's node agents (liblbsprof with opts.collector = ADDR) and\n"
             "writes the trace store, one transaction per step completed by every node. ADDR is\n"
             "unix:/path/to/socket or tcp:HOST:PORT (tcp:*:0 picks a port; the address is\n"
             "printed). Exits when every agent has ended; steps some node never completed are\n"
             "left out and counted in the trace's profiler.* metadata.\n\noptions:\n"
             "  --nodes N   expect N node agents (default: as the run says)\n"
             "  -f, --force replace the output file (a regular file only)\n\n"
             "A unix socket path may hold only a stale socket (nobody listening there).\n");
      return 0;
    default: return cli_usage("collect", "bad option");
    }
  }
  if (!addr) return cli_usage("collect", "missing --listen ADDR");
  if (!out) return cli_usage("collect", "missing -o FILE");
  if (optind < argc) return cli_usage("collect", "unexpected argument '%s'", argv[optind]);
  /* the output before the socket: an unwritable output is found now, not after the run */
  if (cli_check_output(out, force ? CLI_OUT_FORCE : CLI_OUT_NEW)) return 1;
  char actual[512];
  int fd = lbs__listen(addr, actual, sizeof actual);
  if (fd < 0) return cli_error("collect", LBS_IO);
  if (cli_replace_output(out, force)) {
    close(fd);
    unlink_socket(actual);
    return 1;
  }
  fprintf(stderr, "lbsim collect: listening on %s\n", actual);
  int rc = lbs__collect_main(fd, actual, out, (int)nodes, force);
  close(fd);
  unlink_socket(actual);
  return rc;
}
