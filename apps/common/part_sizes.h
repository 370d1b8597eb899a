/* part_sizes.h - the parts an app's partitioner aims at, --part-sizes LIST (lbsim's [sim]
 * part_sizes, which `lbsim validate` passes so that app and replay partition alike). Pure C, no
 * MPI: wave (which has its own option parser) and appkit share it. */
#ifndef APP_PART_SIZES_H
#define APP_PART_SIZES_H

#include <stddef.h>

/* P shares, numbers > 0 separated by commas, one per rank, into sizes (summing to 1); "equal" or
 * NULL: 1/P each. *meta (len bytes): what the trace records as app.part_sizes, "equal" (also for
 * shares all alike) or the shares. 0, or -1 with the reason in why (wlen bytes). */
int app_parse_part_sizes(const char *text, int P, double *sizes, char *meta, size_t len, char *why,
                         size_t wlen);

#endif
