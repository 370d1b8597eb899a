/* emulate.c - a heterogeneous grid emulated on this machine by capping each rank's CPU
 * (lbs_emulate.h): the controller found, the groups made, joined, read and removed. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <mntent.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "lbs_emulate.h"

enum { PERIOD_US = 20000 };
static const char PREFIX[] = "lbsim-emulate-";

/* ---------------------------------------------------------------- removal (signal-safe) */

/* What getdents64 returns: a record per entry. */
struct dent64 {
  uint64_t d_ino;
  int64_t d_off;
  unsigned short d_reclen;
  unsigned char d_type;
  char d_name[];
};

/* a + "/" + b into out (n bytes), without snprintf; 0 when it does not fit. */
static int join(char *out, size_t n, const char *a, const char *b) {
  size_t la = strlen(a), lb = strlen(b);
  if (la + 1 + lb + 1 > n) return 0;
  memcpy(out, a, la);
  out[la] = '/';
  memcpy(out + la + 1, b, lb + 1);
  return 1;
}

/* SIGKILL to every process a group lists in cgroup.procs. */
static void kill_members(const char *group) {
  char path[4200];
  if (!join(path, sizeof path, group, "cgroup.procs")) return;
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return;
  char buf[4096];
  long pid = 0;
  int digits = 0;
  ssize_t n;
  while ((n = read(fd, buf, sizeof buf)) > 0)
    for (ssize_t i = 0; i < n; i++)
      if (buf[i] >= '0' && buf[i] <= '9')
        pid = pid * 10 + (buf[i] - '0'), digits = 1;
      else {
        if (digits && pid > 1) kill((pid_t)pid, SIGKILL);
        pid = 0, digits = 0;
      }
  if (digits && pid > 1) kill((pid_t)pid, SIGKILL);
  close(fd);
}

/* rmdir, again while its last processes exit (EBUSY), up to about 2 s. */
static void rmdir_wait(const char *dir) {
  for (int i = 0; i < 200 && rmdir(dir) && errno == EBUSY; i++) {
    kill_members(dir);
    struct timespec ts = {0, 10000000};
    nanosleep(&ts, NULL);
  }
}

void lbs_emulate_remove(const char *dir) {
  int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return;
  _Alignas(8) char buf[4096];
  long n;
  while ((n = syscall(SYS_getdents64, fd, buf, sizeof buf)) > 0)
    for (long off = 0; off < n;) {
      struct dent64 *d = (struct dent64 *)(void *)(buf + off);
      char child[4200];
      off += d->d_reclen;
      if (d->d_type == DT_DIR && strncmp(d->d_name, "rank", 4) == 0 &&
          join(child, sizeof child, dir, d->d_name)) {
        kill_members(child);
        rmdir_wait(child);
      }
    }
  close(fd);
  kill_members(dir);
  rmdir_wait(dir);
}

/* ---------------------------------------------------------------- the shares */

lbs_err lbs_emulate_shares(const lbs_grid *g, int ranks, double *share) {
  if (ranks < 1 || ranks > LBS_EMULATE_MAXRANKS || ranks > lbs_grid_procs(g))
    return lbs_fail(LBS_INVAL, "--emulate: %d ranks on a grid of %d processors (at most %d)", ranks,
                    lbs_grid_procs(g), LBS_EMULATE_MAXRANKS);
  for (int r = 0; r < ranks; r++) {
    double ns = (double)lbs_grid_compute_ns(g, r, 1e9);
    const char *type = lbs_grid_proc_nodetype(g, r);
    if (!(ns > 0) || ns >= 9e18)
      return lbs_fail(LBS_INVAL,
                      "--emulate: processor %d (%s) has failed on this grid: a rank "
                      "cannot run at speed 0",
                      r, type);
    share[r] = 1e9 / ns;
    if (share[r] > 1 + 1e-9)
      return lbs_fail(LBS_INVAL,
                      "--emulate: processor %d (%s) runs %.3g times as fast as this machine: a "
                      "rank cannot be made faster than its core (give speeds of at most 1, this "
                      "machine's, as 'lbsim grid probe' writes)",
                      r, type, share[r]);
    if (share[r] < LBS_EMULATE_MIN_SHARE)
      return lbs_fail(LBS_INVAL,
                      "--emulate: processor %d (%s) runs at %.3g of this machine's speed, below "
                      "the %.2g a CPU quota can hold",
                      r, type, share[r], LBS_EMULATE_MIN_SHARE);
    if (share[r] > 1) share[r] = 1;
  }
  return LBS_OK;
}

/* ---------------------------------------------------------------- the controller */

/* Whether the file lists word among its blank-separated words. */
static int lists(const char *path, const char *word) {
  char *text = NULL;
  size_t n;
  int found = 0;
  if (lbs_read_file(path, &text, &n)) return 0;
  for (char *s = NULL, *t = strtok_r(text, " \n", &s); t && !found; t = strtok_r(NULL, " \n", &s))
    found = !strcmp(t, word);
  free(text);
  return found;
}

/* The CPU controller's root into root (n bytes) and its version; 0 when there is none. */
static int find_controller(char *root, size_t n) {
  const char *env = getenv("LBSIM_CGROUP_CPU");
  char p[4200];
  if (env && *env) {
    snprintf(root, n, "%s", env);
    if (join(p, sizeof p, env, "cpu.cfs_quota_us") && access(p, F_OK) == 0) return 1;
    return join(p, sizeof p, env, "cgroup.controllers") && lists(p, "cpu") ? 2 : 0;
  }
  FILE *f = setmntent("/proc/self/mounts", "r");
  if (!f) return 0;
  int v1 = 0, v2 = 0;
  char r1[4096] = "", r2[4096] = "";
  for (struct mntent *m; (m = getmntent(f));) {
    if (!v2 && !strcmp(m->mnt_type, "cgroup2") &&
        join(p, sizeof p, m->mnt_dir, "cgroup.controllers") && lists(p, "cpu"))
      v2 = 1, snprintf(r2, sizeof r2, "%s", m->mnt_dir);
    else if (!v1 && !strcmp(m->mnt_type, "cgroup") && hasmntopt(m, "cpu"))
      v1 = 1, snprintf(r1, sizeof r1, "%s", m->mnt_dir);
  }
  endmntent(f);
  snprintf(root, n, "%s", v2 ? r2 : r1);
  return v2 ? 2 : v1 ? 1 : 0;
}

/* Writes text into dir/name. */
static lbs_err put(const char *dir, const char *name, const char *text) {
  char p[4200];
  if (!join(p, sizeof p, dir, name))
    return lbs_fail(LBS_INVAL, "--emulate: %s: path too long", dir);
  int fd = open(p, O_WRONLY | O_CLOEXEC);
  size_t len = strlen(text);
  if (fd < 0 || write(fd, text, len) != (ssize_t)len) {
    lbs_err e =
        lbs_fail(LBS_IO, "--emulate: cannot write '%s' into %s: %s", text, p, strerror(errno));
    if (fd >= 0) close(fd);
    return e;
  }
  return close(fd) ? lbs_fail(LBS_IO, "--emulate: %s: %s", p, strerror(errno)) : LBS_OK;
}

/* The groups of lbsim processes that are gone (killed before they could remove them). */
static void sweep_stale(const char *root) {
  DIR *d = opendir(root);
  if (!d) return;
  for (struct dirent *e; (e = readdir(d));) {
    char *end;
    if (strncmp(e->d_name, PREFIX, sizeof PREFIX - 1)) continue;
    long pid = strtol(e->d_name + sizeof PREFIX - 1, &end, 10);
    char p[4200];
    if (*end || pid <= 0 || kill((pid_t)pid, 0) == 0 || errno != ESRCH) continue; /* alive */
    if (join(p, sizeof p, root, e->d_name)) lbs_emulate_remove(p);
  }
  closedir(d);
}

/* Rank r's group, with its quota. */
static lbs_err make_rank(const lbs_emulate *em, int r) {
  char g[4200], name[32], val[64];
  snprintf(name, sizeof name, "rank%d", r);
  if (!join(g, sizeof g, em->dir, name)) return lbs_fail(LBS_INVAL, "--emulate: path too long");
  if (mkdir(g, 0755))
    return lbs_fail(LBS_IO, "--emulate: cannot make the control group %s: %s", g, strerror(errno));
  long long q = llround(em->share[r] * (double)em->period_us);
  if (em->version == 2) {
    if (em->share[r] < 1)
      snprintf(val, sizeof val, "%lld %lld", q, (long long)em->period_us);
    else
      snprintf(val, sizeof val, "max %lld", (long long)em->period_us);
    return put(g, "cpu.max", val);
  }
  snprintf(val, sizeof val, "%lld", (long long)em->period_us);
  lbs_err e = put(g, "cpu.cfs_period_us", val);
  snprintf(val, sizeof val, "%lld", em->share[r] < 1 ? q : -1LL);
  return e ? e : put(g, "cpu.cfs_quota_us", val);
}

lbs_err lbs_emulate_open(lbs_emulate *em, const lbs_grid *g, int ranks) {
  memset(em, 0, sizeof *em);
  lbs_err e = lbs_emulate_shares(g, ranks, em->share);
  if (e) return e;
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) < ranks)
    return lbs_fail(LBS_INVAL,
                    "--emulate: %d ranks on %d CPU%s: each capped rank needs a CPU of its own",
                    ranks, CPU_COUNT(&set), CPU_COUNT(&set) == 1 ? "" : "s");
  char root[4096];
  int v = find_controller(root, sizeof root);
  if (!v)
    return lbs_fail(LBS_NOTFOUND,
                    "--emulate: no CPU controller %s%s (cgroup v2 with cpu in cgroup.controllers, "
                    "or a v1 cgroup mounted with the cpu option)",
                    getenv("LBSIM_CGROUP_CPU") ? "at " : "mounted",
                    getenv("LBSIM_CGROUP_CPU") ? root : "");
  if (access(root, W_OK))
    return lbs_fail(
        LBS_IO,
        "--emulate: the CPU controller at %s is not writable (%s): run as root, or where "
        "the controller is delegated to you",
        root, strerror(errno));
  sweep_stale(root);
  char sub[4200];
  if (v == 2 && join(sub, sizeof sub, root, "cgroup.subtree_control") && !lists(sub, "cpu") &&
      (e = put(root, "cgroup.subtree_control", "+cpu")))
    return e;
  em->version = v, em->ranks = ranks, em->period_us = PERIOD_US;
  char name[64];
  snprintf(name, sizeof name, "%s%ld", PREFIX, (long)getpid());
  if (!join(em->dir, sizeof em->dir, root, name))
    return lbs_fail(LBS_INVAL, "--emulate: path too long");
  if (mkdir(em->dir, 0755)) {
    e = lbs_fail(LBS_IO, "--emulate: cannot make the control group %s: %s", em->dir,
                 strerror(errno));
    em->dir[0] = '\0';
    return e;
  }
  if (v == 2) e = put(em->dir, "cgroup.subtree_control", "+cpu");
  for (int r = 0; !e && r < ranks; r++) e = make_rank(em, r);
  if (e) {
    lbs_emulate_remove(em->dir);
    em->dir[0] = '\0';
  }
  return e;
}

int lbs_emulate_wrap(const lbs_emulate *em, char **w) {
  static const char script[] =
      "r=${OMPI_COMM_WORLD_RANK:-${PMIX_RANK:-${PMI_RANK:-}}}; "
      "[ -n \"$r\" ] || { echo 'lbsim --emulate: no rank in the environment "
      "(OMPI_COMM_WORLD_RANK, PMIX_RANK, PMI_RANK)' >&2; exit 1; }; "
      "echo $$ >\"$0/rank$r/cgroup.procs\" || exit 1; exec \"$@\"";
  w[0] = "/bin/sh", w[1] = "-c", w[2] = (char *)script, w[3] = (char *)em->dir;
  return 4;
}

lbs_err lbs_emulate_throttled(const lbs_emulate *em, int r, int64_t *periods, double *seconds) {
  *periods = 0, *seconds = 0;
  char p[4300];
  snprintf(p, sizeof p, "%s/rank%d/cpu.stat", em->dir, r);
  char *text = NULL;
  size_t n;
  if (lbs_read_file(p, &text, &n)) return lbs_fail(LBS_IO, "--emulate: %s: %s", p, lbs_errmsg());
  const char *time_key = em->version == 2 ? "throttled_usec " : "throttled_time ";
  double unit = em->version == 2 ? 1e-6 : 1e-9;
  for (char *s = NULL, *line = strtok_r(text, "\n", &s); line; line = strtok_r(NULL, "\n", &s)) {
    if (!strncmp(line, "nr_throttled ", 13)) *periods = strtoll(line + 13, NULL, 10);
    if (!strncmp(line, time_key, strlen(time_key)))
      *seconds = unit * strtod(line + strlen(time_key), NULL);
  }
  free(text);
  return LBS_OK;
}

void lbs_emulate_close(lbs_emulate *em) {
  if (em->dir[0]) lbs_emulate_remove(em->dir);
  memset(em, 0, sizeof *em);
}

const char *lbs_emulate_controller(const lbs_emulate *em) {
  return em->version == 2   ? "cgroup v2 cpu.max"
         : em->version == 1 ? "cgroup v1 cpu.cfs_quota_us"
                            : "";
}
