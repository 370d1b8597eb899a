/* grid_int.h - private to grid/. */
#ifndef LBS_GRID_INT_H
#define LBS_GRID_INT_H

#include "lbs_grid.h"

extern const lbs_speed_ops lbs__speed_linear;

#endif
