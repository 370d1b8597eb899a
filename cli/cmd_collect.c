/* cmd_collect.c - lbsim collect: a stand-alone profiler collector (the seed's GlobalAgent). */
#include <errno.h>
#include <getopt.h>
#include <openssl/crypto.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "prof_int.h"

/* Removes the socket this command listened on (only our socket: never what replaced it). */
static void unlink_socket(const char *addr) {
  struct stat sb;
  if (!strncmp(addr, "unix:", 5) && lstat(addr + 5, &sb) == 0 && S_ISSOCK(sb.st_mode) &&
      sb.st_uid == geteuid())
    unlink(addr + 5);
}

static void usage(void) {
  printf(
      "usage: lbsim collect --listen ADDR -o t.lbt [--token-file F] [--nodes N] [--force]\n\n"
      "Receives the profiler's node agents (liblbsprof with opts.collector = ADDR) and\n"
      "writes the trace store, one transaction per step completed by every node. ADDR is\n"
      "unix:/path/to/socket or tcp:HOST:PORT (tcp:*:0 picks a port on every interface;\n"
      "the address is printed). Exits when every agent has ended; steps some node never\n"
      "completed are left out and counted in the trace's profiler.* metadata.\n\n"
      "Only agents holding the token get in: every connection answers a challenge\n"
      "(HMAC-SHA256 over a fresh nonce) before anything it sends is read; others are\n"
      "dropped and logged. The token is a file of mode 0600: give the application\n"
      "LBSPROF_TOKEN_FILE=F (or opts.token_file).\n\noptions:\n"
      "  --token-file F  read the token from F, or write a new one there when F does\n"
      "                  not exist; it stays, so a restarted collector lets the same\n"
      "                  agents back in (default: t.lbt.token, made and removed here)\n"
      "  --nodes N       expect N node agents (default: as the run says)\n"
      "  -f, --force     replace the output file (a regular file only)\n\n"
      "Limits (environment): LBSPROF_AUTH_TIMEOUT_S (5: to authenticate),\n"
      "LBSPROF_CONN_IDLE_S (60: an agent's silence), LBSPROF_COLLECT_CONN_MB (1024: one\n"
      "connection's buffer), LBSPROF_COLLECT_IDLE_S (120: no agent at all).\n"
      "A unix socket is made mode 0600; its path may hold only a stale socket of ours.\n\n"
      "example:\n"
      "  lbsim collect --listen tcp:node0:7000 -o run.lbt --token-file ~/.lbsim-token &\n"
      "  LBSPROF_COLLECTOR=tcp:node0:7000 LBSPROF_TOKEN_FILE=~/.lbsim-token mpiexec -n 64 ./app\n");
}

typedef struct args {
  const char *addr, *out, *token;
  int64_t nodes;
  int force;
} args;

/* The command line into a: 0, 2 after a usage error, -1 after --help. */
static int parse(int argc, char **argv, args *a) {
  static const struct option lo[] = {{"listen", required_argument, 0, 'l'},
                                     {"output", required_argument, 0, 'o'},
                                     {"nodes", required_argument, 0, 'n'},
                                     {"force", no_argument, 0, 'f'},
                                     {"token-file", required_argument, 0, 't'},
                                     {"help", no_argument, 0, 'h'},
                                     {0, 0, 0, 0}};
  int c;
  while ((c = getopt_long(argc, argv, "l:o:n:ft:h", lo, NULL)) != -1) {
    switch (c) {
    case 'l': a->addr = optarg; break;
    case 'o':
      if (cli_output_arg("collect", "-o", optarg, &a->out)) return 2;
      break;
    case 'n':
      if (cli_parse_i64("--nodes", optarg, 1, 1 << 20, &a->nodes)) return 2;
      break;
    case 'f': a->force = 1; break;
    case 't': a->token = optarg; break;
    case 'h': usage(); return -1;
    default: return cli_usage("collect", "bad option");
    }
  }
  if (!a->addr) return cli_usage("collect", "missing --listen ADDR");
  if (!a->out) return cli_usage("collect", "missing -o FILE");
  if (optind < argc) return cli_usage("collect", "unexpected argument '%s'", argv[optind]);
  return 0;
}

/* The token: an existing file is read (and must be private), else a new one is written. *made
 * records a default token made here (made->st_ino 0 otherwise), to remove at the end. 0 or 1. */
static int take_token(const char *token, int is_default, uint8_t *secret, struct stat *made) {
  if (access(token, F_OK) == 0 || errno != ENOENT) {
    if (lbs__token_read(token, secret)) return cli_error("collect", LBS_IO);
    fprintf(stderr, "lbsim collect: token from %s\n", token);
    return 0;
  }
  if (lbs__token_create(token, secret)) return cli_error("collect", LBS_IO);
  if (!is_default || stat(token, made)) *made = (struct stat){0};
  fprintf(stderr, "lbsim collect: wrote a new token to %s (give the run LBSPROF_TOKEN_FILE=%s)\n",
          token, token);
  return 0;
}

int cmd_collect(int argc, char **argv) {
  args a = {0};
  int rc = parse(argc, argv, &a);
  if (rc) return rc < 0 ? 0 : rc;
  /* the output before the socket: an unwritable output is found now, not after the run */
  if (cli_check_output(a.out, a.force ? CLI_OUT_FORCE : CLI_OUT_NEW, CLI_FILE_TRACE)) return 1;
  char token_default[4200];
  struct stat made = {0}; /* the default token made here: removed at the end (the same file only) */
  uint8_t secret[LBSPROF_SECRET_BYTES];
  if (!a.token)
    snprintf(token_default, sizeof token_default, "%s.token", a.out), a.token = token_default;
  if (take_token(a.token, a.token == token_default, secret, &made)) return 1;
  char actual[512];
  int fd = lbs__listen(a.addr, actual, sizeof actual);
  rc = 1;
  if (fd < 0)
    cli_error("collect", LBS_IO);
  else if (!cli_replace_output(a.out, a.force, CLI_FILE_TRACE)) {
    fprintf(stderr, "lbsim collect: listening on %s\n", actual);
    rc = lbs__collect_main(fd, actual, a.out, (int)a.nodes, secret);
  }
  if (fd >= 0) close(fd), unlink_socket(actual);
  struct stat now;
  if (made.st_ino && lstat(a.token, &now) == 0 && now.st_dev == made.st_dev &&
      now.st_ino == made.st_ino)
    unlink(a.token);
  OPENSSL_cleanse(secret, sizeof secret);
  return rc;
}
