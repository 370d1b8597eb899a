/* args.h - parsing of policy arguments ("0.15:5:20"), shared by the policies. */
#ifndef LBS_POLICY_ARGS_H
#define LBS_POLICY_ARGS_H

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Splits args at ':' into at most max numbers; returns how many, -1 if one is malformed. */
static inline int policy_numbers(const char *args, double *out, int max) {
  if (!args || !*args) return 0;
  int n = 0;
  const char *p = args;
  while (n < max) {
    char *end;
    errno = 0;
    double v = strtod(p, &end);
    if (end == p || errno || (*end && *end != ':')) return -1;
    out[n++] = v;
    if (!*end) return n;
    p = end + 1;
  }
  return -1; /* too many */
}

static inline int is_whole(double v) { return v == (double)(long long)v; }

#endif
