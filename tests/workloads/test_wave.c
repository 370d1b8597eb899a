/* test_wave.c - the MRTD wave cell update (workloads/lbs_wave.h): the layout's strides, and the
 * leapfrog's conserved energy in a closed cell (zero halos). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>

#include "lbs_core.h"
#include "lbs_wave.h"

Test(wave, the_layout) {
  lbs_wave_geom g = lbs_wave_geom_of(4);
  cr_assert(g.b == 4 && g.n1 == 5 && g.sy == 5 && g.sz == 25 && g.off == 31 && g.comp == 125);
}

/* A cell whose halos stay zero is a closed box: E^n.E^n + H^(n-1/2).H^(n+1/2), what
 * lbs_wave_update_H returns, is the same at every step. */
Test(wave, a_closed_cell_keeps_its_energy) {
  const int b = 6;
  const double S = 0.3; /* below the stability limit 1/sqrt(3) */
  lbs_wave_geom g = lbs_wave_geom_of(b);
  double *F = calloc((size_t)(6 * g.comp), sizeof *F);
  for (int c = 0; c < 3; c++) /* E inside the cell, its halo layers zero */
    for (int k = 0; k < b; k++)
      for (int j = 0; j < b; j++)
        for (int i = 0; i < b; i++)
          F[c * g.comp + i + j * g.sy + k * g.sz] =
              lbs_rng_unit(9, (uint64_t)c, (uint64_t)(i + b * (j + b * k))) - 0.5;
  double w0 = 0, maxe = 0;
  for (int n = 0; n < 200; n++) {
    double w = lbs_wave_update_H(&g, F, S);
    maxe = lbs_wave_update_E(&g, F, S, NULL);
    if (n == 0)
      w0 = w;
    else
      cr_assert(fabs(w - w0) <= 1e-10 * w0, "step %d: energy %.15g, at first %.15g", n, w, w0);
  }
  cr_assert(w0 > 0 && maxe > 0 && maxe < 10, "a bounded field: max |E| %g", maxe);
  free(F);
}
