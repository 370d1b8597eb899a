/* vt_jansson.c - the baseline of bench/vt_import.sh: jansson's own parse of DARMA vt LB data
 * files, nothing else. Each file is json_load_file()d (with JSON_REJECT_DUPLICATES, as the
 * import parses), its tasks counted over its phases, and the document freed; one file at a time,
 * as the import reads them. With --mem each file is read whole into memory first and parsed
 * with json_loadb, as the import did before it read a stream (jansson's json_load_file reads
 * its stream a character at a time). Prints the files, tasks, seconds and tasks per second
 * (plain JSON only: the import's brotli decoding is not jansson's work).
 * usage: bench_vt_jansson [--mem] FILE... */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The file's document, read whole then parsed (--mem); NULL with je set on failure. */
static json_t *load_mem(const char *path, json_error_t *je) {
  FILE *f = fopen(path, "rb");
  char *text = NULL;
  long n = -1;
  if (f && !fseek(f, 0, SEEK_END) && (n = ftell(f)) >= 0 && !fseek(f, 0, SEEK_SET) &&
      (text = malloc((size_t)n + 1)) && fread(text, 1, (size_t)n, f) != (size_t)n)
    n = -1;
  if (f) fclose(f);
  json_t *doc = text && n >= 0 ? json_loadb(text, (size_t)n, JSON_REJECT_DUPLICATES, je) : NULL;
  if (!text || n < 0) snprintf(je->text, sizeof je->text, "cannot read the file"), je->line = 0;
  free(text);
  return doc;
}

int main(int argc, char **argv) {
  int mem = argc > 1 && !strcmp(argv[1], "--mem");
  struct timespec a, b;
  clock_gettime(CLOCK_MONOTONIC, &a);
  long long tasks = 0;
  for (int i = 1 + mem; i < argc; i++) {
    json_error_t je;
    json_t *doc =
        mem ? load_mem(argv[i], &je) : json_load_file(argv[i], JSON_REJECT_DUPLICATES, &je);
    if (!doc) return fprintf(stderr, "%s: line %d: %s\n", argv[i], je.line, je.text), 1;
    json_t *ph;
    size_t k;
    json_array_foreach(json_object_get(doc, "phases"), k, ph) tasks +=
        (long long)json_array_size(json_object_get(ph, "tasks"));
    json_decref(doc);
  }
  clock_gettime(CLOCK_MONOTONIC, &b);
  double s = (double)(b.tv_sec - a.tv_sec) + 1e-9 * (double)(b.tv_nsec - a.tv_nsec);
  printf("jansson%s: %d files, %lld tasks, %.3f s, %.0f tasks/s\n",
         mem ? " (--mem, json_loadb)" : "", argc - 1 - mem, tasks, s,
         s > 0 ? (double)tasks / s : 0);
  return 0;
}
