/* brotli_file.h - vt's brotli-compressed LB data files written by the vt tests (test_vt.c,
 * test_vt_stream.c). */
#ifndef LBS_TESTS_BROTLI_FILE_H
#define LBS_TESTS_BROTLI_FILE_H
#include <brotli/encode.h>
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* text brotli-compressed into path (or only its first keep bytes, keep >= 0; then extra after,
 * unless NULL) */
static inline void write_brotli(const char *path, const char *text, long keep, const char *extra) {
  size_t n = strlen(text), cap = BrotliEncoderMaxCompressedSize(n);
  uint8_t *buf = malloc(cap);
  cr_assert(BrotliEncoderCompress(BROTLI_DEFAULT_QUALITY, BROTLI_DEFAULT_WINDOW,
                                  BROTLI_DEFAULT_MODE, n, (const uint8_t *)text, &cap, buf));
  FILE *f = fopen(path, "wb");
  cr_assert_not_null(f);
  fwrite(buf, 1, keep >= 0 && (size_t)keep < cap ? (size_t)keep : cap, f);
  if (extra) fputs(extra, f);
  fclose(f);
  free(buf);
}
#endif
