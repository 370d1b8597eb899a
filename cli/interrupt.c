/* interrupt.c - what an interrupted command leaves is removed.
 *
 * A command registers the outputs it is writing (a fresh output directory, a new trace, its
 * socket and token); when SIGINT, SIGTERM or SIGHUP arrives, the handler removes them and raises
 * the signal again under its default action, so that the exit status says the command was
 * killed by it. The handler runs at any moment, so it touches only a fixed table whose entries
 * become visible to it whole (an atomic flag set after the path is copied) and calls only
 * async-signal-safe functions: open, close, read, lstat, unlink, unlinkat, rmdir, getpid, kill,
 * nanosleep, sigaction, raise, and the getdents64 system call (through syscall(), a plain trap on
 * Linux) that lists a directory without readdir's malloc. */
#include "cli.h"
#include "lbs_emulate.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

enum { SLOTS = 16 };

typedef struct {
  atomic_int used; /* set last, cleared first: the handler sees only whole entries */
  cli_rm kind;
  int same; /* remove the path only while it is still the file dev/ino */
  dev_t dev;
  ino_t ino;
  char path[4200];
} slot;

static slot slots[SLOTS];
/* The process that registered the paths: a child forked by a command (a calibration kernel, a
 * validation run before its exec) inherits the handler, and Ctrl-C reaches it too, but what the
 * table names is its parent's to remove. */
static pid_t owner;
static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};

/* Appends s to the end of b (n bytes) without snprintf, which is not async-signal-safe. */
static void append(char *b, size_t n, const char *s) {
  size_t at = strlen(b);
  while (*s && at + 1 < n) b[at++] = *s++;
  b[at] = '\0';
}

/* What getdents64 returns: a record per entry, d_reclen bytes each. */
struct dirent64_rec {
  uint64_t d_ino;
  int64_t d_off;
  unsigned short d_reclen;
  unsigned char d_type;
  char d_name[];
};

/* Removes what the directory holds (a fresh directory of lbsim's: its files are all lbsim's),
 * then the directory. Entries are listed again after a pass that removed some, since removing
 * while listing may skip one. */
static void remove_tree(const char *path) {
  for (int pass = 0; pass < 8; pass++) {
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) return;
    _Alignas(8) char buf[4096];
    long n;
    int removed = 0;
    while ((n = syscall(SYS_getdents64, fd, buf, sizeof buf)) > 0)
      for (long off = 0; off < n;) {
        struct dirent64_rec *d = (struct dirent64_rec *)(void *)(buf + off);
        off += d->d_reclen;
        if (strcmp(d->d_name, ".") && strcmp(d->d_name, ".."))
          removed += unlinkat(fd, d->d_name, 0) == 0;
      }
    close(fd);
    if (!removed) break;
  }
  rmdir(path);
}

static void remove_slot(const slot *s) {
  struct stat sb;
  if (s->same && (lstat(s->path, &sb) || sb.st_dev != s->dev || sb.st_ino != s->ino)) return;
  if (s->kind == CLI_RM_DIR) {
    remove_tree(s->path);
    return;
  }
  if (s->kind == CLI_RM_CGROUP) {
    lbs_emulate_remove(s->path); /* async-signal-safe too */
    return;
  }
  unlink(s->path);
  if (s->kind != CLI_RM_DB) return;
  static const char *const side[] = {"-wal", "-shm", "-journal"};
  for (int i = 0; i < 3; i++) {
    char p[sizeof s->path + 16];
    p[0] = '\0';
    append(p, sizeof p, s->path);
    append(p, sizeof p, side[i]);
    unlink(p);
  }
}

static void (*_Atomic first_call)(void); /* cli_interrupt_call's */

static void on_signal(int sig) {
  int saved = errno;
  void (*fn)(void) = atomic_load(&first_call);
  if (fn && getpid() == owner) fn();
  for (int i = 0; i < SLOTS && getpid() == owner; i++)
    if (atomic_load(&slots[i].used)) remove_slot(&slots[i]);
  /* the default action, raised again: it arrives when the handler returns (the signal is
   * blocked until then) and ends the process as the signal would have */
  struct sigaction dfl = {.sa_handler = SIG_DFL};
  sigemptyset(&dfl.sa_mask);
  sigaction(sig, &dfl, NULL);
  raise(sig);
  errno = saved;
}

/* The handler, once, for the signals this process does not ignore: a command started with
 * SIGINT ignored (nohup, a background job of a script) keeps it ignored. */
static void install(void) {
  static int done;
  if (done) return;
  done = 1;
  owner = getpid();
  struct sigaction sa = {.sa_handler = on_signal};
  sigemptyset(&sa.sa_mask);
  for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++) sigaddset(&sa.sa_mask, sigs[i]);
  for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++) {
    struct sigaction old;
    if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler != SIG_IGN)
      sigaction(sigs[i], &sa, NULL);
  }
}

int cli_interrupt_remove(const char *path, cli_rm kind, const struct stat *same) {
  if (strlen(path) >= sizeof slots[0].path) return -1;
  install();
  for (int i = 0; i < SLOTS; i++) {
    slot *s = &slots[i];
    if (atomic_load(&s->used)) continue;
    s->kind = kind;
    s->same = same != NULL;
    s->dev = same ? same->st_dev : 0;
    s->ino = same ? same->st_ino : 0;
    strcpy(s->path, path);
    atomic_store(&s->used, 1);
    return i;
  }
  return -1;
}

void cli_interrupt_call(void (*fn)(void)) {
  install();
  atomic_store(&first_call, fn);
}

void cli_interrupt_keep(int id) {
  if (id >= 0 && id < SLOTS) atomic_store(&slots[id].used, 0);
}

void cli_interrupt_hold(sigset_t *saved) {
  sigset_t set;
  sigemptyset(&set);
  for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++) sigaddset(&set, sigs[i]);
  sigprocmask(SIG_BLOCK, &set, saved);
}

void cli_interrupt_release(const sigset_t *saved) { sigprocmask(SIG_SETMASK, saved, NULL); }
