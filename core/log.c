/* log.c - lbs_log: levels, a settable sink, the default stderr sink and the prefix sink programs
 * install (see lbs_core.h).
 *
 * The threshold is an atomic, read without the lock; the sink and its argument change and are
 * called under one mutex, so a message reaches the sink whole and lines never interleave
 * between threads. A sink that logs would take the lock again: a thread-local flag sends such
 * a message straight to stderr instead. */
#include "lbs_core.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static lbs_log_sink sink; /* NULL: lbs_log_stderr */
static void *sink_arg;
static atomic_int threshold = LBS_LOG_DEFAULT_LEVEL;
static _Thread_local int in_sink;

static const char *const level_names[] = {"error", "warn", "info", "debug"};

static lbs_log_level clamp(lbs_log_level level) {
  return (int)level < LBS_LOG_ERROR ? LBS_LOG_ERROR : level > LBS_LOG_DEBUG ? LBS_LOG_DEBUG : level;
}

void lbs_log_set_sink(lbs_log_sink fn, void *arg) {
  pthread_mutex_lock(&lock);
  sink = fn;
  sink_arg = fn ? arg : NULL;
  pthread_mutex_unlock(&lock);
}

void lbs_log_set_level(lbs_log_level level) { atomic_store(&threshold, (int)clamp(level)); }
lbs_log_level lbs_log_get_level(void) { return (lbs_log_level)atomic_load(&threshold); }
int lbs_log_enabled(lbs_log_level level) { return (int)clamp(level) <= atomic_load(&threshold); }
const char *lbs_log_level_name(lbs_log_level level) { return level_names[clamp(level)]; }

lbs_err lbs_log_level_parse(const char *s, lbs_log_level *out) {
  for (int i = 0; i < 4; i++)
    if (!strcasecmp(s, level_names[i])) return *out = (lbs_log_level)i, LBS_OK;
  if (!strcasecmp(s, "warning")) return *out = LBS_LOG_WARN, LBS_OK;
  return lbs_fail(LBS_PARSE, "'%s' is not a log level (error, warn, info, debug)", s);
}

lbs_err lbs_log_level_from_env(const char *var, lbs_log_level *out) {
  const char *v = getenv(var);
  if (!v || !*v) return LBS_OK;
  if (lbs_log_level_parse(v, out)) return lbs_fail(LBS_PARSE, "%s: %s", var, lbs_errmsg());
  return LBS_OK;
}

/* prefix + msg + newline to f in one write (a line of one rank never splits around another's). */
static void write_line(FILE *f, const char *prefix, const char *msg) {
  size_t lp = strlen(prefix), lm = strlen(msg);
  char small[1024], *line = lp + lm + 1 <= sizeof small ? small : malloc(lp + lm + 1);
  if (!line) { /* no memory for the line: the pieces, still each whole */
    fputs(prefix, f), fputs(msg, f), fputc('\n', f);
    return;
  }
  memcpy(line, prefix, lp);
  memcpy(line + lp, msg, lm);
  line[lp + lm] = '\n';
  fwrite(line, 1, lp + lm + 1, f);
  if (f != stderr) fflush(f);
  if (line != small) free(line);
}

void lbs_log_stderr(void *arg, lbs_log_level level, const char *msg) {
  (void)arg, (void)level;
  write_line(stderr, "", msg);
}

void lbs_log_stream_sink(void *arg, lbs_log_level level, const char *msg) {
  (void)level;
  const lbs_log_stream *s = arg;
  write_line(s && s->f ? s->f : stderr, s ? s->prefix : "", msg);
}

void lbs_log(lbs_log_level level, const char *fmt, ...) {
  if (!lbs_log_enabled(level)) return;
  char small[1024], *msg = small;
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(small, sizeof small, fmt, ap);
  va_end(ap);
  if (n < 0) return;
  if ((size_t)n >= sizeof small && (msg = malloc((size_t)n + 1)) != NULL) {
    va_start(ap, fmt);
    vsnprintf(msg, (size_t)n + 1, fmt, ap);
    va_end(ap);
  }
  if (!msg) msg = small; /* no memory: the message cut at the buffer's end */
  size_t len = strlen(msg);
  if (len && msg[len - 1] == '\n') msg[len - 1] = '\0'; /* one line; the sink ends it */
  if (in_sink) {
    lbs_log_stderr(NULL, level, msg);
  } else {
    pthread_mutex_lock(&lock);
    in_sink = 1;
    (sink ? sink : lbs_log_stderr)(sink_arg, clamp(level), msg);
    in_sink = 0;
    pthread_mutex_unlock(&lock);
  }
  if (msg != small) free(msg);
}

int lbs_log_mpi_env(int *rank, int *size) {
  static const char *const vars[][2] = {{"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"},
                                        {"PMI_RANK", "PMI_SIZE"}};
  *rank = 0, *size = 1;
  for (size_t i = 0; i < sizeof vars / sizeof *vars; i++) {
    const char *r = getenv(vars[i][0]), *s = getenv(vars[i][1]);
    if (!r || !s || !*r || !*s) continue;
    char *er, *es;
    long rv = strtol(r, &er, 10), sv = strtol(s, &es, 10);
    if (*er || *es || sv < 1 || rv < 0 || rv >= sv || sv > 1L << 30) continue;
    *rank = (int)rv, *size = (int)sv;
    return 1;
  }
  return 0;
}

char *lbs_log_prefix(char *buf, size_t n, const char *name, int rank, int size) {
  if (size > 1)
    snprintf(buf, n, "%s[rank %d]: ", name, rank);
  else
    snprintf(buf, n, "%s: ", name);
  return buf;
}
