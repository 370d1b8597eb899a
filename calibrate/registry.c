/* registry.c - the built-in adapters and implementations, one list per target file. */
#include <stdio.h>
#include <string.h>

#include "lbs_calib.h"

/* NULL-terminated lists: adapters.c, cpu.c, threads.c, opencl.c, cuda.cu (or cuda_none.c). */
extern const lbs_adapter *const lbs__adapters[];
extern const lbs_impl_ops *const lbs__impls_cpu[],
    *const lbs__impls_threads[], *const lbs__impls_opencl[], *const lbs__impls_cuda[];
/* 1 when the CUDA implementations were built (nvcc was found). */
extern const int lbs__cuda_built;

const lbs_adapter *lbs_adapter_at(int i) {
  for (int k = 0; lbs__adapters[k]; k++)
    if (k == i) return lbs__adapters[k];
  return NULL;
}

const lbs_adapter *lbs_adapter_find(const char *kernel) {
  for (int k = 0; lbs__adapters[k]; k++)
    if (!strcmp(lbs__adapters[k]->kernel, kernel)) return lbs__adapters[k];
  return NULL;
}

const lbs_impl_ops *lbs_impl_at(int i) {
  const lbs_impl_ops *const *lists[] = {lbs__impls_cpu, lbs__impls_threads, lbs__impls_opencl,
                                        lbs__impls_cuda};
  for (size_t l = 0; l < sizeof lists / sizeof *lists; l++)
    for (int k = 0; lists[l][k]; k++)
      if (i-- == 0) return lists[l][k];
  return NULL;
}

const char *lbs_impl_name(const lbs_impl_ops *ops, char *buf, size_t n) {
  snprintf(buf, n, "%s.%s", ops->kernel, ops->target);
  return buf;
}

lbs_err lbs_impl_find(const char *name, const lbs_impl_ops **out) {
  char buf[96], known[2048] = "";
  *out = NULL;
  for (int i = 0; lbs_impl_at(i); i++) {
    lbs_impl_name(lbs_impl_at(i), buf, sizeof buf);
    if (!strcmp(buf, name)) {
      *out = lbs_impl_at(i);
      return LBS_OK;
    }
    snprintf(known + strlen(known), sizeof known - strlen(known), "%s%s", i ? ", " : "", buf);
  }
  const char *dot = strrchr(name, '.');
  if (dot && !strcmp(dot, ".cuda") && !lbs__cuda_built)
    return lbs_fail(LBS_NOTFOUND,
                    "implementation '%s': this lbsim was built without CUDA (nvcc was not found)",
                    name);
  return lbs_fail(LBS_NOTFOUND, "unknown implementation '%s' (known: %s)", name, known);
}
