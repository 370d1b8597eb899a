/* lbsprof_f.c - C entry points for the Fortran module (lbsprof.f90): a Fortran MPI
 * communicator handle and plain arguments instead of the options struct. */
#include <string.h>

#include "lbsprof.h"

/* comm: a Fortran handle (MPI_COMM_WORLD from `use mpi`); path: NUL-terminated; metrics and
 * bound: NUL-terminated ("" for the default). */
int lbsprof_init_f(MPI_Fint comm, const char *path, const char *metrics, int sample_every,
                   const char *bound, lbsprof **out) {
  lbsprof_opts o;
  lbsprof_opts_default(&o);
  o.trace_path = path;
  if (metrics && *metrics) o.metrics = metrics;
  if (sample_every > 0) o.sample_every = sample_every;
  if (bound && *bound) o.bound = bound;
  return lbsprof_init(MPI_Comm_f2c(comm), &o, out);
}

/* The last error message copied into buf (len bytes, NUL-terminated). */
void lbsprof_errmsg_f(char *buf, int len) {
  if (len <= 0) return;
  strncpy(buf, lbsprof_errmsg(), (size_t)len - 1);
  buf[len - 1] = '\0';
}
