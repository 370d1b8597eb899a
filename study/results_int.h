/* results_int.h - what the results store's writers (results.c) and readers (results_read.c)
 * share. Private to study/. */
#ifndef LBS_RESULTS_INT_H
#define LBS_RESULTS_INT_H

#include "lbs_db.h"

/* The results store as core's lbs_db opens it: 'LBSR', schema 1 to 3, terse messages. */
extern const lbs_db_kind lbs__results_kind;

/* 1 when db has the table; 1 when the table has the column (a schema-1 store lacks schema 2's).
 * Local; 0 on any error. */
int lbs__results_has_table(sqlite3 *db, const char *table);
int lbs__results_has_column(sqlite3 *db, const char *table, const char *column);

#endif
