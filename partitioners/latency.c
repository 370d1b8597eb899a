/* latency.c - MinEX's latency-tolerance functions by name (`[minex] latency = NAME[:ARGS]`):
 * the registry, the built-in none and overlap:F, and lua:FILE.lua[:ARGS].
 *
 * A Lua latency script defines latency(ipg, tot) returning QWgt (a finite number, ns), and
 * optionally init(args). tot is {p, pproc, comm, remap, qlen} (p 1-based; one table reused
 * from call to call: copy what you keep); ipg is {P, C, cluster, proc, connect, relocate}
 * (1-based tables; cluster ids 1-based; connect[c][d] and relocate[c][d] in ns per unit of
 * weight, relocate = connect when the grid gives no other). It runs in lbs_lua.h's sandbox,
 * under its instruction budget per call and its memory limit. Its first failure is kept: later
 * calls return NaN without running it, MinEX stops, and the run fails with the script's
 * "minex latency lua:FILE:LINE: message (processor p)". */
#include <lauxlib.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lbs_config.h"
#include "lbs_lua.h"
#include "lbs_minex.h"
#include "lbs_registry.h"
#include "part_int.h"

/* ---------------------------------------------------------------- none and overlap */

static lbs_err none_create(void **user, const char *args) {
  *user = NULL;
  if (args) return lbs_fail(LBS_INVAL, "none takes no arguments");
  return LBS_OK;
}

static lbs_err overlap_create(void **user, const char *args) {
  char *end;
  double f = args ? strtod(args, &end) : NAN;
  if (!args || end == args || *end || !(f >= 0 && f <= 1))
    return lbs_fail(LBS_INVAL, "needs 0 <= F <= 1");
  double *u = malloc(sizeof *u);
  if (!u) return lbs_fail(LBS_NOMEM, "latency");
  *u = f;
  *user = u;
  return LBS_OK;
}

static const lbs_minex_latency_ops none_ops = {.abi = LBS_MINEX_LATENCY_ABI,
                                               .name = "none",
                                               .usage = "none",
                                               .example = "none",
                                               .create = none_create,
                                               .latency = lbs_minex_latency_none};
static const lbs_minex_latency_ops overlap_ops = {.abi = LBS_MINEX_LATENCY_ABI,
                                                  .name = "overlap",
                                                  .usage = "overlap:F (0 <= F <= 1)",
                                                  .example = "overlap:0.5",
                                                  .create = overlap_create,
                                                  .latency = lbs_minex_latency_overlap,
                                                  .destroy = free};

/* ---------------------------------------------------------------- lua */

typedef struct {
  lbs_lua *box;
  lua_State *L;
  const lbs_minex_ipg *ipg; /* the one the ipg table shows */
  int fn, ipg_ref, tot_ref; /* registry references: latency, the ipg table, the tot table */
  char *failed;             /* the first failure, kept */
} lualat;

static void lua_destroy(void *user) {
  lualat *s = user;
  if (!s) return;
  lbs_lua_close(s->box);
  free(s->failed);
  free(s);
}

static void keep_failure(lualat *s) {
  if (!s->failed) s->failed = strdup(lbs_errmsg());
}

static void push_doubles(lua_State *L, const double *v, int n) {
  lua_createtable(L, n, 0);
  for (int i = 0; i < n; i++) {
    lua_pushnumber(L, v[i]);
    lua_rawseti(L, -2, i + 1);
  }
}

/* connect or relocate as a 1-based C x C table of tables */
static void push_matrix(lua_State *L, const double *m, int C) {
  lua_createtable(L, C, 0);
  for (int c = 0; c < C; c++) {
    push_doubles(L, m + (size_t)c * C, C);
    lua_rawseti(L, -2, c + 1);
  }
}

static int build_ipg(lua_State *L) {
  const lbs_minex_ipg *ipg = lua_touserdata(L, 1);
  lua_createtable(L, 0, 6);
  lua_pushinteger(L, ipg->P);
  lua_setfield(L, -2, "P");
  lua_pushinteger(L, ipg->C);
  lua_setfield(L, -2, "C");
  lua_createtable(L, ipg->P, 0);
  for (int p = 0; p < ipg->P; p++) {
    lua_pushinteger(L, ipg->cluster[p] + 1);
    lua_rawseti(L, -2, p + 1);
  }
  lua_setfield(L, -2, "cluster");
  push_doubles(L, ipg->proc, ipg->P);
  lua_setfield(L, -2, "proc");
  push_matrix(L, ipg->connect, ipg->C);
  lua_setfield(L, -2, "connect");
  push_matrix(L, ipg->relocate ? ipg->relocate : ipg->connect, ipg->C);
  lua_setfield(L, -2, "relocate");
  return 1;
}

static lbs_err lua_begin(void *user, const lbs_minex_ipg *ipg) {
  lualat *s = user;
  lua_State *L = s->L;
  free(s->failed);
  s->failed = NULL;
  s->ipg = NULL;
  lua_settop(L, 0);
  lua_pushcfunction(L, build_ipg); /* protected: the memory limit may refuse it */
  lua_pushlightuserdata(L, (void *)ipg);
  if (lbs_lua_call(s->box, 1, 1) != LUA_OK) {
    lbs_err e = lbs_lua_fail(s->box, lua_tostring(L, -1), " (building ipg)");
    lua_settop(L, 0);
    return e;
  }
  lua_rawseti(L, LUA_REGISTRYINDEX, s->ipg_ref);
  s->ipg = ipg;
  return LBS_OK;
}

static void set_num(lua_State *L, const char *k, double v) {
  lua_pushnumber(L, v);
  lua_setfield(L, -2, k);
}

/* The failure msg of processor p's call, kept; NaN. */
static double latency_failed(lualat *s, const char *msg, int p) {
  char at[64];
  snprintf(at, sizeof at, " (processor %d)", p + 1);
  lbs_lua_fail(s->box, msg, at);
  keep_failure(s);
  return NAN;
}

/* Called for every processor a potential reassignment changes: nothing here but the call. */
static double lua_latency(void *user, const lbs_minex_ipg *ipg, const lbs_minex_tot *t) {
  lualat *s = user;
  lua_State *L = s->L;
  if (s->failed) return NAN;
  if (ipg != s->ipg && lua_begin(s, ipg)) return keep_failure(s), NAN;
  lua_settop(L, 0);
  lua_rawgeti(L, LUA_REGISTRYINDEX, s->fn);
  lua_rawgeti(L, LUA_REGISTRYINDEX, s->ipg_ref);
  lua_rawgeti(L, LUA_REGISTRYINDEX, s->tot_ref);
  lua_pushinteger(L, t->p + 1);
  lua_setfield(L, -2, "p");
  set_num(L, "pproc", t->pproc);
  set_num(L, "comm", t->comm);
  set_num(L, "remap", t->remap);
  lua_pushinteger(L, (lua_Integer)t->qlen);
  lua_setfield(L, -2, "qlen");
  if (lbs_lua_call(s->box, 2, 1) != LUA_OK) return latency_failed(s, lua_tostring(L, -1), t->p);
  int isnum;
  double q = lua_tonumberx(L, -1, &isnum);
  if (!isnum || !isfinite(q)) {
    char msg[256];
    lua_rawgeti(L, LUA_REGISTRYINDEX, s->fn);
    snprintf(msg, sizeof msg, "%s:%d: latency must return a finite number, not %s",
             lbs_lua_path(s->box), lbs_lua_defined_at(L),
             isnum ? lua_tostring(L, -2) : luaL_typename(L, -2));
    return latency_failed(s, msg, t->p);
  }
  return q;
}

static const char *lua_failed(void *user) { return ((lualat *)user)->failed; }

static lbs_err lua_create(void **user, const char *args) {
  lualat *s = calloc(1, sizeof *s);
  if (!s) return lbs_fail(LBS_NOMEM, "minex latency lua");
  lbs_err e =
      lbs_lua_open_script("minex latency", args, "latency", "latency(ipg, tot)", s, &s->box);
  if (e) {
    lua_destroy(s);
    return e;
  }
  lua_State *L = s->L = lbs_lua_state(s->box);
  lua_getglobal(L, "latency");
  s->fn = luaL_ref(L, LUA_REGISTRYINDEX);
  lua_pushboolean(L, 0); /* the ipg table's place until begin */
  s->ipg_ref = luaL_ref(L, LUA_REGISTRYINDEX);
  lua_createtable(L, 0, 5);
  s->tot_ref = luaL_ref(L, LUA_REGISTRYINDEX);
  *user = s;
  return LBS_OK;
}

/* its argument is a script's path: the example's is relative to the source tree */
static const lbs_minex_latency_ops lua_ops = {.abi = LBS_MINEX_LATENCY_ABI,
                                              .name = "lua",
                                              .usage = "lua:FILE.lua[:ARGS]",
                                              .example = "lua:examples/minex/overlap.lua:0.5",
                                              .create = lua_create,
                                              .latency = lua_latency,
                                              .begin = lua_begin,
                                              .failed = lua_failed,
                                              .destroy = lua_destroy,
                                              .flags = LBS_MINEX_LATENCY_SCRIPT};

/* ---------------------------------------------------------------- registry */

static const void *const builtin[] = {&none_ops, &overlap_ops, &lua_ops, NULL};

static const char *usage(const void *ops, char *buf, size_t size) {
  const lbs_minex_latency_ops *o = ops;
  const char *u = o->usage ? o->usage : o->name, *sp = strchr(u, ' ');
  snprintf(buf, size, "%.*s", sp ? (int)(sp - u) : (int)strlen(u), u); /* without its range */
  return buf;
}

static lbs_registry registry =
    LBS_REGISTRY("latency function", builtin, lbs_minex_latency_ops, name, usage);

lbs_err lbs_minex_latency_register(const lbs_minex_latency_ops *ops) {
  if (ops->abi != LBS_MINEX_LATENCY_ABI)
    return lbs_fail(LBS_INVAL, "cannot register latency function '%s': ABI %d, not %d",
                    ops->name ? ops->name : "?", ops->abi, LBS_MINEX_LATENCY_ABI);
  if (!ops->create || !ops->latency)
    return lbs_fail(LBS_INVAL, "cannot register latency function '%s': it lacks create or latency",
                    ops->name ? ops->name : "?");
  return lbs_registry_add(&registry, ops);
}

int lbs_minex_latency_count(void) { return lbs_registry_count(&registry); }
const lbs_minex_latency_ops *lbs_minex_latency_at(int i) { return lbs_registry_at(&registry, i); }

const char *lbs_minex_latency_known(void) {
  static char buf[1024];
  return lbs_registry_list(&registry, buf, sizeof buf);
}

struct lbs_minex_latency {
  const lbs_minex_latency_ops *ops;
  void *user;
  char *spec;
};

/* A script's NAME:REL[:ARGS] with REL taken from where's directory ("dir/grid.ini:12"), into a new
 * spec; any other spec as it is. */
static char *resolve(const lbs_minex_latency_ops *ops, const char *spec, const char *where) {
  const char *colon = strchr(spec, ':');
  if (!(ops->flags & LBS_MINEX_LATENCY_SCRIPT) || !where || !colon) return strdup(spec);
  size_t pre = (size_t)(colon + 1 - spec), n = strlen(spec) + strlen(where) + 8;
  char *out = malloc(n);
  if (!out) return NULL;
  memcpy(out, spec, pre);
  lbs_config_relpath(where, colon + 1, out + pre, n - pre);
  return out;
}

lbs_err lbs_minex_latency_create(const char *spec, const char *where, lbs_minex_latency **out) {
  *out = NULL;
  const lbs_minex_latency_ops *ops = lbs_registry_find_spec(&registry, spec);
  if (!ops) return lbs_registry_unknown(&registry, where, spec);
  lbs_minex_latency *l = calloc(1, sizeof *l);
  if (!l || !(l->spec = resolve(ops, spec, where))) {
    free(l);
    return lbs_fail(LBS_NOMEM, "latency function");
  }
  l->ops = ops;
  const char *colon = strchr(l->spec, ':');
  lbs_err e = ops->create(&l->user, colon ? colon + 1 : NULL);
  /* a message naming its script places itself; the others get the spec and the usage */
  if (e && strncmp(lbs_errmsg(), "minex latency ", 14))
    e = lbs_fail(e, "%s%slatency '%s': %s (expected %s)", where ? where : "", where ? ": " : "",
                 spec, lbs_errmsg(), ops->usage);
  if (e) {
    free(l->spec);
    free(l);
    return e;
  }
  *out = l;
  return LBS_OK;
}

lbs_err lbs_minex_latency_from_config(const lbs_config *cfg, lbs_minex_latency **out) {
  *out = NULL;
  const char *spec = "";
  double f = 0;
  lbs_err e = lbs_config_string(cfg, lbs__minex_spec, "minex", "", "latency", &spec);
  if (!e) e = lbs_config_double(cfg, lbs__minex_spec, "minex", "", "latency_tolerance", &f);
  if (e) return e;
  const char *where = lbs_config_where(cfg, "minex", "", "latency");
  char w[512];
  snprintf(w, sizeof w, "%s", where ? where : "[minex] latency");
  if (*spec && f > 0)
    return lbs_fail(LBS_INVAL, "%s: [minex] gives both latency and latency_tolerance; give one", w);
  if (f > 0) {
    char buf[64];
    snprintf(buf, sizeof buf, "overlap:%.17g", f);
    return lbs_minex_latency_create(buf, NULL, out);
  }
  if (!*spec || !strcmp(spec, "none")) return LBS_OK;
  return lbs_minex_latency_create(spec, w, out);
}

void lbs_minex_latency_apply(lbs_minex_latency *l, lbs_minex_opts *o) {
  if (l) o->latency = l->ops->latency, o->user = l->user;
}

lbs_err lbs_minex_latency_begin(lbs_minex_latency *l, const lbs_minex_ipg *ipg) {
  return l && l->ops->begin ? l->ops->begin(l->user, ipg) : LBS_OK;
}

lbs_err lbs_minex_latency_why(lbs_minex_latency *l, lbs_err e) {
  const char *why = l && l->ops->failed ? l->ops->failed(l->user) : NULL;
  return why ? lbs_fail(LBS_INVAL, "%s", why) : e;
}

const char *lbs_minex_latency_spec(const lbs_minex_latency *l) { return l ? l->spec : "none"; }

void lbs_minex_latency_destroy(lbs_minex_latency **l) {
  if (!l || !*l) return;
  if ((*l)->ops->destroy) (*l)->ops->destroy((*l)->user);
  free((*l)->spec);
  free(*l);
  *l = NULL;
}
