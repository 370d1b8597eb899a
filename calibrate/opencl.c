/* opencl.c - the opencl implementations (placeholder). */
#include "kernels.h"
const lbs_impl_ops *const lbs__impls_opencl[] = {NULL};
