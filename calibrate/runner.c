/* runner.c - calibration jobs in a child process: the IA heuristic on one implementation, or
 * the verification of its IPG.
 *
 * An implementation may crash, hang or leak (a GPU driver, a bad kernel): each job runs in a
 * forked child that opens the target, measures, and streams every sample back through a pipe
 * as it is taken. The parent enforces the time limit (SIGKILL), and whatever happens keeps the
 * samples received, so one failing implementation is recorded and the others go on. The parent
 * never touches OpenCL or CUDA, so the fork is clean. */
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lbs_calib_run.h"

enum { REC_DEVICE = 'D', REC_SAMPLE = 'S', REC_PROGRESS = 'P', REC_RESULT = 'R', REC_VERIFY = 'V' };

typedef struct {
  uint8_t type;
  uint32_t len;
} __attribute__((packed)) rec_hdr;

static int write_all(int fd, const void *p, size_t n) {
  const char *c = p;
  while (n) {
    ssize_t k = write(fd, c, n);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return -1;
    c += k, n -= (size_t)k;
  }
  return 0;
}

static int send_rec(int fd, int type, const void *p, size_t n) {
  rec_hdr h = {(uint8_t)type, (uint32_t)n};
  return write_all(fd, &h, sizeof h) || write_all(fd, p, n) ? -1 : 0;
}

typedef struct {
  int err;
  int complete;
  char message[512];
  char note[256];
  int npoints;
} result_msg;

static double now_s(void) { return lbs_clock_monotonic.now(NULL); }

/* ---------------------------------------------------------------- the child */

typedef struct {
  const lbs_calib_job *job;
  void *ctx;
  int fd;
  uint64_t k;
  double t0; /* when the job started */
} child;

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* A sample: the median of `repeat` timed calls on fresh parameters, so that one preempted or
 * interrupted call (an outlier of 10x and more on a shared machine) does not make a sample. */
static lbs_err child_sample(void *arg, double w, double *t) {
  child *c = arg;
  double r[LBS_CALIB_MAX_REPEAT];
  /* Stop by ourselves short of the parent's kill, so that what was built is kept (partial). */
  if (c->job->timeout_s > 0 && now_s() - c->t0 > 0.9 * c->job->timeout_s)
    return lbs_fail(
        LBS_RANGE,
        "stopped at 90%% of the time limit (%g s, --timeout) after %.1f s of work-metric sampling",
        c->job->timeout_s, now_s() - c->t0);
  int n = c->job->repeat < 1                      ? 1
          : c->job->repeat > LBS_CALIB_MAX_REPEAT ? LBS_CALIB_MAX_REPEAT
                                                  : c->job->repeat;
  for (int k = 0; k < n; k++) {
    lbs_err e = lbs_calib_measure(c->job->adapter, c->job->impl, c->ctx, w, c->job->seed + c->k++,
                                  &lbs_clock_monotonic, &r[k]);
    if (e) return e;
  }
  qsort(r, (size_t)n, sizeof *r, cmp_double);
  *t = n % 2 ? r[n / 2] : 0.5 * (r[n / 2 - 1] + r[n / 2]);
  double s[2] = {w, *t};
  if (send_rec(c->fd, REC_SAMPLE, s, sizeof s))
    return lbs_fail(LBS_IO, "the calibration pipe closed");
  return LBS_OK;
}

static void child_progress(void *arg, double frontier, int n) {
  child *c = arg;
  double p[2] = {frontier, n};
  send_rec(c->fd, REC_PROGRESS, p, sizeof p);
}

static void send_result(int fd, lbs_err e, int complete, const char *note, const lbs_ipg *g) {
  result_msg r = {0};
  r.err = (int)e;
  r.complete = complete;
  if (e)
    snprintf(r.message, sizeof r.message, "%s", *lbs_errmsg() ? lbs_errmsg() : lbs_strerror(e));
  if (note) snprintf(r.note, sizeof r.note, "%s", note);
  r.npoints = g ? g->n : 0;
  size_t n = sizeof r + 2 * sizeof(double) * (size_t)r.npoints;
  char *buf = malloc(n);
  if (!buf) return;
  memcpy(buf, &r, sizeof r);
  for (int k = 0; k < r.npoints; k++) {
    memcpy(buf + sizeof r + 16 * (size_t)k, &g->w[k], 8);
    memcpy(buf + sizeof r + 16 * (size_t)k + 8, &g->t[k], 8);
  }
  send_rec(fd, REC_RESULT, buf, n);
  free(buf);
}

/* Verification under the usage assumptions: a metric log-uniform over [lo, hi] (every decade
 * as likely), rounded to a valid one, and CreateParams there with fresh data. */
static double usage_metric(const lbs_calib_job *job, int k) {
  const lbs_adapter *a = job->adapter;
  double lo = job->lo > 1 ? job->lo : 1, hi = job->hi > lo ? job->hi : lo;
  double w = a->round_metric(
      exp(log(lo) + (log(hi) - log(lo)) * lbs_rng_unit(job->seed, 77, (uint64_t)k)));
  if (w < job->lo) w = a->next_metric(w);
  if (w > job->hi) w = a->round_metric(job->hi);
  return w;
}

static void child_main(const lbs_calib_job *job, int fd) {
  child c = {job, NULL, fd, 0, now_s()};
  char dev[160] = "";
  lbs_impl_args args = {job->threads, job->device};
  lbs_err e = job->impl->open(&c.ctx, &args, dev, sizeof dev);
  if (e) {
    send_result(fd, e, 0, NULL, NULL);
    return;
  }
  send_rec(fd, REC_DEVICE, dev, strlen(dev) + 1);
  if (job->kind == LBS_JOB_IA) {
    lbs_ia_space sp = {job->lo, job->hi, job->adapter->round_metric, job->adapter->next_metric};
    lbs_ia_result res;
    e = lbs_ia_run(&job->opts, &sp, child_sample, &c, child_progress, &c, &res);
    send_result(fd, e, res.complete, res.note, &res.ipg);
    lbs_ia_result_free(&res);
  } else { /* verification: random invocations over the range */
    int R = job->repeat < 1                      ? 1
            : job->repeat > LBS_CALIB_MAX_REPEAT ? LBS_CALIB_MAX_REPEAT
                                                 : job->repeat;
    for (int k = 0; !e && k < job->nverify; k++) {
      /* The invocation's time as a sample's: the median of R calls, each on a fresh copy of
       * the same parameters (a kernel may overwrite its inputs). */
      double r[LBS_CALIB_MAX_REPEAT], w = 0, t = 0;
      for (int q = 0; !e && q < R; q++) {
        void *params = NULL;
        if (job->varied)
          e = job->adapter->random_params(job->lo, job->hi, job->seed + (uint64_t)k, &params);
        else
          e = job->adapter->create_params(usage_metric(job, k), job->seed + (uint64_t)k, &params);
        if (e) break;
        w = job->adapter->calc_metric(params);
        double t0 = now_s();
        e = job->impl->execute(c.ctx, params);
        r[q] = now_s() - t0;
        job->adapter->delete_params(params);
      }
      if (e) break;
      qsort(r, (size_t)R, sizeof *r, cmp_double);
      t = R % 2 ? r[R / 2] : 0.5 * (r[R / 2 - 1] + r[R / 2]);
      double s[2] = {w, t};
      if (!e && send_rec(fd, REC_VERIFY, s, sizeof s))
        e = lbs_fail(LBS_IO, "the calibration pipe closed");
      child_progress(&c, k + 1, k + 1);
    }
    send_result(fd, e, !e, NULL, NULL);
  }
  job->impl->close(c.ctx);
}

/* ---------------------------------------------------------------- the parent */

static int read_all(int fd, void *p, size_t n, double deadline) {
  char *c = p;
  while (n) {
    int ms = -1;
    if (deadline > 0) {
      double left = deadline - now_s();
      if (left <= 0) return -2;
      ms = (int)(left * 1000) + 1;
    }
    struct pollfd pf = {fd, POLLIN, 0};
    int r = poll(&pf, 1, ms);
    if (r < 0 && errno == EINTR) continue;
    if (r == 0) return -2;
    ssize_t k = read(fd, c, n);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return -1;
    c += k, n -= (size_t)k;
  }
  return 0;
}

static lbs_err add_sample(lbs_sample **s, int *n, int *cap, double w, double t) {
  if (*n == *cap) {
    int c = *cap ? 2 * *cap : 64;
    lbs_sample *q = realloc(*s, (size_t)c * sizeof *q);
    if (!q) return lbs_fail(LBS_NOMEM, "samples");
    *s = q, *cap = c;
  }
  (*s)[(*n)++] = (lbs_sample){w, t};
  return LBS_OK;
}

/* The child's result record into out: its error, completeness, messages and IPG points. */
static void take_result(const char *buf, size_t len, lbs_calib_job_out *out) {
  result_msg rm;
  memcpy(&rm, buf, sizeof rm);
  if (len == sizeof rm + 16 * (size_t)rm.npoints && rm.npoints > 0) {
    out->ipg.w = malloc((size_t)rm.npoints * sizeof(double));
    out->ipg.t = malloc((size_t)rm.npoints * sizeof(double));
    if (out->ipg.w && out->ipg.t) {
      for (int k = 0; k < rm.npoints; k++) {
        memcpy(&out->ipg.w[k], buf + sizeof rm + 16 * (size_t)k, 8);
        memcpy(&out->ipg.t[k], buf + sizeof rm + 16 * (size_t)k + 8, 8);
      }
      out->ipg.n = rm.npoints;
    }
  }
  out->err = (lbs_err)rm.err;
  out->complete = rm.complete;
  snprintf(out->message, sizeof out->message, "%s", rm.message);
  snprintf(out->note, sizeof out->note, "%s", rm.note);
}

/* What the parent reads from the child's pipe. */
typedef struct reading {
  int cap;        /* of out->samples */
  int got_result; /* the result record came */
  int timed_out;  /* the deadline passed first */
} reading;

/* Reads the child's records until its pipe closes or the deadline passes: device, samples,
 * progress (told to job->progress), the result. An error only when the parent runs out of memory.
 */
static lbs_err read_records(const lbs_calib_job *job, int fd, double deadline, reading *rd,
                            lbs_calib_job_out *out) {
  lbs_err e = LBS_OK;
  while (!e) {
    rec_hdr h;
    int r = read_all(fd, &h, sizeof h, deadline);
    if (r) {
      rd->timed_out = r == -2;
      break;
    }
    char *buf = malloc(h.len ? h.len : 1);
    if (!buf) return lbs_fail(LBS_NOMEM, "calibration record");
    if ((r = read_all(fd, buf, h.len, deadline))) {
      free(buf);
      rd->timed_out = r == -2;
      break;
    }
    double d[2] = {0, 0};
    if (h.len == sizeof d) memcpy(d, buf, sizeof d);
    if (h.type == REC_DEVICE)
      snprintf(out->device, sizeof out->device, "%.*s", (int)h.len, buf);
    else if (h.type == REC_SAMPLE || h.type == REC_VERIFY)
      e = add_sample(&out->samples, &out->nsamples, &rd->cap, d[0], d[1]);
    else if (h.type == REC_PROGRESS && job->progress)
      job->progress(job->pctx, d[0], (int)d[1]);
    else if (h.type == REC_RESULT && h.len >= sizeof(result_msg))
      take_result(buf, h.len, out), rd->got_result = 1;
    free(buf);
  }
  return e;
}

/* Why the job has no result when the child gave none: it timed out, crashed or ended early. */
static void no_result(const lbs_calib_job *job, const reading *rd, int status,
                      lbs_calib_job_out *out) {
  if (rd->timed_out) {
    out->err = LBS_RANGE;
    snprintf(out->message, sizeof out->message,
             "timed out after %.0f s (--timeout) with %d samples", job->timeout_s, out->nsamples);
  } else if (!rd->got_result) {
    out->err = LBS_IO;
    if (WIFSIGNALED(status))
      snprintf(out->message, sizeof out->message,
               "the implementation crashed (signal %d: %s) after %d samples", WTERMSIG(status),
               strsignal(WTERMSIG(status)), out->nsamples);
    else
      snprintf(out->message, sizeof out->message,
               "the implementation's process ended (status %d) after %d samples",
               WEXITSTATUS(status), out->nsamples);
  }
}

lbs_err lbs_calib_job_run(const lbs_calib_job *job, lbs_calib_job_out *out) {
  memset(out, 0, sizeof *out);
  int p[2];
  if (pipe(p)) return lbs_fail(LBS_IO, "pipe: %s", strerror(errno));
  fflush(NULL);
  double t0 = now_s(), deadline = job->timeout_s > 0 ? t0 + job->timeout_s : 0;
  pid_t pid = fork();
  if (pid < 0) {
    close(p[0]), close(p[1]);
    return lbs_fail(LBS_IO, "fork: %s", strerror(errno));
  }
  if (pid == 0) {
    close(p[0]);
    signal(SIGPIPE, SIG_IGN);
    child_main(job, p[1]);
    close(p[1]);
    _exit(0);
  }
  close(p[1]);
  reading rd = {0};
  lbs_err e = read_records(job, p[0], deadline, &rd, out);
  if (rd.timed_out || e) kill(pid, SIGKILL);
  close(p[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
  out->seconds = now_s() - t0;
  if (e) return e;
  no_result(job, &rd, status, out);
  return LBS_OK;
}

void lbs_calib_job_out_free(lbs_calib_job_out *o) {
  lbs_ipg_free(&o->ipg);
  free(o->samples);
  memset(o, 0, sizeof *o);
}
