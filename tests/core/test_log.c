/* test_log.c - lbs_log: levels and the threshold, sinks (the default one, a program's prefix
 * sink, one that logs), formatting, the MPI rank from the launcher's environment, threads. */
#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "lbs_core.h"

/* A sink that keeps what it was given. */
#define CAP_MAX 64
typedef struct {
  int n;
  lbs_log_level level[CAP_MAX];
  char *msg[CAP_MAX];
} capture;

static void capture_sink(void *arg, lbs_log_level level, const char *msg) {
  capture *c = arg;
  if (c->n == CAP_MAX) return;
  c->level[c->n] = level;
  c->msg[c->n++] = strdup(msg);
}

static void capture_free(capture *c) {
  for (int i = 0; i < c->n; i++) free(c->msg[i]);
  c->n = 0;
}

Test(log, warnings_and_errors_pass_by_default) {
  capture c = {0};
  lbs_log_set_sink(capture_sink, &c);
  cr_assert_eq(lbs_log_get_level(), LBS_LOG_WARN);
  lbs_log(LBS_LOG_DEBUG, "debug %d", 1);
  lbs_log(LBS_LOG_INFO, "info %d", 2);
  lbs_log(LBS_LOG_WARN, "warn %d", 3);
  lbs_log(LBS_LOG_ERROR, "error %s", "four");
  cr_assert_eq(c.n, 2);
  cr_assert_eq(c.level[0], LBS_LOG_WARN);
  cr_assert_str_eq(c.msg[0], "warn 3");
  cr_assert_eq(c.level[1], LBS_LOG_ERROR);
  cr_assert_str_eq(c.msg[1], "error four");
  cr_assert(lbs_log_enabled(LBS_LOG_WARN));
  cr_assert_not(lbs_log_enabled(LBS_LOG_INFO));
  capture_free(&c);
}

Test(log, the_threshold_lets_through_its_level_and_the_more_severe) {
  capture c = {0};
  lbs_log_set_sink(capture_sink, &c);
  lbs_log_set_level(LBS_LOG_DEBUG);
  for (int l = LBS_LOG_ERROR; l <= LBS_LOG_DEBUG; l++)
    lbs_log((lbs_log_level)l, "%s", lbs_log_level_name((lbs_log_level)l));
  cr_assert_eq(c.n, 4);
  cr_assert_str_eq(c.msg[3], "debug");
  capture_free(&c);
  lbs_log_set_level(LBS_LOG_ERROR);
  for (int l = LBS_LOG_ERROR; l <= LBS_LOG_DEBUG; l++)
    lbs_log((lbs_log_level)l, "%s", lbs_log_level_name((lbs_log_level)l));
  cr_assert_eq(c.n, 1);
  cr_assert_str_eq(c.msg[0], "error");
  capture_free(&c);
  lbs_log_set_level(LBS_LOG_INFO);
  lbs_log(LBS_LOG_INFO, "info");
  lbs_log(LBS_LOG_DEBUG, "debug");
  cr_assert_eq(c.n, 1);
  cr_assert_eq(c.level[0], LBS_LOG_INFO);
  capture_free(&c);
}

Test(log, long_messages_arrive_whole_and_one_trailing_newline_goes) {
  capture c = {0};
  lbs_log_set_sink(capture_sink, &c);
  char big[5000];
  memset(big, 'x', sizeof big - 1);
  big[sizeof big - 1] = '\0';
  lbs_log(LBS_LOG_ERROR, "a%sb", big);
  lbs_log(LBS_LOG_ERROR, "one line\n");
  cr_assert_eq(c.n, 2);
  cr_assert_eq(strlen(c.msg[0]), sizeof big + 1);
  cr_assert_eq(c.msg[0][0], 'a');
  cr_assert_eq(c.msg[0][sizeof big], 'b');
  cr_assert_str_eq(c.msg[1], "one line");
  capture_free(&c);
}

/* The default sink writes the message as it is, with a newline, to stderr: library wording
 * reaches a program that never heard of lbs_log unchanged. A NULL sink restores it. */
Test(log, the_default_sink_writes_the_message_as_it_is, .init = cr_redirect_stderr) {
  lbs_log(LBS_LOG_WARN, "lbsprof: warning: rank %d: %s", 3, "the node agent is gone");
  capture c = {0};
  lbs_log_set_sink(capture_sink, &c);
  lbs_log(LBS_LOG_WARN, "to the capture");
  lbs_log_set_sink(NULL, &c);
  lbs_log(LBS_LOG_ERROR, "collect: out of memory");
  lbs_log(LBS_LOG_INFO, "not shown");
  fflush(stderr);
  cr_assert_stderr_eq_str(
      "lbsprof: warning: rank 3: the node agent is gone\ncollect: out of memory\n");
  cr_assert_eq(c.n, 1);
  capture_free(&c);
}

Test(log, a_stream_sink_prefixes_each_line) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  lbs_log_stream s = {f, ""};
  lbs_log_prefix(s.prefix, sizeof s.prefix, "lbsim", 1, 2);
  lbs_log_set_sink(lbs_log_stream_sink, &s);
  lbs_log(LBS_LOG_WARN, "collect: %lld connection%s refused: wrong token", 2LL, "s");
  lbs_log_prefix(s.prefix, sizeof s.prefix, "lbsim", 0, 1);
  lbs_log(LBS_LOG_ERROR, "replay: step %d", 7);
  fclose(f);
  cr_assert_str_eq(
      buf, "lbsim[rank 1]: collect: 2 connections refused: wrong token\nlbsim: replay: step 7\n");
  free(buf);
}

Test(log, prefixes) {
  char b[64];
  cr_assert_str_eq(lbs_log_prefix(b, sizeof b, "lbsim", 0, 1), "lbsim: ");
  cr_assert_str_eq(lbs_log_prefix(b, sizeof b, "lbsim", 0, 2), "lbsim[rank 0]: ");
  cr_assert_str_eq(lbs_log_prefix(b, sizeof b, "lbsim", 15, 16), "lbsim[rank 15]: ");
  cr_assert_str_eq(lbs_log_prefix(b, 8, "lbsim", 15, 16), "lbsim[r", "cut to the buffer");
}

Test(log, the_rank_comes_from_the_launcher) {
  int r = -1, s = -1;
  unsetenv("OMPI_COMM_WORLD_RANK"), unsetenv("OMPI_COMM_WORLD_SIZE"), unsetenv("PMI_RANK"),
      unsetenv("PMI_SIZE");
  cr_assert_eq(lbs_log_mpi_env(&r, &s), 0);
  cr_assert_eq(r, 0);
  cr_assert_eq(s, 1);
  setenv("PMI_RANK", "2", 1), setenv("PMI_SIZE", "3", 1);
  cr_assert_eq(lbs_log_mpi_env(&r, &s), 1);
  cr_assert_eq(r, 2);
  cr_assert_eq(s, 3);
  setenv("OMPI_COMM_WORLD_RANK", "1", 1),
      setenv("OMPI_COMM_WORLD_SIZE", "4", 1); /* Open MPI's first */
  cr_assert_eq(lbs_log_mpi_env(&r, &s), 1);
  cr_assert_eq(r, 1);
  cr_assert_eq(s, 4);
  setenv("OMPI_COMM_WORLD_RANK", "4", 1); /* not a rank of the job: the next launcher's */
  cr_assert_eq(lbs_log_mpi_env(&r, &s), 1);
  cr_assert_eq(r, 2);
  setenv("PMI_SIZE", "x", 1);
  cr_assert_eq(lbs_log_mpi_env(&r, &s), 0);
  cr_assert_eq(s, 1);
}

Test(log, level_names_parse_and_come_from_the_environment) {
  lbs_log_level l;
  cr_assert_eq(lbs_log_level_parse("debug", &l), LBS_OK);
  cr_assert_eq(l, LBS_LOG_DEBUG);
  cr_assert_eq(lbs_log_level_parse("WARNING", &l), LBS_OK);
  cr_assert_eq(l, LBS_LOG_WARN);
  cr_assert_eq(lbs_log_level_parse("Info", &l), LBS_OK);
  cr_assert_eq(l, LBS_LOG_INFO);
  cr_assert_eq(lbs_log_level_parse("loud", &l), LBS_PARSE);
  cr_assert_str_eq(lbs_errmsg(), "'loud' is not a log level (error, warn, info, debug)");
  cr_assert_eq(l, LBS_LOG_INFO, "unchanged on error");
  for (int i = LBS_LOG_ERROR; i <= LBS_LOG_DEBUG; i++) {
    cr_assert_eq(lbs_log_level_parse(lbs_log_level_name((lbs_log_level)i), &l), LBS_OK);
    cr_assert_eq((int)l, i);
  }
  unsetenv("LBS_TEST_LOG");
  l = LBS_LOG_ERROR;
  cr_assert_eq(lbs_log_level_from_env("LBS_TEST_LOG", &l), LBS_OK);
  cr_assert_eq(l, LBS_LOG_ERROR, "unset: unchanged");
  setenv("LBS_TEST_LOG", "", 1);
  cr_assert_eq(lbs_log_level_from_env("LBS_TEST_LOG", &l), LBS_OK);
  cr_assert_eq(l, LBS_LOG_ERROR, "empty: unchanged");
  setenv("LBS_TEST_LOG", "debug", 1);
  cr_assert_eq(lbs_log_level_from_env("LBS_TEST_LOG", &l), LBS_OK);
  cr_assert_eq(l, LBS_LOG_DEBUG);
  setenv("LBS_TEST_LOG", "verbose", 1);
  cr_assert_eq(lbs_log_level_from_env("LBS_TEST_LOG", &l), LBS_PARSE);
  cr_assert_str_eq(lbs_errmsg(),
                   "LBS_TEST_LOG: 'verbose' is not a log level (error, warn, info, debug)");
}

/* A sink that logs does not deadlock: its message goes to stderr as it is. */
static void logging_sink(void *arg, lbs_log_level level, const char *msg) {
  capture_sink(arg, level, msg);
  lbs_log(LBS_LOG_ERROR, "from the sink: %s", msg);
}

Test(log, a_sink_that_logs_writes_to_stderr, .init = cr_redirect_stderr, .timeout = 10) {
  capture c = {0};
  lbs_log_set_sink(logging_sink, &c);
  lbs_log(LBS_LOG_WARN, "outer");
  fflush(stderr);
  cr_assert_eq(c.n, 1);
  cr_assert_str_eq(c.msg[0], "outer");
  cr_assert_stderr_eq_str("from the sink: outer\n");
  capture_free(&c);
}

/* Threads: every message reaches the sink once and whole, and never two at a time (the sink
 * itself takes no lock). */
#define THREADS 8
#define PER_THREAD 2000
typedef struct {
  atomic_int inside, overlaps;
  int count, bad;
} tally;

static void tally_sink(void *arg, lbs_log_level level, const char *msg) {
  (void)level;
  tally *t = arg;
  if (atomic_fetch_add(&t->inside, 1)) atomic_fetch_add(&t->overlaps, 1);
  int th, i;
  char tail;
  if (sscanf(msg, "thread %d message %d%c", &th, &i, &tail) != 2 || th < 0 || th >= THREADS ||
      i < 0 || i >= PER_THREAD)
    t->bad++;
  for (volatile int spin = 0; spin < 3000; spin++) { /* long enough for another thread to come in */
  }
  t->count++;
  atomic_fetch_sub(&t->inside, 1);
}

static void *logger(void *arg) {
  int th = (int)(intptr_t)arg;
  for (int i = 0; i < PER_THREAD; i++) lbs_log(LBS_LOG_WARN, "thread %d message %d", th, i);
  return NULL;
}

Test(log, threads_each_get_their_line_through_whole, .timeout = 60) {
  tally t = {0};
  lbs_log_set_sink(tally_sink, &t);
  pthread_t th[THREADS];
  for (int i = 0; i < THREADS; i++)
    cr_assert_eq(pthread_create(&th[i], NULL, logger, (void *)(intptr_t)i), 0);
  for (int i = 0; i < THREADS; i++) pthread_join(th[i], NULL);
  cr_assert_eq(t.count, THREADS * PER_THREAD);
  cr_assert_eq(atomic_load(&t.overlaps), 0);
  cr_assert_eq(t.bad, 0);
}
