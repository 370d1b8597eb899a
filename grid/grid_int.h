/* grid_int.h - private to grid/. */
#ifndef LBS_GRID_INT_H
#define LBS_GRID_INT_H

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

#endif
