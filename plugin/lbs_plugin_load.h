/* lbs_plugin_load.h - loading plug-ins (include/lbsim_plugin.h): a shared object's policies and
 * partitioners registered in lbsim's registries, for the lbsim command (--plugin,
 * LBSIM_PLUGIN_PATH) and for the tests that run the registries' contracts over a plug-in. */
#ifndef LBS_PLUGIN_LOAD_H
#define LBS_PLUGIN_LOAD_H

#include "lbs_core.h"

/* Loads the plug-in at path (a file; a name without '/' is in the current directory) and
 * registers what it adds. Loading one file again (by any path) does nothing. On failure the
 * message is "plugin PATH: why" (lbs_errmsg): LBS_IO when it cannot be opened or loaded,
 * LBS_INVAL when it is refused (not a plug-in, other ABIs, a name taken), LBS_NOMEM. The
 * plug-in stays loaded until the process exits: the registries point into it. Not
 * thread-safe. */
lbs_err lbs_plugin_load(const char *path);

#endif
