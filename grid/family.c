/* family.c - the seed's grid families (seed 003, slide 17): HO, UP, DN.
 *
 * P processors in C clusters of P/C, one processor a node. Base link: latency L0 (us) and
 * bandwidth B0 (Gbit/s); a slowdown s multiplies the latency and divides the bandwidth.
 *   HO: every cluster has processing slowdown 1 and intra-cluster slowdown 1.
 *   UP: cluster i (1..C) has processing slowdown i and intra-cluster slowdown i: faster
 *       processors have faster networks.
 *   DN: cluster i has processing slowdown i and intra-cluster slowdown C+1-i: faster
 *       processors have slower networks.
 * Links between clusters have slowdown I (dedicated, one per pair of clusters). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "grid_int.h"

static lbs_err put(lbs_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static lbs_err put(lbs_buf *b, const char *fmt, ...) {
  char tmp[512];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
  va_end(ap);
  return lbs_buf_append(b, tmp, (size_t)n);
}

lbs_err lbs_grid_family_ini(const char *family, int P, int C, double I, double lat_us,
                            double bw_gbps, lbs_buf *out) {
  int fam = !strcmp(family, "HO") ? 0 : !strcmp(family, "UP") ? 1 : !strcmp(family, "DN") ? 2 : -1;
  if (fam < 0)
    return lbs_fail(LBS_NOTFOUND, "unknown grid family '%s' (known: HO, UP, DN)", family);
  if (C < 1 || P < 1)
    return lbs_fail(LBS_INVAL, "a grid needs at least one cluster and one processor");
  if (P % C) return lbs_fail(LBS_INVAL, "%d processors do not divide into %d equal clusters", P, C);
  if (!(I >= 1) || I > 1e9)
    return lbs_fail(LBS_INVAL, "the inter-cluster slowdown must be >= 1 (got %g)", I);
  if (!(lat_us >= 0) || !(bw_gbps > 0))
    return lbs_fail(LBS_INVAL, "bad base link: latency %g us, bandwidth %g Gbit/s", lat_us,
                    bw_gbps);
  static const char *const what[] = {
      "equal processors and networks",
      "cluster i: processing and network slowdown i (faster processors, faster networks)",
      "cluster i: processing slowdown i, network slowdown C+1-i (faster processors, slower networks)"};
  lbs_err e = put(
      out,
      "; lbsim grid gen --family %s --procs %d --clusters %d --slowdown %g\n; %s (seed 003, slide 17);\n"
      "; links between clusters %g times slower than the base link (%g us, %g Gbit/s)\n[grid]\nname = %s-P%d-C%d-I%g\n\n",
      family, P, C, I, what[fam], I, lat_us, bw_gbps, family, P, C, I);
  for (int i = 1; !e && i <= C; i++) {
    double ps = fam == 0 ? 1 : i, ns = fam == 0 ? 1 : fam == 1 ? i : C + 1 - i;
    e = put(
        out,
        "[nodetype t%d]\nslowdown = %g\n\n[cluster c%d]\nnodes = %d\nnodetype = t%d\nlatency_us = %.17g\n"
        "bandwidth_gbps = %.17g\n\n",
        i, ps, i, P / C, i, lat_us * ns, bw_gbps / ns);
  }
  for (int a = 1; !e && a <= C; a++)
    for (int b = a + 1; !e && b <= C; b++)
      e = put(out, "[link c%d c%d]\nlatency_us = %.17g\nbandwidth_gbps = %.17g\nshared = false\n\n",
              a, b, lat_us * I, bw_gbps / I);
  if (!e) e = lbs_buf_append(out, "", 1); /* NUL, not counted */
  if (!e) out->len--;
  return e;
}
