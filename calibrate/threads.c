/* threads.c - the threads implementations (placeholder). */
#include "kernels.h"
const lbs_impl_ops *const lbs__impls_threads[] = {NULL};
