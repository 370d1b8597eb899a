/* csv.c - samples measured elsewhere: reading them from CSV (lbs_calib_read_csv), and an IPG
 * through them without sampling decisions (lbs_ipg_from_samples).
 *
 * The CSV dialect is RFC 4180 with a little leeway: a header line names the columns (any
 * order, any case, extra ones ignored), fields may be quoted (commas, quotes doubled and line
 * breaks inside), blanks around fields are dropped, lines that are blank or start with '#'
 * are skipped, line ends are LF or CRLF, and a UTF-8 byte order mark is skipped. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lbs_calib.h"

/* ================================================================ reading CSV */

/* The columns we read, with the names the header may give them. */
enum { COL_IMPL, COL_DEVICE, COL_METRIC, COL_SECONDS, NCOLS };
static const char *const COL_NAMES[NCOLS][4] = {
    {"implementation", "impl", NULL},
    {"device", NULL},
    {"metric", "work_metric", "work", NULL},
    {"seconds", "time_s", "time", NULL},
};

typedef struct csv_reader {
  const char *path;
  const char *p, *end; /* the unread text */
  long line;           /* the line p is on (1-based) */
  lbs_buf text;        /* the current record's fields, each NUL-terminated */
  size_t *off;         /* start of each field in text */
  int nf, cap;         /* fields in the current record, room in off */
} csv_reader;

static int blank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

static lbs_err add_field(csv_reader *r, size_t start) {
  if (r->nf == r->cap) {
    int ncap = r->cap ? 2 * r->cap : 16;
    size_t *o = realloc(r->off, (size_t)ncap * sizeof *o);
    if (!o) return lbs_fail(LBS_NOMEM, "%s: CSV fields", r->path);
    r->off = o;
    r->cap = ncap;
  }
  r->off[r->nf++] = start;
  return lbs_buf_append(&r->text, "", 1);
}

static const char *field(const csv_reader *r, int i) {
  return (const char *)r->text.data + r->off[i];
}

/* Skips blank and comment lines. 1 at the end of the text. */
static int skip_ignored(csv_reader *r) {
  for (;;) {
    if (r->p >= r->end) return 1;
    const char *q = r->p;
    while (q < r->end && blank(*q)) q++;
    if (q < r->end && *q != '\n' && *q != '#') return 0;
    while (q < r->end && *q != '\n') q++;
    r->p = q < r->end ? q + 1 : q;
    r->line++;
  }
}

/* The next record's fields into r->text / r->off; *line: the line it starts on. *eof at the
 * end of the text (no record). */
static lbs_err next_record(csv_reader *r, long *line, int *eof) {
  r->text.len = 0;
  r->nf = 0;
  if ((*eof = skip_ignored(r))) return LBS_OK;
  *line = r->line;
  lbs_err e;
  for (;;) {
    while (r->p < r->end && (*r->p == ' ' || *r->p == '\t')) r->p++;
    size_t start = r->text.len;
    if (r->p < r->end && *r->p == '"') { /* quoted: up to the lone closing quote */
      long opened = r->line;
      for (r->p++;; r->p++) {
        if (r->p >= r->end)
          return lbs_fail(LBS_PARSE, "%s:%ld: a quoted field is not closed", r->path, opened);
        char c = *r->p;
        if (c == '"') {
          if (r->p + 1 < r->end && r->p[1] == '"')
            r->p++;
          else
            break;
        }
        if (c == '\0') return lbs_fail(LBS_PARSE, "%s:%ld: a NUL byte", r->path, r->line);
        if (c == '\n') r->line++;
        if ((e = lbs_buf_append(&r->text, &c, 1))) return e;
      }
      r->p++;
      while (r->p < r->end && blank(*r->p)) r->p++;
      if (r->p < r->end && *r->p != ',' && *r->p != '\n')
        return lbs_fail(LBS_PARSE, "%s:%ld: text after the closing quote of field %d", r->path,
                        r->line, r->nf + 1);
    } else {
      const char *q = r->p;
      while (q < r->end && *q != ',' && *q != '\n') {
        if (*q == '"')
          return lbs_fail(LBS_PARSE,
                          "%s:%ld: a quote inside unquoted field %d (quote the whole field)",
                          r->path, r->line, r->nf + 1);
        if (*q == '\0') return lbs_fail(LBS_PARSE, "%s:%ld: a NUL byte", r->path, r->line);
        q++;
      }
      const char *t = q;
      while (t > r->p && blank(t[-1])) t--;
      if ((e = lbs_buf_append(&r->text, r->p, (size_t)(t - r->p)))) return e;
      r->p = q;
    }
    if ((e = add_field(r, start))) return e;
    if (r->p < r->end && *r->p == ',') {
      r->p++;
      continue;
    }
    if (r->p < r->end) { /* '\n' */
      r->p++;
      r->line++;
    }
    return LBS_OK;
  }
}

/* The header's column indexes (-1: absent) for our columns. */
static lbs_err read_header(csv_reader *r, long line, int col[NCOLS]) {
  for (int c = 0; c < NCOLS; c++) col[c] = -1;
  for (int i = 0; i < r->nf; i++)
    for (int c = 0; c < NCOLS; c++)
      for (int k = 0; COL_NAMES[c][k]; k++)
        if (!strcasecmp(field(r, i), COL_NAMES[c][k])) {
          if (col[c] >= 0)
            return lbs_fail(
                LBS_PARSE, "%s:%ld: columns %d ('%s') and %d ('%s') are both the %s column",
                r->path, line, col[c] + 1, field(r, col[c]), i + 1, field(r, i), COL_NAMES[c][0]);
          col[c] = i;
        }
  for (int c = 0; c < NCOLS; c++)
    if (col[c] < 0) {
      char also[64] = "";
      for (int k = 1; COL_NAMES[c][k]; k++)
        snprintf(also + strlen(also), sizeof also - strlen(also), "%s'%s'", k > 1 ? ", " : " (or ",
                 COL_NAMES[c][k]);
      return lbs_fail(
          LBS_PARSE,
          "%s:%ld: the header has no '%s' column%s%s; it needs implementation, device, metric, seconds",
          r->path, line, COL_NAMES[c][0], also, also[0] ? ")" : "");
    }
  return LBS_OK;
}

/* A finite non-negative number from a field. */
static lbs_err number(const csv_reader *r, long line, const char *what, const char *s, double *v) {
  if (!*s) return lbs_fail(LBS_PARSE, "%s:%ld: empty %s", r->path, line, what);
  char *end;
  errno = 0;
  *v = strtod(s, &end);
  if (*end || end == s)
    return lbs_fail(LBS_PARSE, "%s:%ld: %s '%s' is not a number", r->path, line, what, s);
  if (!isfinite(*v))
    return lbs_fail(LBS_PARSE, "%s:%ld: %s '%s' is not finite", r->path, line, what, s);
  if (*v < 0) return lbs_fail(LBS_PARSE, "%s:%ld: %s %s is negative", r->path, line, what, s);
  return LBS_OK;
}

/* The group of (impl, device), made at the end when new. */
static lbs_err group_of(lbs_import_group **g, int *n, int *cap, const char *impl,
                        const char *device, int *at) {
  for (int i = *n - 1; i >= 0; i--)
    if (!strcmp((*g)[i].impl, impl) && !strcmp((*g)[i].device, device)) {
      *at = i;
      return LBS_OK;
    }
  if (*n == *cap) {
    int ncap = *cap ? 2 * *cap : 4;
    lbs_import_group *a = realloc(*g, (size_t)ncap * sizeof *a);
    if (!a) return lbs_fail(LBS_NOMEM, "import groups");
    *g = a;
    *cap = ncap;
  }
  lbs_import_group *x = &(*g)[*n];
  memset(x, 0, sizeof *x);
  snprintf(x->impl, sizeof x->impl, "%s", impl);
  snprintf(x->device, sizeof x->device, "%s", device);
  *at = (*n)++;
  return LBS_OK;
}

static lbs_err add_sample(lbs_import_group *g, int *cap, lbs_sample s) {
  if (g->n == *cap) {
    int ncap = *cap ? 2 * *cap : 64;
    lbs_sample *a = realloc(g->samples, (size_t)ncap * sizeof *a);
    if (!a) return lbs_fail(LBS_NOMEM, "import samples");
    g->samples = a;
    *cap = ncap;
  }
  g->samples[g->n++] = s;
  return LBS_OK;
}

lbs_err lbs_calib_read_csv(const char *path, lbs_import_group **groups, int *ngroups) {
  *groups = NULL;
  *ngroups = 0;
  char *text;
  size_t len;
  lbs_err e = lbs_read_file(path, &text, &len);
  if (e) return e;
  csv_reader r = {.path = path, .p = text, .end = text + len, .line = 1};
  if (len >= 3 && !memcmp(text, "\xEF\xBB\xBF", 3)) r.p += 3; /* a UTF-8 byte order mark */
  lbs_import_group *g = NULL;
  int ng = 0, gcap = 0, *scap = NULL, col[NCOLS], eof = 0, rows = 0;
  long line = 0;
  e = next_record(&r, &line, &eof);
  if (!e && eof)
    e = lbs_fail(
        LBS_PARSE,
        "%s: no samples (nor a header line: it names the columns implementation, device, metric, seconds, then come the samples, one a row)",
        path);
  if (!e) e = read_header(&r, line, col);
  int nheader = r.nf;
  while (!e && !(e = next_record(&r, &line, &eof)) && !eof) {
    if (r.nf != nheader) {
      e = lbs_fail(LBS_PARSE, "%s:%ld: %d field%s, the header has %d", path, line, r.nf,
                   r.nf == 1 ? "" : "s", nheader);
      break;
    }
    const char *impl = field(&r, col[COL_IMPL]), *device = field(&r, col[COL_DEVICE]);
    lbs_sample s = {0, 0};
    if (!*impl)
      e = lbs_fail(LBS_PARSE, "%s:%ld: empty implementation", path, line);
    else if (strlen(impl) >= sizeof g->impl)
      e = lbs_fail(LBS_PARSE, "%s:%ld: implementation name longer than %zu characters", path, line,
                   sizeof g->impl - 1);
    else if (strlen(device) >= sizeof g->device)
      e = lbs_fail(LBS_PARSE, "%s:%ld: device longer than %zu characters", path, line,
                   sizeof g->device - 1);
    if (!e) e = number(&r, line, "metric", field(&r, col[COL_METRIC]), &s.w);
    if (!e) e = number(&r, line, "seconds", field(&r, col[COL_SECONDS]), &s.t);
    int at = 0, before = ng;
    if (!e) e = group_of(&g, &ng, &gcap, impl, device, &at);
    if (!e && ng > before) {
      int *c = realloc(scap, (size_t)gcap * sizeof *c);
      if (!c)
        e = lbs_fail(LBS_NOMEM, "import groups");
      else
        (scap = c)[at] = 0;
    }
    if (!e) e = add_sample(&g[at], &scap[at], s);
    rows++;
  }
  if (!e && rows == 0) e = lbs_fail(LBS_PARSE, "%s: no samples (a header and no rows)", path);
  free(scap);
  free(r.off);
  lbs_buf_free(&r.text);
  free(text);
  if (e) {
    lbs_import_groups_free(g, ng);
    return e;
  }
  *groups = g;
  *ngroups = ng;
  return LBS_OK;
}

void lbs_import_groups_free(lbs_import_group *g, int n) {
  if (!g) return;
  for (int i = 0; i < n; i++) free(g[i].samples);
  free(g);
}

/* ================================================================ an IPG through samples */

static int cmp_sample(const void *a, const void *b) {
  const lbs_sample *x = a, *y = b;
  if (x->w != y->w) return x->w < y->w ? -1 : 1;
  return (x->t > y->t) - (x->t < y->t);
}

/* Every median strictly between a and b within the bound of the line from a to b. */
static int fits(const double *w, const double *t, int a, int b, const lbs_ia_bound *acc) {
  double slope = (t[b] - t[a]) / (w[b] - w[a]);
  for (int j = a + 1; j < b; j++)
    if (fabs(t[j] - (t[a] + slope * (w[j] - w[a]))) > lbs_ia_bound_at(acc, t[j])) return 0;
  return 1;
}

lbs_err lbs_ipg_from_samples(const lbs_sample *s, int n, const lbs_ia_bound *accuracy,
                             lbs_ipg *out) {
  memset(out, 0, sizeof *out);
  if (n < 0 || (n > 0 && !s) || !accuracy)
    return lbs_fail(LBS_INVAL, "IPG from samples: bad arguments");
  for (int i = 0; i < n; i++)
    if (!isfinite(s[i].w) || !isfinite(s[i].t) || s[i].w < 0 || s[i].t < 0)
      return lbs_fail(LBS_RANGE, "sample %d (metric %g, %g s): negative or not finite", i, s[i].w,
                      s[i].t);
  lbs_sample *c = malloc((size_t)(n ? n : 1) * sizeof *c);
  double *mw = malloc((size_t)(n ? n : 1) * sizeof *mw),
         *mt = malloc((size_t)(n ? n : 1) * sizeof *mt);
  lbs_err e = LBS_OK;
  if (!c || !mw || !mt) {
    e = lbs_fail(LBS_NOMEM, "IPG from %d samples", n);
    goto done;
  }
  if (n) memcpy(c, s, (size_t)n * sizeof *c);
  qsort(c, (size_t)n, sizeof *c, cmp_sample);
  /* the median time at each distinct metric */
  int k = 0;
  for (int i = 0, j; i < n; i = j) {
    for (j = i; j < n && c[j].w == c[i].w; j++) {}
    int m = j - i;
    mw[k] = c[i].w;
    mt[k++] = m % 2 ? c[i + m / 2].t : 0.5 * (c[i + m / 2 - 1].t + c[i + m / 2].t);
  }
  if (k < 2) {
    e = lbs_fail(LBS_RANGE, "%d distinct work metric%s in %d samples: an IPG needs at least 2", k,
                 k == 1 ? "" : "s", n);
    goto done;
  }
  /* more work taking clearly less time is a measurement gone wrong, not a curve */
  for (int i = 1, top = 0; i < k; i++) {
    double b = lbs_ia_bound_at(accuracy, mt[top]);
    if (mt[i] < mt[top] - b) {
      e = lbs_fail(
          LBS_RANGE,
          "times fall with more work: the median at metric %.17g (%.6g s) is below the one at metric %.17g "
          "(%.6g s) by more than the accuracy bound (%.3g s)",
          mw[i], mt[i], mw[top], mt[top], b);
      goto done;
    }
    if (mt[i] > mt[top]) top = i;
  }
  /* greedy merging: each segment reaches as far as the medians it spans stay within the bound */
  out->w = malloc((size_t)k * sizeof *out->w);
  out->t = malloc((size_t)k * sizeof *out->t);
  if (!out->w || !out->t) {
    e = lbs_fail(LBS_NOMEM, "IPG of %d points", k);
    goto done;
  }
  out->w[0] = mw[0];
  out->t[0] = mt[0];
  out->n = 1;
  for (int a = 0; a < k - 1;) {
    int b = a + 1;
    while (b + 1 < k && fits(mw, mt, a, b + 1, accuracy)) b++;
    out->w[out->n] = mw[b];
    out->t[out->n++] = mt[b];
    a = b;
  }
done:
  if (e) lbs_ipg_free(out);
  free(c);
  free(mw);
  free(mt);
  return e;
}
