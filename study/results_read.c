/* results_read.c - reading a results store (lbs_study.h, "reading a store"): the store opened
 * read-only through core's lbs_db, and typed readers over it. Each reader names the columns it
 * wants in a table (the column, its type, where its value goes in the reader's row struct); its
 * SELECT has each one, or NULL where an older store lacks it, and each row is decoded into the
 * struct through the table. Arrays and their text live in the handle's arena until
 * lbs_results_close. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lbs_study.h"
#include "results_int.h"

/* The tables of a store, in lbsim results' order (NULL-terminated). */
static const char *const TABLES[] = {
    "studies",    "runs",       "steps",       "procs",        "repartitions",     "series",
    "assignment", "partitions", "validations", "measurements", "validation_pairs", NULL};
enum {
  T_STUDIES,
  T_RUNS,
  T_STEPS,
  T_PROCS,
  T_REPARTS,
  T_SERIES,
  T_ASSIGN,
  T_PARTITIONS,
  T_VALIDATIONS,
  T_MEASUREMENTS,
  T_VPAIRS,
  NTABLES
};

/* How a row of each table belongs to a study (?1): by a column of its own, or by its run's (or
 * its validation's run's); and the table whose study column that reads (-1: none). */
#define OF_RUNS "run IN (SELECT id FROM runs WHERE study = ?1)"
static const struct {
  const char *by_study;
  int needs;
} FILTERS[NTABLES] = {
    {"id = ?1", -1},
    {"study = ?1", T_RUNS},
    {OF_RUNS, T_RUNS},
    {OF_RUNS, T_RUNS},
    {OF_RUNS, T_RUNS},
    {OF_RUNS, T_RUNS},
    {OF_RUNS, T_RUNS},
    {"study = ?1", T_PARTITIONS},
    {OF_RUNS, T_RUNS},
    {"validation IN (SELECT id FROM validations WHERE " OF_RUNS ")", T_RUNS},
    {"a IN (SELECT id FROM validations WHERE " OF_RUNS ")", T_RUNS},
};

/* A block of the handle's arena. */
typedef struct chunk {
  struct chunk *next;
  size_t used, cap;
  max_align_t data[];
} chunk;

#define CHUNK_BYTES 65536

struct lbs_results {
  lbs_db *d;
  chunk *arena;           /* what the readers returned */
  char *columns[NTABLES]; /* each table's columns as " a b c " ("" without the table; NULL:
                             not looked up yet) */
};

static lbs_err nomem(void) { return lbs_fail(LBS_NOMEM, "results: out of memory"); }

/* n bytes of the handle's arena, aligned for any type; NULL when out of memory. */
static void *hold(lbs_results *h, size_t n) {
  n = (n + sizeof(max_align_t) - 1) / sizeof(max_align_t) * sizeof(max_align_t);
  chunk *c = h->arena;
  if (!c || c->cap - c->used < n) {
    size_t cap = n > CHUNK_BYTES ? n : CHUNK_BYTES;
    if (!(c = malloc(sizeof *c + cap))) return NULL;
    c->used = 0, c->cap = cap, c->next = h->arena;
    h->arena = c;
  }
  void *p = (char *)c->data + c->used;
  c->used += n;
  return p;
}

static const char *hold_text(lbs_results *h, const char *s) {
  size_t n = strlen(s) + 1;
  char *p = hold(h, n);
  return p ? memcpy(p, s, n) : NULL;
}

/* ---------------------------------------------------------------- the handle */

lbs_err lbs_results_open(const char *path, lbs_results **out) {
  *out = NULL;
  lbs_results *h = calloc(1, sizeof *h);
  if (!h) return nomem();
  lbs_db_opts o = {.mode = LBS_DB_READ, .busy_ms = 10000};
  lbs_err e = lbs_db_open(&lbs__results_kind, path, &o, &h->d);
  if (!e && !lbs_results_has_table(h, "runs"))
    e = lbs_fail(LBS_FORMAT, "%s: a results store without its runs table", path);
  if (e)
    lbs_results_close(&h);
  else
    *out = h;
  return e;
}

void lbs_results_close(lbs_results **h) {
  if (!h || !*h) return;
  lbs_db_close(&(*h)->d);
  for (chunk *c = (*h)->arena, *next; c; c = next) next = c->next, free(c);
  for (int t = 0; t < NTABLES; t++) free((*h)->columns[t]);
  free(*h);
  *h = NULL;
}

int lbs_results_version(const lbs_results *h) { return lbs_db_version(h->d); }

static int table_index(const char *table) {
  for (int t = 0; t < NTABLES; t++)
    if (!strcmp(TABLES[t], table)) return t;
  return -1;
}

/* Table t's columns as " a b c ", looked up once; NULL when out of memory. */
static const char *columns(lbs_results *h, int t) {
  if (h->columns[t]) return h->columns[t];
  sqlite3 *db = lbs_db_sqlite(h->d);
  sqlite3_str *s = sqlite3_str_new(db);
  sqlite3_str_appendchar(s, 1, ' ');
  sqlite3_stmt *q = NULL;
  char *sql = sqlite3_mprintf("PRAGMA table_info(\"%w\")", TABLES[t]);
  if (sql && sqlite3_prepare_v2(db, sql, -1, &q, NULL) == SQLITE_OK)
    while (sqlite3_step(q) == SQLITE_ROW) sqlite3_str_appendf(s, "%s ", sqlite3_column_text(q, 1));
  sqlite3_finalize(q);
  sqlite3_free(sql);
  char *cols = sqlite3_str_finish(s);
  if (cols && !strcmp(cols, " ")) cols[0] = '\0';
  h->columns[t] = cols ? strdup(cols) : NULL;
  sqlite3_free(cols);
  return h->columns[t];
}

static int has_table(lbs_results *h, int t) {
  const char *c = columns(h, t);
  return c && *c;
}

static int has_column(lbs_results *h, int t, const char *column) {
  const char *c = columns(h, t);
  size_t n = strlen(column);
  for (const char *p = c ? strstr(c, column) : NULL; p; p = strstr(p + 1, column))
    if (p > c && p[-1] == ' ' && p[n] == ' ') return 1;
  return 0;
}

int lbs_results_has_table(const lbs_results *h, const char *table) {
  int t = table_index(table);
  if (t < 0) return lbs__results_has_table(lbs_db_sqlite(h->d), table);
  return has_table((lbs_results *)h, t); /* the cache only */
}

int lbs_results_has_column(const lbs_results *h, const char *table, const char *column) {
  int t = table_index(table);
  if (t < 0) return lbs__results_has_column(lbs_db_sqlite(h->d), table, column);
  return has_column((lbs_results *)h, t, column);
}

/* With a study, whether table t's rows can be told by study: the column its filter reads. */
static int narrowable(lbs_results *h, int t) {
  return FILTERS[t].needs < 0 || has_column(h, FILTERS[t].needs, "study");
}

/* ---------------------------------------------------------------- reading rows */

/* A column a reader wants, and where its value goes in the reader's row struct. */
typedef struct col {
  const char *name; /* the column (or what expr counts) */
  char type;        /* 'i' int64_t (NULL: LBS_RESULTS_NONE), 'd' double (NaN), 't' text (NULL) */
  size_t off;       /* in the row struct */
  const char *expr; /* instead of the column: this expression, over table `in` with column
                       `by` (0 without them) */
  int in;
  const char *by;
} col;
#define COL(T, f, t)                                                                               \
  { #f, t, offsetof(T, f), NULL, 0, NULL }
#define COUNT(T, f, expr, in, by)                                                                  \
  { #f, 'i', offsetof(T, f), expr, in, by }

#define NCOLS(a) ((int)(sizeof(a) / sizeof *(a)))

/* One reading: SELECT cols FROM table, narrowed to a study (the table's by_study) or by where,
 * in an order; ?1 bound to the study or to id. */
typedef struct reading {
  int table;
  const col *cols;
  int ncols;
  const char *study;         /* the rows of this study (NULL: where) */
  const char *where, *order; /* "" or " WHERE ... ?1", " ORDER BY ..." */
  int64_t id;                /* ?1 for where */
  int keep;                  /* text into the arena (arrays); else valid during the callback */
} reading;

typedef lbs_err (*row_fn)(void *arg, const void *row);

/* Prepares sql (sqlite3_free'd; NULL: out of memory) into *q, ?1 (when it has one) bound to
 * study, or to id when study is NULL. */
static lbs_err prepare(lbs_results *h, char *sql, const char *study, int64_t id, sqlite3_stmt **q) {
  *q = NULL;
  if (!sql) return nomem();
  lbs_err e = lbs_db_prepare(h->d, sql, NULL, q);
  sqlite3_free(sql);
  if (e || sqlite3_bind_parameter_count(*q) < 1) return e;
  if (study)
    sqlite3_bind_text(*q, 1, study, -1, SQLITE_STATIC);
  else
    sqlite3_bind_int64(*q, 1, id);
  return LBS_OK;
}

/* The reading's SELECT (sqlite3_free), NULL when out of memory. */
static char *select_sql(lbs_results *h, const reading *r) {
  sqlite3_str *s = sqlite3_str_new(lbs_db_sqlite(h->d));
  sqlite3_str_appendall(s, "SELECT ");
  for (int k = 0; k < r->ncols; k++) {
    const col *c = &r->cols[k];
    if (k) sqlite3_str_appendall(s, ", ");
    if (c->expr)
      sqlite3_str_appendall(s, has_column(h, c->in, c->by) ? c->expr : "0");
    else if (has_column(h, r->table, c->name))
      sqlite3_str_appendf(s, "\"%w\"", c->name);
    else
      sqlite3_str_appendall(s, "NULL");
  }
  sqlite3_str_appendf(s, " FROM \"%w\"", TABLES[r->table]);
  if (r->study)
    sqlite3_str_appendf(s, " WHERE %s", FILTERS[r->table].by_study);
  else
    sqlite3_str_appendall(s, r->where ? r->where : "");
  sqlite3_str_appendall(s, r->order ? r->order : "");
  return sqlite3_str_finish(s);
}

/* The current row of q into the struct at row, through r's columns. */
static lbs_err decode(lbs_results *h, sqlite3_stmt *q, const reading *r, void *row) {
  for (int k = 0; k < r->ncols; k++) {
    char *at = (char *)row + r->cols[k].off;
    int null = sqlite3_column_type(q, k) == SQLITE_NULL;
    if (r->cols[k].type == 'i') {
      *(int64_t *)at = null ? LBS_RESULTS_NONE : sqlite3_column_int64(q, k);
    } else if (r->cols[k].type == 'd') {
      *(double *)at = null ? NAN : sqlite3_column_double(q, k);
    } else {
      const char *s = null ? NULL : (const char *)sqlite3_column_text(q, k);
      if (!null && (!s || (r->keep && !(s = hold_text(h, s))))) return nomem();
      *(const char **)at = s;
    }
  }
  return LBS_OK;
}

/* Runs the reading, each row decoded into row (the reader's struct) and handed to fn. */
static lbs_err read_rows(lbs_results *h, const reading *r, void *row, row_fn fn, void *arg) {
  sqlite3_stmt *q;
  lbs_err e = prepare(h, select_sql(h, r), r->study, r->id, &q);
  int rc = SQLITE_DONE;
  while (!e && (rc = sqlite3_step(q)) == SQLITE_ROW)
    if (!(e = decode(h, q, r, row))) e = fn(arg, row);
  if (!e && rc != SQLITE_DONE) e = lbs_db_fail(h->d, NULL);
  sqlite3_finalize(q);
  return e;
}

/* Rows gathered into an array: grown by doubling, then moved into the arena. */
typedef struct gather {
  lbs_results *h;
  size_t size; /* of a row */
  char *rows;
  int64_t n, cap;
} gather;

static lbs_err gather_row(void *arg, const void *row) {
  gather *g = arg;
  if (g->n == g->cap) {
    int64_t cap = g->cap ? 2 * g->cap : 16;
    char *p = realloc(g->rows, (size_t)cap * g->size);
    if (!p) return nomem();
    g->rows = p, g->cap = cap;
  }
  memcpy(g->rows + (size_t)g->n++ * g->size, row, g->size);
  return LBS_OK;
}

/* The gathered rows moved into the arena as *out and *n (none when e or on failure). */
static lbs_err gathered(gather *g, lbs_err e, const void **out, int64_t *n) {
  void *a = e ? NULL : hold(g->h, (size_t)g->n * g->size);
  if (!e && !a) e = nomem();
  if (!e && g->n) memcpy(a, g->rows, (size_t)g->n * g->size);
  free(g->rows);
  *out = e ? NULL : a;
  *n = e ? 0 : g->n;
  return e;
}

/* The rows of the reading as an array of the handle's into *out and *n (none on failure). */
static lbs_err read_array(lbs_results *h, const reading *r, void *row, size_t size,
                          const void **out, int64_t *n) {
  gather g = {h, size, NULL, 0, 0};
  return gathered(&g, read_rows(h, r, row, gather_row, &g), out, n);
}

/* ---------------------------------------------------------------- the readers */

lbs_err lbs_results_has_study(lbs_results *h, const char *id, int *found) {
  *found = 0;
  if (!has_table(h, T_STUDIES)) return LBS_OK;
  sqlite3_stmt *q;
  lbs_err e = lbs_db_prepare(h->d, "SELECT 1 FROM studies WHERE id = ?1", NULL, &q);
  int rc = SQLITE_DONE;
  if (!e) sqlite3_bind_text(q, 1, id, -1, SQLITE_STATIC);
  if (!e && (rc = sqlite3_step(q)) == SQLITE_ROW)
    *found = 1;
  else if (!e && rc != SQLITE_DONE)
    e = lbs_db_fail(h->d, NULL);
  sqlite3_finalize(q);
  return e;
}

lbs_err lbs_results_count(lbs_results *h, const char *table, const char *study, int64_t *n) {
  int t = table_index(table);
  *n = 0;
  if (t < 0) return lbs_fail(LBS_INVAL, "results: no table '%s' in a results store", table);
  if (!has_table(h, t) || (study && !narrowable(h, t))) return LBS_OK;
  sqlite3_stmt *q;
  lbs_err e = prepare(h,
                      sqlite3_mprintf("SELECT count(*) FROM \"%w\"%s%s", table,
                                      study ? " WHERE " : "", study ? FILTERS[t].by_study : ""),
                      study, 0, &q);
  if (!e && sqlite3_step(q) == SQLITE_ROW)
    *n = sqlite3_column_int64(q, 0);
  else if (!e)
    e = lbs_db_fail(h->d, NULL);
  sqlite3_finalize(q);
  return e;
}

static const col STUDY_COLS[] = {
    COL(lbs_results_study, id, 't'),
    COL(lbs_results_study, kind, 't'),
    COL(lbs_results_study, command, 't'),
    COL(lbs_results_study, version, 't'),
    COL(lbs_results_study, host, 't'),
    COL(lbs_results_study, started, 't'),
    COL(lbs_results_study, file, 't'),
    COL(lbs_results_study, file_hash, 't'),
    COL(lbs_results_study, axes, 't'),
    COL(lbs_results_study, tasks, 'i'),
    COUNT(lbs_results_study, nruns, "(SELECT count(*) FROM runs r WHERE r.study = studies.id)",
          T_RUNS, "study"),
    COUNT(lbs_results_study, npartitions,
          "(SELECT count(*) FROM partitions p WHERE p.study = studies.id)", T_PARTITIONS, "study"),
};

lbs_err lbs_results_studies(lbs_results *h, const char *study, const lbs_results_study **out,
                            int64_t *n) {
  *out = NULL, *n = 0;
  if (!has_table(h, T_STUDIES)) return LBS_OK;
  reading r = {.table = T_STUDIES,
               .cols = STUDY_COLS,
               .ncols = NCOLS(STUDY_COLS),
               .study = study,
               .order = " ORDER BY started, id",
               .keep = 1};
  lbs_results_study row;
  return read_array(h, &r, &row, sizeof row, (const void **)out, n);
}

#define RUN(f, t) COL(lbs_results_run, f, t)
static const col RUN_COLS[] = {
    RUN(id, 'i'),
    RUN(study, 't'),
    RUN(task, 'i'),
    RUN(labels, 't'),
    RUN(trace, 't'),
    RUN(grid, 't'),
    RUN(metric, 't'),
    RUN(partitioner, 't'),
    RUN(policy, 't'),
    RUN(mode, 't'),
    RUN(elements, 'i'),
    RUN(steps, 'i'),
    RUN(procs, 'i'),
    RUN(total_time_s, 'd'),
    RUN(compute_time_s, 'd'),
    RUN(comm_time_s, 'd'),
    RUN(partition_time_s, 'd'),
    RUN(migration_time_s, 'd'),
    RUN(repartitions, 'i'),
    RUN(mean_imbalance, 'd'),
    RUN(max_imbalance, 'd'),
    RUN(mean_loadimb, 'd'),
    RUN(moved_elements, 'i'),
    RUN(wall_s, 'd'),
    RUN(created, 't'),
    RUN(command, 't'),
    RUN(version, 't'),
    RUN(host, 't'),
    RUN(cost, 't'),
    RUN(overrides, 't'),
    RUN(config, 't'),
    RUN(trace_hash, 't'),
    RUN(grid_hash, 't'),
    RUN(optimum_s, 'd'),
    RUN(gap_to_optimal, 'd'),
    RUN(partition_mode, 't'),
    RUN(ranks, 'i'),
    RUN(des_overlap, 't'),
    COUNT(lbs_results_run, nsteps, "(SELECT count(*) FROM steps s WHERE s.run = runs.id)", T_STEPS,
          "run"),
};

lbs_err lbs_results_runs(lbs_results *h, const char *study, lbs_results_order order,
                         const lbs_results_run **out, int64_t *n) {
  *out = NULL, *n = 0;
  if (study && !narrowable(h, T_RUNS)) return LBS_OK; /* no studies: none of study's */
  int grouped = order == LBS_RESULTS_BY_STUDY && has_column(h, T_RUNS, "study") &&
                has_column(h, T_RUNS, "task");
  reading r = {.table = T_RUNS,
               .cols = RUN_COLS,
               .ncols = NCOLS(RUN_COLS),
               .study = study,
               .order = grouped ? " ORDER BY coalesce((SELECT min(r2.id) FROM runs r2"
                                  " WHERE r2.study = runs.study), id), task, id"
                                : " ORDER BY id",
               .keep = 1};
  lbs_results_run row;
  return read_array(h, &r, &row, sizeof row, (const void **)out, n);
}

/* A per-run reading of table t handed to fn through callbacks of the reader's row type. */
static lbs_err read_run(lbs_results *h, int t, const col *cols, int ncols, const char *order,
                        int64_t run, void *row, row_fn fn, void *arg) {
  if (!has_table(h, t)) return LBS_OK;
  reading r = {.table = t,
               .cols = cols,
               .ncols = ncols,
               .where = " WHERE run = ?1",
               .order = order,
               .id = run};
  return read_rows(h, &r, row, fn, arg);
}

/* A caller's callback of a row type, handed through row_fn: the function as it was given
 * (converted back to its own type to be called) and its argument. */
typedef struct call {
  void (*fn)(void);
  void *arg;
} call;

static lbs_err call_step(void *arg, const void *row) {
  const call *c = arg;
  return ((lbs_results_step_fn)c->fn)(c->arg, row);
}

static lbs_err call_proc(void *arg, const void *row) {
  const call *c = arg;
  return ((lbs_results_proc_fn)c->fn)(c->arg, row);
}

static lbs_err call_repart(void *arg, const void *row) {
  const call *c = arg;
  return ((lbs_results_repart_fn)c->fn)(c->arg, row);
}

static lbs_err call_point(void *arg, const void *row) {
  const call *c = arg;
  return ((lbs_results_point_fn)c->fn)(c->arg, row);
}

#define STEP(f, t) COL(lbs_results_step, f, t)
static const col STEP_COLS[] = {
    STEP(run, 'i'),          STEP(step, 'i'),          STEP(app_step, 'i'),
    STEP(time_ns, 'i'),      STEP(compute_ns, 'i'),    STEP(imbalance, 'd'),
    STEP(loadimb, 'd'),      STEP(repartitioned, 'i'), STEP(comm_ns, 'i'),
    STEP(partition_ns, 'i'), STEP(migration_ns, 'i'),
};

lbs_err lbs_results_steps(lbs_results *h, int64_t run, lbs_results_step_fn fn, void *arg) {
  lbs_results_step row;
  call c = {(void (*)(void))fn, arg};
  return read_run(h, T_STEPS, STEP_COLS, NCOLS(STEP_COLS), " ORDER BY step", run, &row, call_step,
                  &c);
}

static const col PROC_COLS[] = {
    COL(lbs_results_proc, run, 'i'),
    COL(lbs_results_proc, step, 'i'),
    COL(lbs_results_proc, proc, 'i'),
    COL(lbs_results_proc, compute_ns, 'i'),
};

lbs_err lbs_results_procs(lbs_results *h, int64_t run, lbs_results_proc_fn fn, void *arg) {
  lbs_results_proc row;
  call c = {(void (*)(void))fn, arg};
  return read_run(h, T_PROCS, PROC_COLS, NCOLS(PROC_COLS), " ORDER BY step, proc", run, &row,
                  call_proc, &c);
}

#define REPART(f, t) COL(lbs_results_repart, f, t)
static const col REPART_COLS[] = {
    REPART(run, 'i'),          REPART(step, 'i'),           REPART(partition_ns, 'i'),
    REPART(migration_ns, 'i'), REPART(moved_elements, 'i'), REPART(moved_bytes, 'd'),
    REPART(wall_s, 'd'),
};

lbs_err lbs_results_reparts(lbs_results *h, int64_t run, lbs_results_repart_fn fn, void *arg) {
  lbs_results_repart row;
  call c = {(void (*)(void))fn, arg};
  return read_run(h, T_REPARTS, REPART_COLS, NCOLS(REPART_COLS), " ORDER BY step", run, &row,
                  call_repart, &c);
}

static const col POINT_COLS[] = {
    COL(lbs_results_point, run, 'i'),
    COL(lbs_results_point, k, 'i'),
    COL(lbs_results_point, step, 'i'),
    COL(lbs_results_point, value, 'd'),
};

lbs_err lbs_results_series(lbs_results *h, const char *study, lbs_results_point_fn fn, void *arg) {
  if (!has_table(h, T_SERIES) || (study && !narrowable(h, T_SERIES))) return LBS_OK;
  reading r = {.table = T_SERIES,
               .cols = POINT_COLS,
               .ncols = NCOLS(POINT_COLS),
               .study = study,
               .order = " ORDER BY run, k"};
  lbs_results_point row;
  call c = {(void (*)(void))fn, arg};
  return read_rows(h, &r, &row, call_point, &c);
}

#define PART(f, t) COL(lbs_results_partition, f, t)
static const col PARTITION_COLS[] = {
    PART(id, 'i'),        PART(study, 't'),       PART(trace, 't'),          PART(grid, 't'),
    PART(step, 'i'),      PART(partitioner, 't'), PART(procs, 'i'),          PART(elements, 'i'),
    PART(maxqwgt_s, 'd'), PART(loadimb, 'd'),     PART(work_imbalance, 'd'), PART(tolerance, 'd'),
    PART(wsysll_s, 'd'),  PART(wgt_s, 'd'),       PART(comm_s, 'd'),         PART(remap_s, 'd'),
    PART(edge_cut, 'd'),  PART(moved, 'i'),       PART(wall_s, 'd'),         PART(created, 't'),
    PART(command, 't'),   PART(version, 't'),     PART(host, 't'),           PART(overrides, 't'),
    PART(config, 't'),    PART(trace_hash, 't'),  PART(grid_hash, 't'),
};

lbs_err lbs_results_partitions(lbs_results *h, const char *study, const lbs_results_partition **out,
                               int64_t *n) {
  *out = NULL, *n = 0;
  if (!has_table(h, T_PARTITIONS) || (study && !narrowable(h, T_PARTITIONS))) return LBS_OK;
  reading r = {.table = T_PARTITIONS,
               .cols = PARTITION_COLS,
               .ncols = NCOLS(PARTITION_COLS),
               .study = study,
               .order = " ORDER BY trace, grid, step, partitioner, id",
               .keep = 1};
  lbs_results_partition row;
  return read_array(h, &r, &row, sizeof row, (const void **)out, n);
}

#define VAL(f, t) COL(lbs_results_validation, f, t)
static const col VALIDATION_COLS[] = {
    VAL(id, 'i'),
    VAL(run, 'i'),
    VAL(app, 't'),
    VAL(args, 't'),
    VAL(ranks, 'i'),
    VAL(schedule, 't'),
    VAL(predicted_s, 'd'),
    VAL(measured_median_s, 'd'),
    VAL(measured_min_s, 'd'),
    VAL(measured_max_s, 'd'),
    VAL(error, 'd'),
    VAL(real_runs, 'i'),
};

/* One measurement, gathered for its validation. */
typedef struct measured {
  double total_s;
} measured;
static const col MEASURED_COLS[] = {COL(measured, total_s, 'd')};

/* The validation's measurements, by k, into the arena. */
static lbs_err read_measured(lbs_results *h, lbs_results_validation *v) {
  v->measured_s = NULL, v->nmeasured = 0;
  if (!has_table(h, T_MEASUREMENTS)) return LBS_OK;
  reading r = {.table = T_MEASUREMENTS,
               .cols = MEASURED_COLS,
               .ncols = 1,
               .where = " WHERE validation = ?1",
               .order = " ORDER BY k",
               .id = v->id};
  measured row;
  const void *a;
  lbs_err e = read_array(h, &r, &row, sizeof row, &a, &v->nmeasured);
  v->measured_s = a; /* a measured is its double */
  return e;
}

lbs_err lbs_results_validations(lbs_results *h, const char *study,
                                const lbs_results_validation **out, int64_t *n) {
  *out = NULL, *n = 0;
  if (!has_table(h, T_VALIDATIONS) || (study && !narrowable(h, T_VALIDATIONS))) return LBS_OK;
  reading r = {.table = T_VALIDATIONS,
               .cols = VALIDATION_COLS,
               .ncols = NCOLS(VALIDATION_COLS),
               .study = study,
               .order = " ORDER BY id",
               .keep = 1};
  lbs_results_validation row;
  const void *a;
  lbs_err e = read_array(h, &r, &row, sizeof row, &a, n);
  lbs_results_validation *v = (lbs_results_validation *)a;
  for (int64_t i = 0; !e && i < *n; i++) e = read_measured(h, &v[i]);
  if (e) *n = 0;
  *out = e ? NULL : v;
  return e;
}

/* ---- configurations: the distinct config texts of runs and partition rows */

static const col CONFIG_COLS[] = {COL(lbs_results_config, grid, 't'),
                                  COL(lbs_results_config, config, 't')};

static lbs_err gather_configs(lbs_results *h, sqlite3_stmt *q, const lbs_results_config **out,
                              int64_t *n) {
  reading r = {.cols = CONFIG_COLS, .ncols = NCOLS(CONFIG_COLS), .keep = 1};
  gather g = {h, sizeof(lbs_results_config), NULL, 0, 0};
  lbs_results_config row;
  lbs_err e = LBS_OK;
  int rc = SQLITE_DONE;
  while (!e && (rc = sqlite3_step(q)) == SQLITE_ROW)
    if (!(e = decode(h, q, &r, &row))) e = gather_row(&g, &row);
  if (!e && rc != SQLITE_DONE) e = lbs_db_fail(h->d, NULL);
  return gathered(&g, e, (const void **)out, n);
}

lbs_err lbs_results_configs(lbs_results *h, const char *study, const lbs_results_config **out,
                            int64_t *n) {
  *out = NULL, *n = 0;
  int runs = has_column(h, T_RUNS, "config") && (!study || narrowable(h, T_RUNS));
  int parts = has_column(h, T_PARTITIONS, "config") && (!study || narrowable(h, T_PARTITIONS));
  if (!runs && !parts) return LBS_OK;
  const char *w = study ? " WHERE study = ?1" : "";
  sqlite3_stmt *q;
  lbs_err e =
      prepare(h,
              sqlite3_mprintf("SELECT grid, config FROM (%s%s%s%s%s) WHERE config IS NOT NULL"
                              " GROUP BY config ORDER BY grid, config",
                              runs ? "SELECT grid, config FROM runs" : "", runs ? w : "",
                              runs && parts ? " UNION " : "",
                              parts ? "SELECT grid, config FROM partitions" : "", parts ? w : ""),
              study, 0, &q);
  if (!e) e = gather_configs(h, q, out, n);
  sqlite3_finalize(q);
  return e;
}

/* ---------------------------------------------------------------- any table */

const char *const *lbs_results_tables(void) { return TABLES; }

/* Column c of q's row as a value; LBS_NOMEM when its text cannot be had. */
static lbs_err value(sqlite3_stmt *q, int c, lbs_results_val *v) {
  switch (sqlite3_column_type(q, c)) {
  case SQLITE_NULL: *v = (lbs_results_val){.type = LBS_RV_NULL}; return LBS_OK;
  case SQLITE_INTEGER:
    *v = (lbs_results_val){.type = LBS_RV_INT, .i = sqlite3_column_int64(q, c)};
    return LBS_OK;
  case SQLITE_FLOAT:
    *v = (lbs_results_val){.type = LBS_RV_REAL, .d = sqlite3_column_double(q, c)};
    return LBS_OK;
  default:
    *v = (lbs_results_val){.type = LBS_RV_TEXT, .s = (const char *)sqlite3_column_text(q, c)};
    return v->s ? LBS_OK : nomem();
  }
}

/* The statement's rows to fn, the header first. */
static lbs_err each_row(lbs_results *h, sqlite3_stmt *q, lbs_results_row_fn fn, void *arg) {
  int nc = sqlite3_column_count(q), rc = SQLITE_DONE;
  const char **names = calloc((size_t)nc + 1, sizeof *names);
  lbs_results_val *row = calloc((size_t)nc + 1, sizeof *row);
  lbs_err e = names && row ? LBS_OK : nomem();
  for (int c = 0; !e && c < nc; c++)
    if (!(names[c] = sqlite3_column_name(q, c))) e = nomem();
  if (!e) e = fn(arg, nc, names, NULL);
  while (!e && (rc = sqlite3_step(q)) == SQLITE_ROW) {
    for (int c = 0; !e && c < nc; c++) e = value(q, c, &row[c]);
    if (!e) e = fn(arg, nc, names, row);
  }
  if (!e && rc != SQLITE_DONE) e = lbs_db_fail(h->d, NULL);
  free(names);
  free(row);
  return e;
}

lbs_err lbs_results_table(lbs_results *h, const char *table, const char *study,
                          lbs_results_row_fn fn, void *arg) {
  int t = table_index(table);
  if (t < 0) return lbs_fail(LBS_INVAL, "results: no table '%s' in a results store", table);
  if (!has_table(h, t) || (study && !narrowable(h, t))) return LBS_OK;
  sqlite3_stmt *q;
  lbs_err e = prepare(h,
                      sqlite3_mprintf("SELECT * FROM \"%w\"%s%s ORDER BY rowid", table,
                                      study ? " WHERE " : "", study ? FILTERS[t].by_study : ""),
                      study, 0, &q);
  if (!e) e = each_row(h, q, fn, arg);
  sqlite3_finalize(q);
  return e;
}
