/* lbs_report.h - the HTML report of a results store (lbsim report): one self-contained page
 * holding the store's data as JSON, Vega (inlined at build time) and the script that draws it. */
#ifndef LBS_REPORT_H
#define LBS_REPORT_H

#include <stdint.h>

#include "lbs_core.h"

typedef struct lbs_report_opts {
  const char *title; /* the page's heading; NULL: "lbsim report: " and the store's file name */
  const char *study; /* only this study's runs, series, studies row and partition rows; NULL: all */
  const char *generator; /* "lbsim 0.1.0", in a <meta name="generator">; NULL: none */
  int64_t max_cells;     /* per-processor cells (steps x processors) kept over all runs, each run
                            getting an equal share (at least one bucket of all its steps), steps
                            summed in buckets beyond it; 0: 2,000,000 */
  int64_t max_points;    /* steps per run in the imbalance series (every k-th step and every
                            repartition); 0: 2000 */
} lbs_report_opts;

/* Reads the results store at path (read-only; a FIFO or device is refused unopened) and
 * appends the report page to *html (the caller's buffer, freed with lbs_buf_free, also on
 * failure). The same store gives byte-identical pages. Errors: LBS_IO (missing, not a regular
 * file), LBS_FORMAT (not SQLite, not a results store), LBS_VERSION (a newer schema),
 * LBS_NOTFOUND (no runs and no partition rows: nothing to report), LBS_CORRUPT (SQLite finds
 * it damaged), LBS_DB, LBS_NOMEM; the message names the file. */
lbs_err lbs_report_html(const char *path, const lbs_report_opts *o, lbs_buf *html);

#endif
