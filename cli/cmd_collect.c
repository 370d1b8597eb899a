/* cmd_collect.c - lbsim collect: a stand-alone profiler collector (the seed's GlobalAgent). */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <openssl/crypto.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
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

/* The socket this command listens on, removed if a signal ends the command (the same file only):
 * an id for cli_interrupt_keep, or -1 (a TCP address has nothing to remove). */
static int guard_socket(const char *addr) {
  struct stat sb;
  if (strncmp(addr, "unix:", 5) || lstat(addr + 5, &sb)) return -1;
  return cli_interrupt_remove(addr + 5, CLI_RM_FILE, &sb);
}

static void usage(void) {
  printf(
      "usage: lbsim collect --listen ADDR -o t.lbt [--token-file F] [--nodes N] [--force]\n\n"
      "Receives the profiler's node agents (liblbsprof with opts.collector = ADDR) and\n"
      "writes the trace store, one transaction per step completed by every node. ADDR is\n"
      "unix:/path/to/socket or tcp:HOST:PORT, PORT in 1..65535 (tcp:*:0 picks a port on\n"
      "every interface; the address is printed). Exits when every agent has ended; steps\n"
      "some node never completed are left out and counted in the trace's profiler.*\n"
      "metadata.\n\n"
      "Only agents holding the token get in: every connection answers a challenge\n"
      "(HMAC-SHA256 over a fresh nonce) before anything it sends is read; others are\n"
      "dropped and logged. The token is a file of mode 0600: give the application\n"
      "LBSPROF_TOKEN_FILE=F (or opts.token_file).\n\noptions:\n"
      "  --token-file F  read the token from F, or write a new one there when F does\n"
      "                  not exist; it stays, so a restarted collector lets the same\n"
      "                  agents back in (default: t.lbt.token, made and removed here,\n"
      "                  also on SIGINT and SIGTERM; one a killed collector left is\n"
      "                  replaced with a warning, one a running collector holds refused)\n"
      "  --nodes N       expect N node agents (default: as the run says)\n"
      "  -f, --force     replace the output file (a regular file only)\n\n"
      "Limits (environment): LBSPROF_AUTH_TIMEOUT_S (5: to authenticate),\n"
      "LBSPROF_CONN_IDLE_S (60: an agent's silence), LBSPROF_COLLECT_CONN_MB (1024: one\n"
      "connection's buffer), LBSPROF_COLLECT_STEP_MB (16384: the steps being assembled),\n"
      "LBSPROF_COLLECT_IDLE_S (120: no agent at all); a value that is not a number in its\n"
      "range is refused.\n"
      "A unix socket is made mode 0600; its path may hold only a stale socket of ours\n"
      "(replaced with a warning).\n\n"
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
  while ((c = cli_getopt(argc, argv, "l:o:n:ft:h", lo)) != -1) {
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
    default: return cli_bad_option("collect");
    }
  }
  if (!a->addr) return cli_usage("collect", "missing --listen ADDR");
  if (lbs__addr_check(a->addr, 1)) return cli_usage("collect", "--listen: %s", lbs_errmsg());
  if (!a->out) return cli_usage("collect", "missing -o FILE");
  if (optind < argc) return cli_usage("collect", "unexpected argument '%s'", argv[optind]);
  return 0;
}

/* A default token already there was made by another collector of the same output: one that
 * runs (it holds the token's lock: refused) or one that was killed before it could remove it
 * (nobody holds the lock: removed, so that the agents of that dead run, still holding its
 * secret, cannot get into this one). Anything but a regular file of ours is left to
 * lbs__token_read to name. 0, or 1 after the error. */
static int clear_stale_token(const char *token) {
  int fd = open(token, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  struct stat sb;
  if (fd < 0) return 0;
  if (fstat(fd, &sb) || !S_ISREG(sb.st_mode) || sb.st_uid != geteuid()) return close(fd), 0;
  if (flock(fd, LOCK_EX | LOCK_NB)) {
    fprintf(stderr,
            "lbsim: collect: %s: in use by a running collector (is another 'lbsim collect' "
            "writing the same output?)\n",
            token);
    return close(fd), 1;
  }
  if (unlink(token)) {
    fprintf(stderr, "lbsim: collect: %s: cannot remove the stale token: %s\n", token,
            strerror(errno));
    return close(fd), 1;
  }
  close(fd);
  fprintf(stderr,
          "lbsim: collect: warning: %s: a stale token left by a collector that did not finish; "
          "removed (a new one follows)\n",
          token);
  return 0;
}

/* The token: an existing file is read (and must be private), else a new one is written. *made
 * records a default token made here (made->st_ino 0 otherwise), to remove at the end; *lock is
 * then a descriptor of it holding its lock while this collector runs (clear_stale_token). 0 or
 * 1. */
static int take_token(const char *token, int is_default, uint8_t *secret, struct stat *made,
                      int *lock) {
  if (is_default && clear_stale_token(token)) return 1;
  if (access(token, F_OK) == 0 || errno != ENOENT) {
    if (lbs__token_read(token, secret)) return cli_error("collect", LBS_IO);
    fprintf(stderr, "lbsim: collect: token from %s\n", token);
    return 0;
  }
  if (lbs__token_create(token, secret)) return cli_error("collect", LBS_IO);
  if (!is_default || stat(token, made)) *made = (struct stat){0};
  if (made->st_ino && (*lock = open(token, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) >= 0)
    flock(*lock, LOCK_EX | LOCK_NB);
  fprintf(stderr, "lbsim: collect: wrote a new token to %s (give the run LBSPROF_TOKEN_FILE=%s)\n",
          token, token);
  return 0;
}

int cmd_collect(int argc, char **argv) {
  args a = {0};
  int rc = parse(argc, argv, &a);
  if (rc) return rc < 0 ? 0 : rc;
  /* the limits from the environment before anything is made (the collector reads them) */
  if (lbs__env_check(LBS_ENV_FIRST_COLLECTOR, LBS_ENV_N)) return cli_error("collect", LBS_INVAL);
  /* the output before the socket: an unwritable output is found now, not after the run */
  if (cli_check_output(a.out, a.force ? CLI_OUT_FORCE : CLI_OUT_NEW, CLI_FILE_TRACE)) return 1;
  char token_default[4200];
  struct stat made = {0}; /* the default token made here: removed at the end (the same file only) */
  uint8_t secret[LBSPROF_SECRET_BYTES];
  if (!a.token)
    snprintf(token_default, sizeof token_default, "%s.token", a.out), a.token = token_default;
  /* the token this command makes and its socket are removed if a signal ends it: registered as
   * they are made, no signal in between */
  int lock = -1, guard_token = -1, guard_sock = -1, fd = -1;
  char actual[512];
  sigset_t saved;
  cli_interrupt_hold(&saved);
  rc = take_token(a.token, a.token == token_default, secret, &made, &lock);
  if (!rc && made.st_ino) guard_token = cli_interrupt_remove(a.token, CLI_RM_FILE, &made);
  if (!rc && (fd = lbs__listen(a.addr, actual, sizeof actual)) >= 0)
    guard_sock = guard_socket(actual);
  cli_interrupt_release(&saved);
  if (rc) return 1;
  rc = 1;
  if (fd < 0)
    cli_error("collect", LBS_IO);
  else if (!cli_replace_output(a.out, a.force, CLI_FILE_TRACE)) {
    fprintf(stderr, "lbsim: collect: listening on %s\n", actual);
    rc = lbs__collect_main(fd, actual, a.out, (int)a.nodes, secret);
  }
  if (fd >= 0) close(fd), unlink_socket(actual);
  cli_interrupt_keep(guard_sock);
  struct stat now;
  if (made.st_ino && lstat(a.token, &now) == 0 && now.st_dev == made.st_dev &&
      now.st_ino == made.st_ino)
    unlink(a.token);
  cli_interrupt_keep(guard_token);
  if (lock >= 0) close(lock);
  OPENSSL_cleanse(secret, sizeof secret);
  return rc;
}
