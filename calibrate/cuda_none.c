/* cuda_none.c - built instead of the CUDA implementations when nvcc is not found. */
#include "kernels.h"
const lbs_impl_ops *const lbs__impls_cuda[] = {NULL};
const int lbs__cuda_built = 0;
