/* malloc_tune.c - glibc's heap set up for the large arrays of a trace's commands.
 *
 * A replay touches every page of its element arrays, halo lists and Zoltan's structures once,
 * and frees and allocates such arrays again per repartition. With glibc's defaults each array
 * over 128 KiB is a fresh mmap, faulted in 4 KiB pages and unmapped when freed: half the CPU of
 * a whole replay of 131,072 elements on 16 processors went to page faults (bench/RESULTS.md,
 * "Page faults of a whole run"). So, before the command starts: arrays up to 32 MiB (glibc's
 * most) come from the heap, memory freed at its top is kept for the next arrays, and the heap is
 * grown once by HEAP bytes of address space (nothing is touched, so nothing is used until a page
 * is) that the kernel may back with transparent huge pages (madvise: a 2 MiB page is one fault,
 * where the system's setting is 'madvise' or 'always'). What the heap needs beyond HEAP grows
 * as before, in 4 KiB pages.
 *
 * Left alone: sanitizer builds (their own allocator), runs under Valgrind (its own), a user's
 * GLIBC_TUNABLES naming malloc (they chose), and the commands that do not read traces. The
 * settings are this process's: nothing that lbsim starts inherits them. */
#include <malloc.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cli.h"

#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(memory_sanitizer)
#define LBS_OWN_ALLOCATOR 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define LBS_OWN_ALLOCATOR 1
#endif

#define MMAP_MAX (32u << 20) /* glibc's largest M_MMAP_THRESHOLD on 64 bits */
#define HEAP ((size_t)512 << 20)

#ifndef LBS_OWN_ALLOCATOR
/* The commands whose work is a trace's arrays; not the collector, a daemon that should give
 * back what it frees, nor the light ones. */
static int heavy(int argc, char **argv) {
  static const char *const cmds[] = {"trace",    "replay", "policy", "partition",
                                     "validate", "export", "sweep"};
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--plugin")) { /* lbsim's own options before the command */
      i++;
      continue;
    }
    if (argv[i][0] == '-') continue;
    for (size_t k = 0; k < sizeof cmds / sizeof *cmds; k++)
      if (!strcmp(argv[i], cmds[k])) return 1;
    return 0;
  }
  return 0;
}
#endif

void cli_malloc_tune(int argc, char **argv) {
#ifdef LBS_OWN_ALLOCATOR
  (void)argc, (void)argv;
#else
  const char *pre = getenv("LD_PRELOAD"), *tun = getenv("GLIBC_TUNABLES");
  if ((pre && strstr(pre, "vgpreload")) || (tun && strstr(tun, "glibc.malloc.")) ||
      !heavy(argc, argv))
    return;
  char *lo = sbrk(0);
  if (!mallopt(M_MMAP_THRESHOLD, (int)MMAP_MAX) || !mallopt(M_TRIM_THRESHOLD, INT32_MAX) ||
      !mallopt(M_TOP_PAD, (int)HEAP))
    return;
  /* One allocation that the heap cannot hold grows it by itself plus HEAP (M_TOP_PAD); freed,
   * it stays (M_TRIM_THRESHOLD). Then the new part of the heap is marked for huge pages.
   * (volatile: a malloc whose result goes unused may be left out by the compiler.) */
  void *volatile p = malloc(MMAP_MAX - (1u << 20)); /* more than the heap's top holds */
  char *hi = sbrk(0);
  free(p);
  mallopt(M_TOP_PAD, 1 << 20); /* later growths (past HEAP) in smaller steps */
  if (lo == (char *)-1 || hi == (char *)-1 || hi <= lo) return; /* no heap growth (mmapped) */
  uintptr_t pg = 2u << 20, a = ((uintptr_t)lo + pg - 1) & ~(pg - 1), b = (uintptr_t)hi & ~(pg - 1);
  if (b > a) madvise((void *)a, b - a, MADV_HUGEPAGE);
#endif
}
