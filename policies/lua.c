/* lua.c - lua:FILE.lua[:ARGS], a policy written in Lua 5.4.
 *
 * The script defines decide(view), returning a boolean (true: repartition before view.step),
 * and optionally init(args) (args: the text after "FILE.lua:", or nil), called once, and
 * series(), called after the run, returning two tables of equal length (steps and values: a
 * series the results store keeps, as adaptive's interval per probe). `view`
 * carries lbs_loadview's fields under their C names: step, steps, since, procs, imbalance,
 * last_repart_ns, est_repart_ns (numbers; ns are integers), load_ns (a 1-based table of P
 * integers), step_ns, past_imbalance and past_excess_ns (read-only 1-based tables of the
 * past steps: entry i is step i-1), and view.eval_step(s) returning (load_ns, imbalance) of
 * step s (0-based) under the current assignment. eval_step is collective under MPI: every
 * rank's script must make the same calls, which a deterministic script does (math.random is
 * seeded with 0 on every rank; pairs() order over string keys is not guaranteed to match). The
 * replay agrees on each decision and each eval_step call over the ranks (sim/base.c): one that
 * differs is an error on every rank.
 *
 * The sandbox and the limits are lbs_lua.h's (--lua-unsafe, LBSIM_LUA_BUDGET, LBSIM_LUA_MEMORY). A
 * syntax error, a runtime error, a stack overflow, the budget, the memory limit and a non-boolean
 * return are LBS_INVAL "policy lua:FILE:LINE: message", the same on every rank. */
#include <lauxlib.h>
#include <lua.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lbs_lua.h"
#include "lbs_policy.h"

typedef struct {
  lbs_lua *box;
  lua_State *L;
  const char *path;      /* the box's */
  const lbs_loadview *v; /* the view of the decide under way, NULL between calls */
  lbs_err nav_err;       /* eval_step's own failure (not the script's) */
  int64_t *load;         /* P scratch for eval_step */
  int P;
  int hist;    /* registry reference: the table of the three history proxies */
  int64_t *ss; /* series(): its steps and values, kept for the caller */
  double *sv;
} luapol;

static lbs_err script_fail(luapol *s, const char *msg, int64_t step) {
  char at[64] = "";
  if (step >= 0) snprintf(at, sizeof at, " (deciding step %lld)", (long long)step);
  return lbs_lua_fail(s->box, msg, at);
}

static luapol *self(lua_State *L) { return lbs_lua_user(L); }

static void push_loads(lua_State *L, const int64_t *load, int P) {
  lua_createtable(L, P, 0);
  for (int i = 0; i < P; i++) {
    lua_pushinteger(L, (lua_Integer)load[i]);
    lua_rawseti(L, -2, i + 1);
  }
}

/* view.eval_step(s): (load_ns, imbalance) of step s under the current assignment. */
static int eval_step(lua_State *L) {
  luapol *s = self(L);
  const lbs_loadview *v = s->v;
  if (!v) return luaL_error(L, "eval_step called outside decide");
  lua_Integer st = luaL_checkinteger(L, 1);
  if (st < 0 || st >= v->steps)
    return luaL_error(L, "eval_step: step %I outside 0..%I", st, (lua_Integer)v->steps - 1);
  if (s->P != v->procs) {
    free(s->load);
    s->P = 0;
    if (!(s->load = malloc((size_t)v->procs * sizeof *s->load)))
      return luaL_error(L, "eval_step: out of memory");
    s->P = v->procs;
  }
  double imb;
  lbs_err e = v->eval_step(v->nav, (int64_t)st, s->load, &imb);
  if (e) {
    s->nav_err = e;
    return luaL_error(L, "eval_step(%I): %s", st, lbs_errmsg());
  }
  push_loads(L, s->load, v->procs);
  lua_pushnumber(L, imb);
  return 2;
}

/* The history proxies: upvalue 1 is which array (0 step_ns, 1 past_imbalance, 2 past_excess_ns). */
static int hist_index(lua_State *L) {
  luapol *s = self(L);
  int kind = (int)lua_tointeger(L, lua_upvalueindex(1));
  int isnum;
  lua_Integer i = lua_tointegerx(L, 2, &isnum);
  if (!s->v || !isnum || i < 1 || i > s->v->step) {
    lua_pushnil(L);
  } else if (kind == 0) {
    lua_pushinteger(L, (lua_Integer)s->v->step_ns[i - 1]);
  } else if (kind == 1) {
    lua_pushnumber(L, s->v->past_imbalance[i - 1]);
  } else {
    lua_pushinteger(L, (lua_Integer)s->v->past_excess_ns[i - 1]);
  }
  return 1;
}

static int hist_len(lua_State *L) {
  luapol *s = self(L);
  lua_pushinteger(L, s->v ? (lua_Integer)s->v->step : 0);
  return 1;
}

static int hist_set(lua_State *L) {
  return luaL_error(L, "the view's history tables are read-only");
}

static const char *const hist_names[] = {"step_ns", "past_imbalance", "past_excess_ns"};

/* A table {step_ns = proxy, past_imbalance = proxy, past_excess_ns = proxy} in the registry. */
static int make_history(lua_State *L) {
  lua_createtable(L, 0, 3);
  for (int k = 0; k < 3; k++) {
    lua_newtable(L);          /* the (empty) proxy */
    lua_createtable(L, 0, 3); /* its metatable */
    lua_pushinteger(L, k);
    lua_pushcclosure(L, hist_index, 1);
    lua_setfield(L, -2, "__index");
    lua_pushcfunction(L, hist_len);
    lua_setfield(L, -2, "__len");
    lua_pushcfunction(L, hist_set);
    lua_setfield(L, -2, "__newindex");
    lua_setmetatable(L, -2);
    lua_setfield(L, -2, hist_names[k]);
  }
  return luaL_ref(L, LUA_REGISTRYINDEX);
}

static void fini(void *state) {
  luapol *s = state;
  if (!s) return;
  lbs_lua_close(s->box);
  free(s->load);
  free(s->ss);
  free(s->sv);
  free(s);
}

static lbs_err init(void **state, const char *args) {
  luapol *s = calloc(1, sizeof *s);
  if (!s) return lbs_fail(LBS_NOMEM, "policy lua");
  s->hist = LUA_NOREF;
  lbs_err e = lbs_lua_open_script("policy", args, "decide", "decide(view)", s, &s->box);
  if (e) {
    fini(s);
    return e;
  }
  lua_State *L = s->L = lbs_lua_state(s->box);
  s->path = lbs_lua_path(s->box);
  s->hist = make_history(L);
  if (lua_getglobal(L, "series") != LUA_TFUNCTION && !lua_isnil(L, -1))
    e = lbs_fail(LBS_INVAL, "policy lua:%s: series is a %s, not a function", s->path,
                 luaL_typename(L, -1));
  if (e) {
    fini(s);
    return e;
  }
  lua_settop(L, 0);
  *state = s;
  return LBS_OK;
}

static void set_int(lua_State *L, const char *k, int64_t v) {
  lua_pushinteger(L, (lua_Integer)v);
  lua_setfield(L, -2, k);
}

static lbs_err decide(void *state, const lbs_loadview *v, int *rep) {
  luapol *s = state;
  lua_State *L = s->L;
  *rep = 0;
  lua_settop(L, 0);
  lua_getglobal(L, "decide");
  if (!lua_isfunction(L, -1))
    return lbs_fail(LBS_INVAL, "policy lua:%s: decide is no longer a function", s->path);
  int defined = lbs_lua_defined_at(L);
  lua_createtable(L, 0, 14);
  set_int(L, "step", v->step);
  set_int(L, "steps", v->steps);
  set_int(L, "since", v->since);
  set_int(L, "procs", v->procs);
  set_int(L, "last_repart_ns", v->last_repart_ns);
  set_int(L, "est_repart_ns", v->est_repart_ns);
  lua_pushnumber(L, v->imbalance);
  lua_setfield(L, -2, "imbalance");
  push_loads(L, v->load_ns, v->procs);
  lua_setfield(L, -2, "load_ns");
  lua_rawgeti(L, LUA_REGISTRYINDEX, s->hist);
  for (int k = 0; k < 3; k++) {
    lua_getfield(L, -1, hist_names[k]);
    lua_setfield(L, -3, hist_names[k]);
  }
  lua_pop(L, 1);
  if (v->eval_step) {
    lua_pushcfunction(L, eval_step);
    lua_setfield(L, -2, "eval_step");
  }
  s->v = v;
  s->nav_err = LBS_OK;
  int rc = lbs_lua_call(s->box, 1, 1);
  s->v = NULL;
  if (s->nav_err)
    return lbs_fail(s->nav_err, "policy lua:%s: %s", s->path,
                    rc == LUA_OK ? "eval_step failed" : lua_tostring(L, -1));
  if (rc != LUA_OK) return script_fail(s, lua_tostring(L, -1), v->step);
  if (!lua_isboolean(L, -1)) {
    char msg[256];
    snprintf(msg, sizeof msg, "%s:%d: decide must return a boolean, not a %s", s->path, defined,
             luaL_typename(L, -1));
    return script_fail(s, msg, v->step);
  }
  *rep = lua_toboolean(L, -1);
  lua_settop(L, 0);
  return LBS_OK;
}

/* Checks series()'s two results (at stack 1 and 2) into s->ss, s->sv: n, or -1 with why. */
static int take_series(luapol *s, const char **why) {
  lua_State *L = s->L;
  if (!lua_istable(L, 1) || !lua_istable(L, 2))
    return *why = "must return two tables, steps and values", -1;
  lua_Unsigned n = lua_rawlen(L, 1);
  if (lua_rawlen(L, 2) != n) return *why = "returned steps and values of different lengths", -1;
  if (n > (1u << 30)) return *why = "returned more than 2^30 points", -1;
  free(s->ss), free(s->sv);
  s->ss = malloc((n + 1) * sizeof *s->ss), s->sv = malloc((n + 1) * sizeof *s->sv);
  if (!s->ss || !s->sv) return *why = "out of memory", -1;
  for (lua_Unsigned i = 0; i < n; i++) {
    int isint, isnum;
    lua_rawgeti(L, 1, (lua_Integer)i + 1);
    lua_rawgeti(L, 2, (lua_Integer)i + 1);
    lua_Integer st = lua_tointegerx(L, -2, &isint);
    double v = lua_tonumberx(L, -1, &isnum);
    lua_pop(L, 2);
    if (!isint || st < 0) return *why = "returned a step that is not a whole number >= 0", -1;
    if (!isnum || !isfinite(v)) return *why = "returned a value that is not a finite number", -1;
    s->ss[i] = (int64_t)st, s->sv[i] = v;
  }
  return (int)n;
}

/* series(): the script's recorded series, two tables of equal length (steps, whole numbers >= 0,
 * as the view's step, and values). A failing series() is a warning: the run's results stand. */
static int series(const void *state, const int64_t **steps, const double **values) {
  luapol *s = (luapol *)state; /* the script runs, and its arrays are kept here */
  lua_State *L = s->L;
  *steps = NULL, *values = NULL;
  lua_settop(L, 0);
  if (lua_getglobal(L, "series") != LUA_TFUNCTION) return lua_settop(L, 0), 0;
  int defined = lbs_lua_defined_at(L), n = -1;
  const char *why = NULL;
  if (lbs_lua_call(s->box, 0, 2) != LUA_OK) {
    lbs_lua_fail(s->box, lua_tostring(L, -1), " (its series is left out)");
  } else if ((n = take_series(s, &why)) < 0) {
    char msg[256];
    snprintf(msg, sizeof msg, "%s:%d: series %s", s->path, defined, why);
    lbs_lua_fail(s->box, msg, " (its series is left out)");
  }
  lua_settop(L, 0);
  if (n < 0) {
    lbs_log(LBS_LOG_WARN, "%s", lbs_errmsg());
    return 0;
  }
  *steps = s->ss, *values = s->sv;
  return n;
}

/* its argument is a script's path: the example's is relative to the source tree */
const lbs_policy_ops lbs__policy_lua = {.abi = LBS_POLICY_ABI,
                                        .name = "lua",
                                        .usage = "lua:FILE.lua[:ARGS]",
                                        .init = init,
                                        .decide = decide,
                                        .fini = fini,
                                        .series = series,
                                        .example = "lua:examples/policies/adaptive.lua:0.15:5:20",
                                        .flags = LBS_POLICY_SCRIPT};
