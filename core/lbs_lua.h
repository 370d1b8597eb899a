/* lbs_lua.h - the sandboxed Lua 5.4 state that runs a user's script: a Lua policy
 * (policies/lua.c) and a MinEX latency-tolerance function (partitioners/latency.c).
 *
 * Sandbox: only the base (without dofile, loadfile and load), string, table and math
 * libraries, unless lbs_lua_set_unsafe(1) (lbsim --lua-unsafe) or LBSIM_LUA_UNSAFE (a boolean:
 * 1, yes, true, on) open every standard library. Only text chunks are loaded: a precompiled one
 * could break the sandbox. math.random is seeded with 0, so that every rank draws the same numbers.
 *
 * Limits: each call (the chunk, then each function lbs_lua_call runs) may run LBSIM_LUA_BUDGET
 * virtual-machine instructions (10 million by default), and the state may hold
 * LBSIM_LUA_MEMORY MiB (256 by default).
 *
 * Messages: lbs_lua_fail turns Lua's "FILE:LINE: message" into LBS_INVAL
 * "KIND lua:FILE:LINE: message[ SUFFIX]", naming the whole path where Lua shortened it, and the
 * limits by their variables. */
#ifndef LBS_LUA_H
#define LBS_LUA_H

#include <lua.h>

#include "lbs_core.h"

typedef struct lbs_lua lbs_lua;

/* 1: open every standard library to the scripts opened from now on (--lua-unsafe). */
void lbs_lua_set_unsafe(int on);
/* LBSIM_LUA_UNSAFE into *on: 1, yes, true, on (any case) 1; 0, no, false, off, empty or unset 0;
 * anything else LBS_INVAL "LBSIM_LUA_UNSAFE: 'v': not a boolean (...)", which lbs_lua_open
 * returns too. */
lbs_err lbs_lua_unsafe_from_env(int *on);

/* Opens a state, loads the script at path and runs its chunk under the budget. kind names the
 * user in messages ("policy", "minex latency"). user is what lbs_lua_user gives back. */
lbs_err lbs_lua_open(const char *kind, const char *path, void *user, lbs_lua **out);
void lbs_lua_close(lbs_lua *b); /* NULL-safe */
/* What every user's script goes through, from its spec "FILE.lua[:ARGS]" (args may be NULL):
 * lbs_lua_open on FILE, the global function fn required ("KIND lua:FILE: defines no function
 * SIGNATURE"), then init(ARGS, or nil) called when the script defines it. */
lbs_err lbs_lua_open_script(const char *kind, const char *spec, const char *fn,
                            const char *signature, void *user, lbs_lua **out);

lua_State *lbs_lua_state(const lbs_lua *b);
const char *lbs_lua_path(const lbs_lua *b);
/* The box, and its user, of a state (in a C function the script calls). */
lbs_lua *lbs_lua_of(lua_State *L);
void *lbs_lua_user(lua_State *L);

/* lua_pcall under the budget and the memory limit: LUA_OK, or an error code with the message on
 * the stack. */
int lbs_lua_call(lbs_lua *b, int nargs, int nresults);

/* LBS_INVAL "KIND lua:PATH:LINE: msg[ suffix]" from Lua's message msg (NULL: a non-string error
 * object), adding the path where Lua's message has none. */
lbs_err lbs_lua_fail(const lbs_lua *b, const char *msg, const char *suffix);

/* The line where the function on top of the stack is defined (0 for a C function). */
int lbs_lua_defined_at(lua_State *L);

#endif
