/* part_lua.c - lua:FILE.lua[:ARGS], a partitioner written in Lua 5.4, for small experiments.
 *
 * The script defines partition(g), returning a table of g.n parts (whole numbers in
 * 1..g.nparts, entry v for vertex v), and optionally init(args) (the text after "FILE.lua:", or
 * nil). g holds, 1-based: n, nparts, dim, weight[v] (the work at the step), part_sizes[p]
 * (relative target loads, summing to 1), current[v] (the part v is on now, 0 when unknown),
 * repartition (a boolean: the replay asks to start from current), and unless the script sets the
 * global needs_graph = false, adj[v] and adjw[v] (tables of v's neighbours and of its edges'
 * weights), and unless it sets needs_coords = false (and the trace has coordinates), coords[v]
 * (a table of dim numbers). The objects are gathered on rank 0, which alone runs partition, so
 * the answer is the same on any number of ranks.
 *
 * The sandbox and the limits are lbs_lua.h's (one budget for each partition call). A failure is
 * LBS_INVAL "partitioner lua:FILE:LINE: message" on every rank. */
#include <lauxlib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lbs_lua.h"
#include "part_int.h"

typedef struct {
  lbs_lua *box;
  lua_State *L;
  int graph, coords; /* what partition reads */
  MPI_Comm comm;
} luapart;

static void destroy(void *state) {
  luapart *s = state;
  if (!s) return;
  lbs_lua_close(s->box);
  free(s);
}

/* The global name, unless it is false: 1; 0 when the script set it to false. */
static int wants(lua_State *L, const char *name) {
  int t = lua_getglobal(L, name);
  int v = t != LUA_TBOOLEAN || lua_toboolean(L, -1);
  lua_pop(L, 1);
  return v;
}

static lbs_err create(void **state, const char *args, const lbs_config *cfg, MPI_Comm comm) {
  (void)cfg;
  luapart *s = calloc(1, sizeof *s);
  if (!s) return lbs_fail(LBS_NOMEM, "partitioner lua");
  s->comm = comm;
  lbs_err e = lbs_lua_open_script("partitioner", args, "partition", "partition(g)", s, &s->box);
  if (e) {
    destroy(s);
    return e;
  }
  lua_State *L = s->L = lbs_lua_state(s->box);
  s->graph = wants(L, "needs_graph"), s->coords = wants(L, "needs_coords");
  *state = s;
  return LBS_OK;
}

static int needs_graph(const void *s) { return ((const luapart *)s)->graph; }
static int needs_coords(const void *s) { return ((const luapart *)s)->coords; }
static int uses_current(const void *s) { return (void)s, 1; } /* the script may read g.current */
static int takes_sizes(const void *s) { return (void)s, 1; }

static void set_int(lua_State *L, const char *k, lua_Integer v) {
  lua_pushinteger(L, v);
  lua_setfield(L, -2, k);
}

static void push_doubles(lua_State *L, const double *v, int64_t n) {
  lua_createtable(L, n < INT32_MAX ? (int)n : 0, 0);
  for (int64_t i = 0; i < n; i++) {
    lua_pushnumber(L, v ? v[i] : 1);
    lua_rawseti(L, -2, (lua_Integer)i + 1);
  }
}

/* g, as a protected C function: the memory limit may refuse a table (upvalue: the input) */
static int build_g(lua_State *L) {
  const lbs_part_input *in = lua_touserdata(L, 1);
  luapart *s = lbs_lua_user(L);
  int64_t n = in->nlocal;
  lua_createtable(L, 0, 10);
  set_int(L, "n", n);
  set_int(L, "nparts", in->nparts);
  set_int(L, "dim", s->coords && in->coords ? in->dim : 0);
  lua_pushboolean(L, in->repartition);
  lua_setfield(L, -2, "repartition");
  push_doubles(L, in->weight, n);
  lua_setfield(L, -2, "weight");
  push_doubles(L, in->part_sizes, in->nparts);
  lua_setfield(L, -2, "part_sizes");
  lua_createtable(L, (int)n, 0);
  for (int64_t v = 0; v < n; v++) {
    lua_pushinteger(L, in->current && in->current[v] >= 0 ? in->current[v] + 1 : 0);
    lua_rawseti(L, -2, v + 1);
  }
  lua_setfield(L, -2, "current");
  if (s->coords && in->coords) {
    lua_createtable(L, (int)n, 0);
    for (int64_t v = 0; v < n; v++) {
      push_doubles(L, in->coords + v * in->dim, in->dim);
      lua_rawseti(L, -2, v + 1);
    }
    lua_setfield(L, -2, "coords");
  }
  if (s->graph && in->xadj) {
    lua_createtable(L, (int)n, 0); /* adj */
    lua_createtable(L, (int)n, 0); /* adjw */
    for (int64_t v = 0; v < n; v++) {
      int64_t a = in->xadj[v], d = in->xadj[v + 1] - a;
      lua_createtable(L, (int)d, 0);
      for (int64_t j = 0; j < d; j++) {
        lua_pushinteger(L, in->adj[a + j] + 1);
        lua_rawseti(L, -2, j + 1);
      }
      lua_rawseti(L, -3, v + 1);
      push_doubles(L, in->adjw ? in->adjw + a : NULL, d);
      lua_rawseti(L, -2, v + 1);
    }
    lua_setfield(L, -3, "adjw");
    lua_setfield(L, -2, "adj");
  }
  return 1;
}

/* The script's answer (on top of the stack) into newpart. */
static lbs_err take_parts(luapart *s, int defined, const lbs_part_input *in, int *newpart) {
  lua_State *L = s->L;
  char msg[256];
  const char *p = lbs_lua_path(s->box);
  if (!lua_istable(L, -1)) {
    snprintf(msg, sizeof msg, "%s:%d: partition must return a table of parts, not a %s", p, defined,
             luaL_typename(L, -1));
    return lbs_lua_fail(s->box, msg, NULL);
  }
  for (int64_t v = 0; v < in->nlocal; v++) {
    int isint;
    lua_rawgeti(L, -1, v + 1);
    lua_Integer q = lua_tointegerx(L, -1, &isint);
    lua_pop(L, 1);
    if (!isint || q < 1 || q > in->nparts) {
      snprintf(msg, sizeof msg, "%s:%d: partition's entry %lld must be a part in 1..%d", p, defined,
               (long long)v + 1, in->nparts);
      return lbs_lua_fail(s->box, msg, NULL);
    }
    newpart[v] = (int)q - 1;
  }
  return LBS_OK;
}

static lbs_err run(void *state, const lbs_part_input *in, int *newpart) {
  luapart *s = state;
  lua_State *L = s->L;
  for (int64_t i = 0; i < in->nlocal; i++)
    if (in->gid[i] != i)
      return lbs_fail(LBS_INVAL, "partitioner lua: element %lld is missing", (long long)i);
  lua_settop(L, 0);
  lua_getglobal(L, "partition");
  if (!lua_isfunction(L, 1))
    return lbs_fail(LBS_INVAL, "partitioner lua:%s: partition is no longer a function",
                    lbs_lua_path(s->box));
  int defined = lbs_lua_defined_at(L);
  lua_pushcfunction(L, build_g);
  lua_pushlightuserdata(L, (void *)in);
  lbs_err e = LBS_OK;
  if (lbs_lua_call(s->box, 1, 1) != LUA_OK)
    e = lbs_lua_fail(s->box, lua_tostring(L, -1), " (building g)");
  else if (lbs_lua_call(s->box, 1, 1) != LUA_OK)
    e = lbs_lua_fail(s->box, lua_tostring(L, -1), NULL);
  else
    e = take_parts(s, defined, in, newpart);
  lua_settop(L, 0);
  lua_gc(L, LUA_GCCOLLECT); /* g may be large: free it before the replay goes on */
  return e;
}

static lbs_err partition(void *state, const lbs_part_input *in, int *newpart) {
  luapart *s = state;
  int size;
  MPI_Comm_size(s->comm, &size);
  if (size == 1) return run(state, in, newpart);
  return lbs__part_on_rank0(s->comm, in, s->graph, s->coords, run, state, newpart);
}

const lbs_partitioner_ops lbs__part_lua = {.abi = LBS_PART_ABI,
                                           .name = "lua",
                                           .methods = NULL,
                                           .create = create,
                                           .needs_graph = needs_graph,
                                           .needs_coords = needs_coords,
                                           .partition = partition,
                                           .destroy = destroy,
                                           .uses_current = uses_current,
                                           .takes_sizes = takes_sizes,
                                           .usage = "lua:FILE.lua[:ARGS]",
                                           .example = "lua:examples/partitioners/greedy.lua",
                                           .flags = LBS_PART_SCRIPT};
