/* elf_check.h - the check of a plug-in file before dlopen (plugin/elf_check.c): internal to the
 * loader, and to its unit test. */
#ifndef LBS_PLUGIN_ELF_CHECK_H
#define LBS_PLUGIN_ELF_CHECK_H

#include <stddef.h>

/* 0 when path is an ELF shared object of this machine whose segments and section headers lie
 * inside the file (dlopen then maps no page past its end); 1 when it cannot be opened or is not
 * a regular file, 2 when it is truncated or not a shared object: why (n bytes) says why. */
int lbs__plugin_elf_check(const char *path, char *why, size_t n);

#endif
