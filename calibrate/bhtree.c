/* bhtree.c - the Barnes-Hut tree flattened for the device targets (see bhtree_int.h). */
#include <stdlib.h>
#include <string.h>

#include "bhtree_int.h"

lbs_err lbs__bh_flatten(const lbs_nb_tree *t, double *nd, int32_t *ni) {
  int64_t nn = t->nn;
  if (nn >= INT32_MAX)
    return lbs_fail(LBS_RANGE, "bhforce: a tree of %lld nodes (at most 2^31 - 2)", (long long)nn);
  int64_t *order = malloc((size_t)nn * sizeof *order), *size = malloc((size_t)nn * sizeof *size),
          *stack = malloc((size_t)(nn + 1) * sizeof *stack);
  lbs_err e = LBS_OK;
  if (!order || !size || !stack) {
    e = lbs_fail(LBS_NOMEM, "bhforce: a tree of %lld nodes", (long long)nn);
    goto done;
  }
  int64_t sp = 0, cnt = 0;
  if (nn > 0) stack[sp++] = 0;
  while (sp) { /* lbs_nb_accel's order: pop a node, push its children 7 .. 0 */
    int64_t v = stack[--sp];
    order[cnt++] = v;
    const lbs_nb_node *x = &t->nd[v];
    if (x->leaf < 0)
      for (int q = 7; q >= 0; q--)
        if (x->child[q] >= 0) stack[sp++] = x->child[q];
  }
  for (int64_t k = cnt - 1; k >= 0; k--) { /* subtree sizes: children come later in preorder */
    const lbs_nb_node *x = &t->nd[order[k]];
    size[order[k]] = 1;
    if (x->leaf < 0)
      for (int q = 0; q < 8; q++)
        if (x->child[q] >= 0) size[order[k]] += size[x->child[q]];
  }
  for (int64_t k = 0; k < cnt; k++) {
    const lbs_nb_node *x = &t->nd[order[k]];
    if (x->first + x->cnt > INT32_MAX) {
      e = lbs_fail(LBS_RANGE, "bhforce: %lld bodies (at most 2^31 - 1)",
                   (long long)(x->first + x->cnt));
      goto done;
    }
    double *d = nd + 5 * k;
    int32_t *i = ni + 4 * k;
    d[0] = x->com[0], d[1] = x->com[1], d[2] = x->com[2], d[3] = x->h, d[4] = x->m;
    i[0] = x->leaf >= 0 ? x->leaf : -1, i[1] = (int32_t)x->first, i[2] = (int32_t)x->cnt;
    i[3] = (int32_t)(k + size[order[k]]);
  }
  for (int64_t k = cnt; k < nn; k++) { /* nodes no walk reaches (none in a built tree): skipped */
    memset(nd + 5 * k, 0, 5 * sizeof *nd);
    ni[4 * k] = -1, ni[4 * k + 1] = ni[4 * k + 2] = 0, ni[4 * k + 3] = (int32_t)(k + 1);
  }
done:
  free(order), free(size), free(stack);
  return e;
}
