/* steps.c - steps:LIST replays a given schedule: a repartition before each listed step, e.g.
 * steps:20,65 or steps:@file (numbers separated by commas, blanks or newlines; '#' starts a
 * comment). Steps count from 0 in the replayed window (for a trace sampled at every step of a
 * run that starts at 0, the application's steps); a step must lie in 1..steps-1, since step 0
 * starts with the initial partition. `lbsim validate` and the apps under apps/ take the same
 * spelling, so a schedule chosen in simulation runs unchanged for real. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lbs_policy.h"

typedef struct {
  int64_t *s; /* sorted, distinct */
  int n, checked;
  char *what; /* "steps:20,65" or "steps:@file" for messages */
} st;

static int cmp64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

static void fini(void *state) {
  st *s = state;
  if (!s) return;
  free(s->s), free(s->what), free(s);
}

/* Parses numbers from text; where names the source in messages ("" for the argument). */
static lbs_err parse(st *s, const char *text, const char *file) {
  int cap = 0, line = 1;
  for (const char *c = text; *c;) {
    if (*c == '#') {
      while (*c && *c != '\n') c++;
      continue;
    }
    if (*c == '\n') line++;
    if (*c == ',' || *c == ' ' || *c == '\t' || *c == '\r' || *c == '\n') {
      c++;
      continue;
    }
    char *end;
    errno = 0;
    long long v = strtoll(c, &end, 10);
    if (end == c || errno || v < 0 || v > INT32_MAX || (*end && !strchr(", \t\r\n#", *end))) {
      int len = (int)strcspn(c, ", \t\r\n#");
      return file
                 ? lbs_fail(LBS_PARSE, "%s:%d: '%.*s' is not a step number (a whole number >= 1)",
                            file, line, len, c)
                 : lbs_fail(LBS_INVAL, "'%.*s' is not a step number (a whole number >= 1)", len, c);
    }
    if (s->n == cap) {
      cap = cap ? 2 * cap : 16;
      int64_t *g = realloc(s->s, (size_t)cap * sizeof *g);
      if (!g) return lbs_fail(LBS_NOMEM, "policy steps");
      s->s = g;
    }
    s->s[s->n++] = v;
    c = end;
  }
  qsort(s->s, (size_t)s->n, sizeof *s->s, cmp64);
  int k = 0;
  for (int i = 0; i < s->n; i++)
    if (!k || s->s[i] != s->s[k - 1]) s->s[k++] = s->s[i];
  s->n = k;
  return LBS_OK;
}

static lbs_err init(void **state, const char *args) {
  if (!args || !*args) return lbs_fail(LBS_INVAL, "no steps given");
  st *s = calloc(1, sizeof *s);
  size_t wl = strlen(args) + 8;
  if (!s || !(s->what = malloc(wl))) {
    free(s);
    return lbs_fail(LBS_NOMEM, "policy steps");
  }
  snprintf(s->what, wl, "steps:%s", args);
  lbs_err e;
  if (args[0] == '@') {
    char *text = NULL;
    size_t len;
    if (!args[1])
      e = lbs_fail(LBS_INVAL, "steps:@ needs a file name");
    else if (!(e = lbs_read_file(args + 1, &text, &len))) {
      if (memchr(text, '\0', len))
        e = lbs_fail(LBS_PARSE, "%s: a NUL byte: not a text file of step numbers", args + 1);
      else
        e = parse(s, text, args + 1);
    }
    free(text);
  } else {
    e = parse(s, args, NULL);
  }
  if (!e && s->n && s->s[0] == 0)
    e = lbs_fail(LBS_INVAL, "step 0 starts with the initial partition; schedule steps from 1");
  if (e) {
    fini(s);
    return e;
  }
  *state = s;
  return LBS_OK;
}

static lbs_err decide(void *state, const lbs_loadview *v, int *rep) {
  st *s = state;
  if (!s->checked) { /* the window's length is known now */
    s->checked = 1;
    if (s->n && s->s[s->n - 1] >= v->steps)
      return lbs_fail(
          LBS_RANGE,
          "%s: step %lld is out of range: the replay has %lld steps (a repartition can come "
          "before steps 1..%lld)",
          s->what, (long long)s->s[s->n - 1], (long long)v->steps, (long long)v->steps - 1);
  }
  *rep = bsearch(&v->step, s->s, (size_t)s->n, sizeof *s->s, cmp64) != NULL;
  return LBS_OK;
}

const lbs_policy_ops lbs__policy_steps = {.abi = LBS_POLICY_ABI,
                                          .name = "steps",
                                          .usage = "steps:LIST (e.g. steps:20,65 or steps:@file)",
                                          .init = init,
                                          .decide = decide,
                                          .fini = fini,
                                          .example = "steps:20,45",
                                          .flags = LBS_POLICY_NO_STEP_TIMES};
