/* ia.c - the IA heuristic (in progress). */
#include "lbs_calib.h"
