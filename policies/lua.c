/* lua.c - lua:FILE.lua[:ARGS], a policy written in Lua 5.4.
 *
 * The script defines decide(view), returning a boolean (true: repartition before view.step),
 * and optionally init(args) (args: the text after "FILE.lua:", or nil), called once. `view`
 * carries lbs_loadview's fields under their C names: step, steps, since, procs, imbalance,
 * last_repart_ns, est_repart_ns (numbers; ns are integers), load_ns (a 1-based table of P
 * integers), step_ns, past_imbalance and past_excess_ns (read-only 1-based tables of the
 * past steps: entry i is step i-1), and view.eval_step(s) returning (load_ns, imbalance) of
 * step s (0-based) under the current assignment. eval_step is collective under MPI: every
 * rank's script must make the same calls, which a deterministic script does (math.random is
 * seeded with 0 on every rank; pairs() order over string keys is not guaranteed to match).
 *
 * Sandbox: only the base (without dofile, loadfile and load), string, table and math
 * libraries, unless LBSIM_LUA_UNSAFE=1 (every standard library). Each call (the chunk,
 * init, each decide) may run LBSIM_LUA_BUDGET virtual-machine instructions (10 million by
 * default), and the script's state may hold LBSIM_LUA_MEMORY MiB (256 by default). A syntax
 * error, a runtime error, a stack overflow, the budget, the memory limit and a non-boolean
 * return are LBS_INVAL "policy lua:FILE:LINE: message", the same on every rank. */
#include <errno.h>
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lbs_policy.h"

#define HOOK_EVERY 1000 /* instructions between two budget checks */
#define DEFAULT_BUDGET 10000000LL
#define DEFAULT_MEMORY_MIB 256

typedef struct {
  lua_State *L;
  char *path;
  long long budget, left; /* instructions per call, and left in this one */
  int every;              /* instructions between two hook calls */
  long long memory, used; /* bytes the state may hold, and holds (about: a few KB before the cap is set) */
  int refused;            /* the allocator refused memory during this call */
  const lbs_loadview *v;  /* the view of the decide under way, NULL between calls */
  lbs_err nav_err;        /* eval_step's own failure (not the script's) */
  int64_t *load;          /* P scratch for eval_step */
  int P;
  int hist;               /* registry reference: the table of the three history proxies */
} luapol;

/* Lua shortens long chunk names to "...tail"; messages name the whole path again. */
static const char *full_path_msg(const luapol *s, const char *msg, char *buf, size_t size) {
  const char *colon = strchr(msg, ':');
  size_t plen = strlen(s->path);
  if (strncmp(msg, "...", 3) || !colon) return msg;
  size_t tail = (size_t)(colon - msg) - 3;
  if (tail > plen || strncmp(s->path + plen - tail, msg + 3, tail)) return msg;
  snprintf(buf, size, "%s%s", s->path, colon);
  return buf;
}

/* The failure "policy lua:MSG" (MSG starts with the path, adding it when Lua did not). */
static lbs_err script_fail(luapol *s, const char *msg, int64_t step) {
  char buf[1024], at[64] = "";
  if (!msg) msg = "(error object is not a string)";
  char mem[128];
  if (s->refused && !strcmp(msg, "not enough memory")) {
    snprintf(mem, sizeof mem, "ran past its memory limit of %lld MiB (LBSIM_LUA_MEMORY)", s->memory >> 20);
    msg = mem;
  }
  msg = full_path_msg(s, msg, buf, sizeof buf);
  if (step >= 0) snprintf(at, sizeof at, " (deciding step %lld)", (long long)step);
  size_t plen = strlen(s->path);
  if (strncmp(msg, s->path, plen) || msg[plen] != ':')
    return lbs_fail(LBS_INVAL, "policy lua:%s: %s%s", s->path, msg, at);
  return lbs_fail(LBS_INVAL, "policy lua:%s%s", msg, at);
}

/* realloc, refusing to hold more than s->memory bytes (Lua then raises "not enough memory") */
static void *limited_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
  luapol *s = ud;
  if (!ptr) osize = 0; /* osize is then the object's type */
  if (nsize == 0) {
    free(ptr);
    s->used -= (long long)osize;
    return NULL;
  }
  if (nsize > osize && s->used + (long long)(nsize - osize) > s->memory) {
    s->refused = 1;
    return NULL;
  }
  void *p = realloc(ptr, nsize);
  if (p) s->used += (long long)nsize - (long long)osize;
  return p;
}

static void hook(lua_State *L, lua_Debug *ar) {
  (void)ar;
  luapol *s = *(luapol **)lua_getextraspace(L);
  if ((s->left -= s->every) > 0) return;
  lua_Debug here;
  if (lua_getstack(L, 0, &here) && lua_getinfo(L, "Sl", &here) && here.currentline > 0)
    lua_pushfstring(L, "%s:%d: ", here.short_src, here.currentline);
  else
    lua_pushliteral(L, "");
  lua_pushfstring(L, "ran past its budget of %I instructions per call (LBSIM_LUA_BUDGET)", (lua_Integer)s->budget);
  lua_concat(L, 2);
  lua_error(L);
}

/* Calls the function under nargs arguments with the budget; leaves nres results or the error. */
static int budgeted_call(luapol *s, int nargs, int nres) {
  s->left = s->budget;
  s->refused = 0;
  lua_sethook(s->L, hook, LUA_MASKCOUNT, s->every);
  int rc = lua_pcall(s->L, nargs, nres, 0);
  lua_sethook(s->L, NULL, 0, 0);
  return rc;
}

static luapol *self(lua_State *L) { return *(luapol **)lua_getextraspace(L); }

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
  if (st < 0 || st >= v->steps) return luaL_error(L, "eval_step: step %I outside 0..%I", st, (lua_Integer)v->steps - 1);
  if (s->P != v->procs) {
    free(s->load);
    s->P = 0;
    if (!(s->load = malloc((size_t)v->procs * sizeof *s->load))) return luaL_error(L, "eval_step: out of memory");
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

static int hist_set(lua_State *L) { return luaL_error(L, "the view's history tables are read-only"); }

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

static void open_libs(lua_State *L, int unsafe) {
  if (unsafe) {
    luaL_openlibs(L);
  } else {
    static const luaL_Reg libs[] = {
        {LUA_GNAME, luaopen_base}, {LUA_STRLIBNAME, luaopen_string}, {LUA_TABLIBNAME, luaopen_table},
        {LUA_MATHLIBNAME, luaopen_math}, {NULL, NULL}};
    for (const luaL_Reg *l = libs; l->name; l++) {
      luaL_requiref(L, l->name, l->func, 1);
      lua_pop(L, 1);
    }
    static const char *const off[] = {"dofile", "loadfile", "load", NULL};
    for (int i = 0; off[i]; i++) {
      lua_pushnil(L);
      lua_setglobal(L, off[i]);
    }
  }
  /* the same draws on every rank */
  lua_getglobal(L, "math");
  lua_getfield(L, -1, "randomseed");
  lua_pushinteger(L, 0);
  lua_call(L, 1, 0);
  lua_pop(L, 1);
}

static int env_flag(const char *name) {
  const char *e = getenv(name);
  return e && *e && strcmp(e, "0");
}

static void fini(void *state) {
  luapol *s = state;
  if (!s) return;
  if (s->L) lua_close(s->L);
  free(s->path);
  free(s->load);
  free(s);
}

static lbs_err init(void **state, const char *args) {
  if (!args || !*args || *args == ':') return lbs_fail(LBS_INVAL, "needs a script: lua:FILE.lua[:ARGS]");
  long long budget = DEFAULT_BUDGET;
  const char *b = getenv("LBSIM_LUA_BUDGET");
  if (b && *b) {
    char *end;
    budget = strtoll(b, &end, 10);
    if (*end || budget < 1) return lbs_fail(LBS_INVAL, "LBSIM_LUA_BUDGET: '%s' must be a whole number >= 1", b);
  }
  long long mib = DEFAULT_MEMORY_MIB;
  const char *m = getenv("LBSIM_LUA_MEMORY");
  if (m && *m) {
    char *end;
    mib = strtoll(m, &end, 10);
    if (*end || mib < 1 || mib > (1LL << 30))
      return lbs_fail(LBS_INVAL, "LBSIM_LUA_MEMORY: '%s' must be a whole number of MiB >= 1", m);
  }
  luapol *s = calloc(1, sizeof *s);
  if (!s) return lbs_fail(LBS_NOMEM, "policy lua");
  const char *colon = strchr(args, ':');
  size_t plen = colon ? (size_t)(colon - args) : strlen(args);
  s->budget = budget;
  s->every = budget < HOOK_EVERY ? (int)budget : HOOK_EVERY;
  s->memory = mib << 20;
  s->hist = LUA_NOREF;
  if (!(s->path = strndup(args, plen)) || !(s->L = luaL_newstate())) {
    fini(s);
    return lbs_fail(LBS_NOMEM, "policy lua");
  }
  lua_State *L = s->L;
  lua_setallocf(L, limited_alloc, s); /* luaL_newstate's allocator is realloc/free too */
  *(luapol **)lua_getextraspace(L) = s;
  open_libs(L, env_flag("LBSIM_LUA_UNSAFE"));
  s->hist = make_history(L);
  lbs_err e = LBS_OK;
  FILE *f = fopen(s->path, "r");
  if (!f) {
    e = lbs_fail(LBS_INVAL, "policy lua:%s: cannot open it: %s", s->path, strerror(errno));
  } else {
    fclose(f);
    /* text only: a precompiled chunk could break the sandbox */
    if (luaL_loadfilex(L, s->path, "t") != LUA_OK || budgeted_call(s, 0, 0) != LUA_OK) {
      e = script_fail(s, lua_tostring(L, -1), -1);
    } else if (lua_getglobal(L, "decide") != LUA_TFUNCTION) {
      e = lbs_fail(LBS_INVAL, "policy lua:%s: defines no function decide(view)", s->path);
    } else {
      lua_pop(L, 1);
      if (lua_getglobal(L, "init") == LUA_TFUNCTION) {
        if (colon)
          lua_pushstring(L, colon + 1);
        else
          lua_pushnil(L);
        if (budgeted_call(s, 1, 0) != LUA_OK) e = script_fail(s, lua_tostring(L, -1), -1);
      } else if (!lua_isnil(L, -1)) {
        e = lbs_fail(LBS_INVAL, "policy lua:%s: init is a %s, not a function", s->path, luaL_typename(L, -1));
      }
    }
  }
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
  if (!lua_isfunction(L, -1)) return lbs_fail(LBS_INVAL, "policy lua:%s: decide is no longer a function", s->path);
  lua_Debug ar;
  lua_pushvalue(L, -1);
  lua_getinfo(L, ">S", &ar);
  int defined = ar.linedefined;
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
  int rc = budgeted_call(s, 1, 1);
  s->v = NULL;
  if (s->nav_err) return lbs_fail(s->nav_err, "policy lua:%s: %s", s->path, rc == LUA_OK ? "eval_step failed" : lua_tostring(L, -1));
  if (rc != LUA_OK) return script_fail(s, lua_tostring(L, -1), v->step);
  if (!lua_isboolean(L, -1)) {
    char msg[256];
    snprintf(msg, sizeof msg, "%s:%d: decide must return a boolean, not a %s", s->path, defined, luaL_typename(L, -1));
    return script_fail(s, msg, v->step);
  }
  *rep = lua_toboolean(L, -1);
  lua_settop(L, 0);
  return LBS_OK;
}

/* no example: its argument is a script's path, which depends on where lbsim runs (the contract
 * test runs examples/policies/adaptive.lua by its full path) */
const lbs_policy_ops lbs__policy_lua = {
    LBS_POLICY_ABI, "lua", "lua:FILE.lua[:ARGS]", init, decide, fini, NULL, NULL};
