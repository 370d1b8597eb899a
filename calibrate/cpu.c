/* cpu.c - the cpu implementations (placeholder). */
#include "kernels.h"
const lbs_impl_ops *const lbs__impls_cpu[] = {NULL};
