/* zoltan_genfiles.c - writes Zoltan_Generate_Files's files for a Chaco mesh, with real Zoltan.
 *
 * usage: mpiexec -n R zoltan_genfiles MESH.graph MESH.coords BASE [EDGE_WEIGHT_DIM [BASE_INDEX
 *        [GEN_HG]]]
 *
 * The test data of `lbsim trace import --zoltan-files`: the files a Zoltan application writes
 * with Zoltan_Generate_Files, made by Zoltan itself rather than by hand, so the reader follows
 * what Zoltan writes and not what someone remembers of it. The mesh is read (lbs_chaco_read)
 * and dealt out to the ranks in blocks of consecutive vertices; each vertex has 3 object
 * weights, each arc EDGE_WEIGHT_DIM (default 1) edge weights, the mesh's coordinates and an
 * initial part, all given by the formulas below, which tests/traces/test_zoltan_files.c and
 * tests/e2e/zoltan_files.sh check the import against:
 *   object weights of vertex g (0-based): 1 + g % 5, 0.5 * (g % 3), 10 + g
 *   edge weight k of the edge {u, v}:      1 + (u + v) % 4 + k
 *   initial part of g:                     (7 g) % 4 (Zoltan's part query, 4 global parts)
 * Global ids are g + 1 (an application's ids need not be Zoltan's vertex numbers). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <zoltan.h>

#include "lbs_traces.h"

#define NWGT 3

typedef struct {
  int64_t first, n;          /* this rank's vertices: [first, first + n) */
  int ewdim;                 /* edge weights an edge */
  const int64_t *xadj, *adj; /* the whole mesh's graph */
  const double *xyz;         /* its coordinates, dim a vertex */
  int dim;
  int64_t nglobal;
  int nranks;
} mesh_data;

static double obj_weight(int64_t g, int k) {
  return k == 0 ? 1.0 + (double)(g % 5) : k == 1 ? 0.5 * (double)(g % 3) : 10.0 + (double)g;
}
static double edge_weight(int64_t u, int64_t v, int k) { return 1.0 + (double)((u + v) % 4) + k; }
static int init_part(int64_t g) { return (int)(7 * g % 4); }

/* the rank that holds vertex g under the block distribution */
static int owner(const mesh_data *d, int64_t g) {
  for (int r = 0; r < d->nranks; r++)
    if (g < d->nglobal * (r + 1) / d->nranks) return r;
  return d->nranks - 1;
}

static int num_obj(void *p, int *ierr) {
  *ierr = ZOLTAN_OK;
  return (int)((mesh_data *)p)->n;
}

static void obj_list(void *p, int ng, int nl, ZOLTAN_ID_PTR gid, ZOLTAN_ID_PTR lid, int wdim,
                     float *w, int *ierr) {
  (void)ng, (void)nl;
  mesh_data *d = p;
  for (int64_t i = 0; i < d->n; i++) {
    gid[i] = (ZOLTAN_ID_TYPE)(d->first + i + 1);
    lid[i] = (ZOLTAN_ID_TYPE)i;
    for (int k = 0; k < wdim; k++) w[i * wdim + k] = (float)obj_weight(d->first + i, k);
  }
  *ierr = ZOLTAN_OK;
}

static int num_geom(void *p, int *ierr) {
  *ierr = ZOLTAN_OK;
  return ((mesh_data *)p)->dim;
}

static void geom_multi(void *p, int ng, int nl, int nobj, ZOLTAN_ID_PTR gid, ZOLTAN_ID_PTR lid,
                       int dim, double *x, int *ierr) {
  (void)ng, (void)nl, (void)gid;
  mesh_data *d = p;
  for (int i = 0; i < nobj; i++)
    for (int k = 0; k < dim; k++) x[i * dim + k] = d->xyz[(d->first + lid[i]) * d->dim + k];
  *ierr = ZOLTAN_OK;
}

static void num_edges_multi(void *p, int ng, int nl, int nobj, ZOLTAN_ID_PTR gid, ZOLTAN_ID_PTR lid,
                            int *ne, int *ierr) {
  (void)ng, (void)nl, (void)gid;
  mesh_data *d = p;
  for (int i = 0; i < nobj; i++) {
    int64_t g = d->first + lid[i];
    ne[i] = (int)(d->xadj[g + 1] - d->xadj[g]);
  }
  *ierr = ZOLTAN_OK;
}

static void edge_list_multi(void *p, int ng, int nl, int nobj, ZOLTAN_ID_PTR gid, ZOLTAN_ID_PTR lid,
                            int *ne, ZOLTAN_ID_PTR nbor, int *nproc, int wdim, float *ew,
                            int *ierr) {
  (void)ng, (void)nl, (void)gid, (void)ne;
  mesh_data *d = p;
  int64_t j = 0;
  for (int i = 0; i < nobj; i++) {
    int64_t g = d->first + lid[i];
    for (int64_t a = d->xadj[g]; a < d->xadj[g + 1]; a++, j++) {
      int64_t v = d->adj[a];
      nbor[j] = (ZOLTAN_ID_TYPE)(v + 1);
      nproc[j] = owner(d, v);
      for (int k = 0; k < wdim; k++) ew[j * wdim + k] = (float)edge_weight(g, v, k);
    }
  }
  *ierr = ZOLTAN_OK;
}

static void part_multi(void *p, int ng, int nl, int nobj, ZOLTAN_ID_PTR gid, ZOLTAN_ID_PTR lid,
                       int *part, int *ierr) {
  (void)ng, (void)nl, (void)gid;
  mesh_data *d = p;
  for (int i = 0; i < nobj; i++) part[i] = init_part(d->first + lid[i]);
  *ierr = ZOLTAN_OK;
}

/* The hypergraph (GEN_HG): a hyperedge a vertex, the vertex and its neighbours, given by the
 * rank that holds the vertex (compressed by hyperedge, hyperedge ids = the vertex's gid). */
static void hg_size(void *p, int *nlists, int *npins, int *format, int *ierr) {
  mesh_data *d = p;
  *nlists = (int)d->n;
  *npins = (int)(d->n + d->xadj[d->first + d->n] - d->xadj[d->first]);
  *format = ZOLTAN_COMPRESSED_EDGE;
  *ierr = ZOLTAN_OK;
}

static void hg_cs(void *p, int ng, int nlists, int npins, int format, ZOLTAN_ID_PTR edge, int *ptr,
                  ZOLTAN_ID_PTR pins, int *ierr) {
  (void)ng, (void)npins, (void)format;
  mesh_data *d = p;
  int k = 0;
  for (int i = 0; i < nlists; i++) {
    int64_t g = d->first + i;
    edge[i] = (ZOLTAN_ID_TYPE)(g + 1);
    ptr[i] = k;
    pins[k++] = (ZOLTAN_ID_TYPE)(g + 1);
    for (int64_t a = d->xadj[g]; a < d->xadj[g + 1]; a++)
      pins[k++] = (ZOLTAN_ID_TYPE)(d->adj[a] + 1);
  }
  *ierr = ZOLTAN_OK;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, nranks, rc = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  lbs_mesh *mesh = NULL;
  double *vw = NULL;
  int ncon = 0;
  struct Zoltan_Struct *zz = NULL;
  if (argc < 4 || argc > 7) {
    if (!rank)
      fprintf(stderr, "usage: zoltan_genfiles MESH.graph MESH.coords BASE [EDGE_WEIGHT_DIM "
                      "[BASE_INDEX [GEN_HG]]]\n");
    goto done;
  }
  if (lbs_chaco_read(argv[1], argv[2], &mesh, &vw, &ncon, NULL)) {
    fprintf(stderr, "zoltan_genfiles: %s\n", lbs_errmsg());
    goto done;
  }
  mesh_data d = {.nranks = nranks, .nglobal = lbs_mesh_elements(mesh), .ewdim = 1};
  if (argc > 4) d.ewdim = atoi(argv[4]);
  int base_index = argc > 5 ? atoi(argv[5]) : 1, gen_hg = argc > 6 ? atoi(argv[6]) : 0;
  const double *w;
  lbs_mesh_graph(mesh, &d.xadj, &d.adj, &w);
  lbs_mesh_coords(mesh, &d.xyz, &d.dim);
  d.first = d.nglobal * rank / nranks;
  d.n = d.nglobal * (rank + 1) / nranks - d.first;
  float ver;
  char num[16];
  if (Zoltan_Initialize(argc, argv, &ver) != ZOLTAN_OK || !(zz = Zoltan_Create(MPI_COMM_WORLD)))
    goto done;
  Zoltan_Set_Param(zz, "DEBUG_LEVEL", "0");
  Zoltan_Set_Param(zz, "NUM_GLOBAL_PARTS", "4");
  snprintf(num, sizeof num, "%d", NWGT);
  Zoltan_Set_Param(zz, "OBJ_WEIGHT_DIM", num);
  snprintf(num, sizeof num, "%d", d.ewdim);
  Zoltan_Set_Param(zz, "EDGE_WEIGHT_DIM", num);
  Zoltan_Set_Num_Obj_Fn(zz, num_obj, &d);
  Zoltan_Set_Obj_List_Fn(zz, obj_list, &d);
  Zoltan_Set_Num_Geom_Fn(zz, num_geom, &d);
  Zoltan_Set_Geom_Multi_Fn(zz, geom_multi, &d);
  Zoltan_Set_Num_Edges_Multi_Fn(zz, num_edges_multi, &d);
  Zoltan_Set_Edge_List_Multi_Fn(zz, edge_list_multi, &d);
  Zoltan_Set_Part_Multi_Fn(zz, part_multi, &d);
  if (gen_hg) {
    Zoltan_Set_HG_Size_CS_Fn(zz, hg_size, &d);
    Zoltan_Set_HG_CS_Fn(zz, hg_cs, &d);
  }
  if (Zoltan_Generate_Files(zz, argv[3], base_index, 1, 1, gen_hg) != ZOLTAN_OK) {
    fprintf(stderr, "zoltan_genfiles: Zoltan_Generate_Files failed on rank %d\n", rank);
    goto done;
  }
  rc = 0;
done:
  Zoltan_Destroy(&zz);
  free(vw);
  lbs_mesh_destroy(&mesh);
  MPI_Finalize();
  return rc;
}
