/* vt_jansson.c - the baseline of bench/vt_import.sh: jansson's own parse of DARMA vt LB data
 * files, nothing else. Each file is json_load_file()d (with JSON_REJECT_DUPLICATES, as the
 * import parses), its tasks counted over its phases, and the document freed; one file at a time,
 * as the import reads them. Prints the files, tasks, seconds and tasks per second (plain JSON
 * only: the import's brotli decoding is not jansson's work).
 * usage: bench_vt_jansson FILE... */
#include <jansson.h>
#include <stdio.h>
#include <time.h>

int main(int argc, char **argv) {
  struct timespec a, b;
  clock_gettime(CLOCK_MONOTONIC, &a);
  long long tasks = 0;
  for (int i = 1; i < argc; i++) {
    json_error_t je;
    json_t *doc = json_load_file(argv[i], JSON_REJECT_DUPLICATES, &je), *ph;
    if (!doc) return fprintf(stderr, "%s: line %d: %s\n", argv[i], je.line, je.text), 1;
    size_t k;
    json_array_foreach(json_object_get(doc, "phases"), k, ph) tasks +=
        (long long)json_array_size(json_object_get(ph, "tasks"));
    json_decref(doc);
  }
  clock_gettime(CLOCK_MONOTONIC, &b);
  double s = (double)(b.tv_sec - a.tv_sec) + 1e-9 * (double)(b.tv_nsec - a.tv_nsec);
  printf("jansson: %d files, %lld tasks, %.3f s, %.0f tasks/s\n", argc - 1, tasks, s,
         s > 0 ? (double)tasks / s : 0);
  return 0;
}
