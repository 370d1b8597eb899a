/* part_sizes.c - --part-sizes LIST, as every app under apps/ reads it (part_sizes.h). */
#include "part_sizes.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int app_parse_part_sizes(const char *text, int P, double *sizes, char *meta, size_t len, char *why,
                         size_t wlen) {
  int n = 0, equal = 1;
  double sum = 0;
  for (const char *c = text && strcmp(text, "equal") ? text : ""; *c; n++) {
    char *end;
    errno = 0;
    double d = strtod(c, &end);
    if (end == c || (*end && *end != ',') || errno || !isfinite(d) || d <= 0) {
      snprintf(why, wlen, "share %d is not a number > 0", n + 1);
      return -1;
    }
    if (n < P) sizes[n] = d, sum += d;
    equal &= d == sizes[0];
    c = *end ? end + 1 : end;
  }
  if (n && n != P) {
    snprintf(why, wlen, "%d shares for %d ranks (one per rank)", n, P);
    return -1;
  }
  for (int r = 0; r < P; r++) sizes[r] = n ? sizes[r] / sum : 1.0 / P;
  size_t at = (size_t)snprintf(meta, len, "%s", n && !equal ? "" : "equal");
  for (int r = 0; n && !equal && r < P && at < len; r++) {
    at += (size_t)snprintf(meta + at, len - at, "%s%.6g", r ? "," : "", sizes[r]);
  }
  if (at >= len) {
    snprintf(why, wlen, "too many shares to record");
    return -1;
  }
  return 0;
}
