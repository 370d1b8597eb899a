/* elf_check.c - lbs__plugin_elf_check: a plug-in file checked before dlopen maps it.
 *
 * dlopen maps a shared object's segments from the file as its program headers place them; a
 * page of a segment past the end of a truncated file is no error then, but a SIGBUS when the
 * loader touches it, which kills lbsim before any command (--version included). So the file
 * must be an ELF shared object of this machine's class and byte order whose every segment and
 * section header table lie inside it. */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elf_check.h"

#if UINTPTR_MAX > 0xffffffffu
typedef Elf64_Ehdr ehdr_t;
typedef Elf64_Phdr phdr_t;
#define NATIVE_CLASS ELFCLASS64
#else
typedef Elf32_Ehdr ehdr_t;
typedef Elf32_Phdr phdr_t;
#define NATIVE_CLASS ELFCLASS32
#endif

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define NATIVE_DATA ELFDATA2LSB
#else
#define NATIVE_DATA ELFDATA2MSB
#endif

/* Reads size bytes at off exactly; 0, or -1 (a short read is a truncated file). */
static int read_at(int fd, void *buf, size_t size, uint64_t off) {
  size_t got = 0;
  while (got < size) {
    ssize_t n = pread(fd, (char *)buf + got, size - got, (off_t)(off + got));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return -1;
    got += (size_t)n;
  }
  return 0;
}

/* The header's own refusals, into why: 0 when it is a shared object of this machine whose
 * section header table lies inside the file's size bytes. */
static int check_header(const ehdr_t *h, uint64_t size, char *why, size_t n) {
  if (memcmp(h->e_ident, ELFMAG, SELFMAG)) return snprintf(why, n, "invalid ELF header"), -1;
  if (h->e_ident[EI_CLASS] != NATIVE_CLASS || h->e_ident[EI_DATA] != NATIVE_DATA)
    return snprintf(why, n, "an ELF file of another class or byte order than this lbsim's"), -1;
  if (h->e_type != ET_DYN) return snprintf(why, n, "ELF type %u, not ET_DYN", h->e_type), -1;
  if (h->e_phnum && h->e_phentsize != sizeof(phdr_t))
    return snprintf(why, n, "program headers of %u bytes, not %zu", h->e_phentsize, sizeof(phdr_t)),
           -1;
  /* e_shnum 0 with a table: the count is in section 0 (extended numbering), which must be there */
  uint64_t shn = h->e_shoff && !h->e_shnum ? 1 : h->e_shnum;
  uint64_t need = h->e_shoff ? (uint64_t)h->e_shoff + shn * h->e_shentsize : 0;
  if (h->e_shoff > size || need > size)
    return snprintf(why, n, "%llu bytes, its section headers end at byte %llu",
                    (unsigned long long)size,
                    (unsigned long long)(h->e_shoff > size ? h->e_shoff : need)),
           -1;
  uint64_t phend = (uint64_t)h->e_phoff + (uint64_t)h->e_phnum * sizeof(phdr_t);
  if (h->e_phnum && (h->e_phoff > size || phend > size))
    return snprintf(why, n, "%llu bytes, its program headers end at byte %llu",
                    (unsigned long long)size, (unsigned long long)phend),
           -1;
  return 0;
}

/* Every segment's bytes in the file ([p_offset, p_offset + p_filesz)) inside its size bytes. */
static int check_segments(int fd, const ehdr_t *h, uint64_t size, char *why, size_t n) {
  for (unsigned i = 0; i < h->e_phnum; i++) {
    phdr_t ph;
    if (read_at(fd, &ph, sizeof ph, (uint64_t)h->e_phoff + (uint64_t)i * sizeof ph))
      return snprintf(why, n, "its program header %u cannot be read", i), -1;
    uint64_t off = ph.p_offset, len = ph.p_filesz;
    if (off > size || len > size - off)
      return snprintf(why, n, "%llu bytes, its segment %u ends at byte %llu",
                      (unsigned long long)size, i, (unsigned long long)(off + len)),
             -1;
  }
  return 0;
}

int lbs__plugin_elf_check(const char *path, char *why, size_t n) {
  int fd = open(path, O_RDONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return snprintf(why, n, "%s", strerror(errno)), 1;
  struct stat st;
  ehdr_t h;
  int rc = 0;
  if (fstat(fd, &st)) {
    rc = 1;
    snprintf(why, n, "%s", strerror(errno));
  } else if (!S_ISREG(st.st_mode)) {
    rc = 1;
    snprintf(why, n, "not a regular file");
  } else if (read_at(fd, &h, sizeof h, 0)) {
    rc = 2;
    snprintf(why, n, "%llu bytes, shorter than an ELF header", (unsigned long long)st.st_size);
  } else if (check_header(&h, (uint64_t)st.st_size, why, n) ||
             check_segments(fd, &h, (uint64_t)st.st_size, why, n)) {
    rc = 2;
  }
  close(fd);
  return rc;
}
