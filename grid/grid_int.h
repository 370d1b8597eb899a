/* grid_int.h - private to grid/. */
#ifndef LBS_GRID_INT_H
#define LBS_GRID_INT_H

#include <stddef.h>
#include <stdint.h>

#include "lbs_grid.h"

/* The [nodetype] keys of every node type whatever its speed model (grid.c), ending with key
 * NULL; a speed model's keys may not repeat them. */
extern const lbs_opt lbs__nodetype_common[];
/* The most keys all speed models together may declare (the [nodetype] table's room). */
#define LBS__SPEED_MAX_KEYS 64

/* The speed model that declares [nodetype] key, or NULL when none does (registry.c). */
const lbs_speed_ops *lbs__speed_owner(const char *key);
/* The registered models' names joined by ", " into buf (size bytes); returns buf. */
const char *lbs__speed_known(char *buf, size_t size);
/* Records "WHERE: unknown speed_model 'name' (known: ...)" and returns LBS_NOTFOUND. */
lbs_err lbs__speed_unknown(const char *where, const char *name);

/* Speed models that read a measured curve (speed_curve.c; their files' paths through
 * lbs_config_relpath): the throughput over the upper half [hi/2, hi] of a curve (seconds at work
 * metric x), relative to a processor of speed 1 (ns_per_work ns per unit; mpw metric units per unit
 * of work), 1 when the curve gives none; */
double lbs__curve_rate(double (*eval)(const void *curve, double x), const void *curve, double hi,
                       double mpw, double ns_per_work);
/* seconds as whole nanoseconds: 0 for none or negative, capped at 9e18. */
int64_t lbs__seconds_ns(double s);

/* Availability profiles (avail.c). avail.c knows nothing of struct lbs_grid: grid.c, which
 * owns the profiles, passes what a profile's target is checked against, and calls avail.c,
 * never the other way round. */

/* [availability NAME]'s keys. */
extern const lbs_opt lbs__avail_opts[];
/* What profiles may target: the grid's processors and clusters, borrowed for the call. */
typedef struct lbs__avail_targets {
  int P;                    /* processors, numbered 0..P-1 */
  int C;                    /* clusters */
  const char *const *cname; /* C cluster names */
  const int *cfirst;        /* C+1 offsets: cluster c holds processors cfirst[c]..cfirst[c+1]-1 */
} lbs__avail_targets;
/* Reads every [availability] section of cfg (checked against spec) for the processors and
 * clusters tg describes: *out gets *n profiles (NULL, 0 when none), owned by the caller
 * (lbs__avail_free). Errors name the file, line and key. */
lbs_err lbs__avail_parse(const lbs_config *cfg, const lbs_section_spec *spec,
                         const lbs__avail_targets *tg, lbs_avail **out, int *n);
void lbs__avail_free(lbs_avail *a, int n); /* NULL-safe */

#endif
