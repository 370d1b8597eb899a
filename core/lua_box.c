/* lua_box.c - the sandboxed Lua state of a user's script (lbs_lua.h). */
#include <errno.h>
#include <lauxlib.h>
#include <lualib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "lbs_lua.h"

#define HOOK_EVERY 1000 /* instructions between two budget checks */
#define DEFAULT_BUDGET 10000000LL
#define DEFAULT_MEMORY_MIB 256

struct lbs_lua {
  lua_State *L;
  char *kind, *path;
  void *user;
  long long budget, left; /* instructions per call, and left in this one */
  int every;              /* instructions between two hook calls */
  long long memory, used; /* bytes the state may hold, and holds */
  int refused;            /* the allocator refused memory during this call */
};

static int unsafe_flag;

void lbs_lua_set_unsafe(int on) { unsafe_flag = on; }

/* A boolean, not "anything but 0": LBSIM_LUA_UNSAFE=false must never open os and io. */
lbs_err lbs_lua_unsafe_from_env(int *on) {
  static const char *const yes[] = {"1", "yes", "true", "on"};
  static const char *const no[] = {"0", "no", "false", "off"};
  const char *v = getenv("LBSIM_LUA_UNSAFE");
  *on = 0;
  if (!v || !*v) return LBS_OK;
  for (int i = 0; i < 4; i++) {
    if (!strcasecmp(v, yes[i])) return *on = 1, LBS_OK;
    if (!strcasecmp(v, no[i])) return LBS_OK;
  }
  return lbs_fail(LBS_INVAL,
                  "LBSIM_LUA_UNSAFE: '%s': not a boolean (1, 0, yes, no, true, false, on, off)", v);
}

lua_State *lbs_lua_state(const lbs_lua *b) { return b->L; }
const char *lbs_lua_path(const lbs_lua *b) { return b->path; }
lbs_lua *lbs_lua_of(lua_State *L) { return *(lbs_lua **)lua_getextraspace(L); }
void *lbs_lua_user(lua_State *L) { return lbs_lua_of(L)->user; }

/* Lua shortens long chunk names to "...tail"; messages name the whole path again. */
static const char *full_path_msg(const lbs_lua *b, const char *msg, char *buf, size_t size) {
  const char *colon = strchr(msg, ':');
  size_t plen = strlen(b->path);
  if (strncmp(msg, "...", 3) || !colon) return msg;
  size_t tail = (size_t)(colon - msg) - 3;
  if (tail > plen || strncmp(b->path + plen - tail, msg + 3, tail)) return msg;
  snprintf(buf, size, "%s%s", b->path, colon);
  return buf;
}

lbs_err lbs_lua_fail(const lbs_lua *b, const char *msg, const char *suffix) {
  char buf[1024], mem[128];
  if (!msg) msg = "(error object is not a string)";
  if (!suffix) suffix = "";
  if (b->refused && !strcmp(msg, "not enough memory")) {
    snprintf(mem, sizeof mem, "ran past its memory limit of %lld MiB (LBSIM_LUA_MEMORY)",
             b->memory >> 20);
    msg = mem;
  }
  msg = full_path_msg(b, msg, buf, sizeof buf);
  size_t plen = strlen(b->path);
  if (strncmp(msg, b->path, plen) || msg[plen] != ':')
    return lbs_fail(LBS_INVAL, "%s lua:%s: %s%s", b->kind, b->path, msg, suffix);
  return lbs_fail(LBS_INVAL, "%s lua:%s%s", b->kind, msg, suffix);
}

/* realloc, refusing to hold more than b->memory bytes (Lua then raises "not enough memory") */
static void *limited_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
  lbs_lua *b = ud;
  if (!ptr) osize = 0; /* osize is then the object's type */
  if (nsize == 0) {
    free(ptr);
    b->used -= (long long)osize;
    return NULL;
  }
  if (nsize > osize && b->used + (long long)(nsize - osize) > b->memory) {
    b->refused = 1;
    return NULL;
  }
  void *p = realloc(ptr, nsize);
  if (p) b->used += (long long)nsize - (long long)osize;
  return p;
}

static void hook(lua_State *L, lua_Debug *ar) {
  (void)ar;
  lbs_lua *b = lbs_lua_of(L);
  if ((b->left -= b->every) > 0) return;
  lua_Debug here;
  if (lua_getstack(L, 0, &here) && lua_getinfo(L, "Sl", &here) && here.currentline > 0)
    lua_pushfstring(L, "%s:%d: ", here.short_src, here.currentline);
  else
    lua_pushliteral(L, "");
  lua_pushfstring(L, "ran past its budget of %I instructions per call (LBSIM_LUA_BUDGET)",
                  (lua_Integer)b->budget);
  lua_concat(L, 2);
  lua_error(L);
}

int lbs_lua_call(lbs_lua *b, int nargs, int nresults) {
  b->left = b->budget;
  b->refused = 0;
  lua_sethook(b->L, hook, LUA_MASKCOUNT, b->every);
  int rc = lua_pcall(b->L, nargs, nresults, 0);
  lua_sethook(b->L, NULL, 0, 0);
  return rc;
}

int lbs_lua_defined_at(lua_State *L) {
  lua_Debug ar;
  lua_pushvalue(L, -1);
  lua_getinfo(L, ">S", &ar);
  return ar.linedefined > 0 ? ar.linedefined : 0;
}

static void open_libs(lua_State *L, int unsafe) {
  if (unsafe) {
    luaL_openlibs(L);
  } else {
    static const luaL_Reg libs[] = {{LUA_GNAME, luaopen_base},
                                    {LUA_STRLIBNAME, luaopen_string},
                                    {LUA_TABLIBNAME, luaopen_table},
                                    {LUA_MATHLIBNAME, luaopen_math},
                                    {NULL, NULL}};
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

/* A whole number >= 1 (at most max) from the environment, or def when unset. */
static lbs_err env_count(const char *name, long long def, long long max, const char *unit,
                         long long *out) {
  const char *v = getenv(name);
  *out = def;
  if (!v || !*v) return LBS_OK;
  char *end;
  errno = 0;
  long long n = strtoll(v, &end, 10);
  if (*end || errno || n < 1 || n > max)
    return lbs_fail(LBS_INVAL, "%s: '%s' must be a whole number%s >= 1", name, v, unit);
  *out = n;
  return LBS_OK;
}

void lbs_lua_close(lbs_lua *b) {
  if (!b) return;
  if (b->L) lua_close(b->L);
  free(b->kind);
  free(b->path);
  free(b);
}

lbs_err lbs_lua_open(const char *kind, const char *path, void *user, lbs_lua **out) {
  *out = NULL;
  long long budget, mib;
  lbs_err e = env_count("LBSIM_LUA_BUDGET", DEFAULT_BUDGET, 1LL << 62, "", &budget);
  if (!e) e = env_count("LBSIM_LUA_MEMORY", DEFAULT_MEMORY_MIB, 1LL << 30, " of MiB", &mib);
  int env_unsafe;
  if (!e) e = lbs_lua_unsafe_from_env(&env_unsafe);
  if (e) return e;
  lbs_lua *b = calloc(1, sizeof *b);
  if (!b || !(b->kind = strdup(kind)) || !(b->path = strdup(path)) || !(b->L = luaL_newstate())) {
    lbs_lua_close(b);
    return lbs_fail(LBS_NOMEM, "%s lua:%s", kind, path);
  }
  b->user = user;
  b->budget = budget;
  b->every = budget < HOOK_EVERY ? (int)budget : HOOK_EVERY;
  b->memory = mib << 20;
  lua_State *L = b->L;
  lua_setallocf(L, limited_alloc, b); /* luaL_newstate's allocator is realloc/free too */
  *(lbs_lua **)lua_getextraspace(L) = b;
  open_libs(L, unsafe_flag || env_unsafe);
  struct stat st; /* a FIFO would block the read, a directory reads as nothing */
  if (stat(path, &st))
    e = lbs_fail(LBS_INVAL, "%s lua:%s: cannot open it: %s", kind, path, strerror(errno));
  else if (!S_ISREG(st.st_mode))
    e = lbs_fail(LBS_INVAL, "%s lua:%s: not a regular file", kind, path);
  else if (luaL_loadfilex(L, path, "t") != LUA_OK || lbs_lua_call(b, 0, 0) != LUA_OK)
    e = lbs_lua_fail(b, lua_tostring(L, -1), NULL);
  if (e) {
    lbs_lua_close(b);
    return e;
  }
  lua_settop(L, 0);
  *out = b;
  return LBS_OK;
}

lbs_err lbs_lua_open_script(const char *kind, const char *spec, const char *fn,
                            const char *signature, void *user, lbs_lua **out) {
  *out = NULL;
  if (!spec || !*spec || *spec == ':')
    return lbs_fail(LBS_INVAL, "needs a script: lua:FILE.lua[:ARGS]");
  const char *colon = strchr(spec, ':');
  char *path = strndup(spec, colon ? (size_t)(colon - spec) : strlen(spec));
  if (!path) return lbs_fail(LBS_NOMEM, "%s lua", kind);
  lbs_lua *b;
  lbs_err e = lbs_lua_open(kind, path, user, &b);
  free(path);
  if (e) return e;
  lua_State *L = b->L;
  if (lua_getglobal(L, fn) != LUA_TFUNCTION) {
    e = lbs_fail(LBS_INVAL, "%s lua:%s: defines no function %s", kind, b->path, signature);
  } else if (lua_getglobal(L, "init") == LUA_TFUNCTION) {
    if (colon)
      lua_pushstring(L, colon + 1);
    else
      lua_pushnil(L);
    if (lbs_lua_call(b, 1, 0) != LUA_OK) e = lbs_lua_fail(b, lua_tostring(L, -1), NULL);
  } else if (!lua_isnil(L, -1)) {
    e = lbs_fail(LBS_INVAL, "%s lua:%s: init is a %s, not a function", kind, b->path,
                 luaL_typename(L, -1));
  }
  lua_settop(L, 0);
  if (e) {
    lbs_lua_close(b);
    return e;
  }
  *out = b;
  return LBS_OK;
}
