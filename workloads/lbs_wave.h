/* lbs_wave.h - the cell update of the seed's MRTD wave case (apps/wave), shared by the real MPI
 * code and the calibration kernel `wave` (calibrate/cpu.c, threads.c), so that an IPG measures
 * the very operations a profiled run executes. Header only: apps/wave links no lbsim library.
 *
 * A cell's fields: Ex Ey Ez Hx Hy Hz, each (B+1)^3 doubles. E(i,j,k), i in 0..B, lies at
 * i + n1 (j + n1 k): index B is the + face halo (the next cell's first layer). H(i,j,k),
 * i in -1..B-1, lies one place further in each dimension (at p + off): index -1 is the - face
 * halo (the previous cell's last layer). Halos on the box's faces stay zero. */
#ifndef LBS_WAVE_H
#define LBS_WAVE_H

#include <math.h>
#include <stddef.h>

typedef struct {
  int b, n1;
  ptrdiff_t sy, sz, off, comp; /* strides, H offset, doubles per component */
} lbs_wave_geom;

static inline lbs_wave_geom lbs_wave_geom_of(int b) {
  lbs_wave_geom g = {b, b + 1, b + 1, (ptrdiff_t)(b + 1) * (b + 1), 0, 0};
  g.off = 1 + g.sy + g.sz;
  g.comp = g.sz * g.n1;
  return g;
}

/* H^(n+1/2) from E^n over the block's interior; returns this cell's share of the conserved
 * energy E^n.E^n + H^(n-1/2).H^(n+1/2). */
static inline double lbs_wave_update_H(const lbs_wave_geom *g, double *F, double S) {
  const double *Ex = F, *Ey = F + g->comp, *Ez = F + 2 * g->comp;
  double *Hx = F + 3 * g->comp + g->off, *Hy = F + 4 * g->comp + g->off,
         *Hz = F + 5 * g->comp + g->off;
  const ptrdiff_t sy = g->sy, sz = g->sz;
  double w = 0;
  for (int k = 0; k < g->b; k++)
    for (int j = 0; j < g->b; j++) {
      ptrdiff_t p0 = j * sy + k * sz;
      for (int i = 0; i < g->b; i++) {
        ptrdiff_t p = p0 + i;
        double ex = Ex[p], ey = Ey[p], ez = Ez[p];
        double hx = Hx[p] - S * ((Ez[p + sy] - ez) - (Ey[p + sz] - ey));
        double hy = Hy[p] - S * ((Ex[p + sz] - ex) - (Ez[p + 1] - ez));
        double hz = Hz[p] - S * ((Ey[p + 1] - ey) - (Ex[p + sy] - ex));
        w += ex * ex + ey * ey + ez * ez + hx * Hx[p] + hy * Hy[p] + hz * Hz[p];
        Hx[p] = hx, Hy[p] = hy, Hz[p] = hz;
      }
    }
  return w;
}

/* E^(n+1) from H^(n+1/2); src (B x B values, j fastest, or NULL) is added to Ez on the layer
 * i = 0 when the cell lies on the source plane. Returns the largest |E| of the block afterwards. */
static inline double lbs_wave_update_E(const lbs_wave_geom *g, double *F, double S,
                                       const double *src) {
  double *Ex = F, *Ey = F + g->comp, *Ez = F + 2 * g->comp;
  const double *Hx = F + 3 * g->comp + g->off, *Hy = F + 4 * g->comp + g->off,
               *Hz = F + 5 * g->comp + g->off;
  const ptrdiff_t sy = g->sy, sz = g->sz;
  double m = 0;
  for (int k = 0; k < g->b; k++)
    for (int j = 0; j < g->b; j++) {
      ptrdiff_t p0 = j * sy + k * sz;
      if (src) Ez[p0] += src[j + g->b * k];
      for (int i = 0; i < g->b; i++) {
        ptrdiff_t p = p0 + i;
        double ex = Ex[p] + S * ((Hz[p] - Hz[p - sy]) - (Hy[p] - Hy[p - sz]));
        double ey = Ey[p] + S * ((Hx[p] - Hx[p - sz]) - (Hz[p] - Hz[p - 1]));
        double ez = Ez[p] + S * ((Hy[p] - Hy[p - 1]) - (Hx[p] - Hx[p - sy]));
        Ex[p] = ex, Ey[p] = ey, Ez[p] = ez;
        double a = fabs(ex) > fabs(ey) ? fabs(ex) : fabs(ey);
        a = fabs(ez) > a ? fabs(ez) : a;
        m = a > m ? a : m;
      }
    }
  return m;
}

#endif
