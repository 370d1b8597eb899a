/* bench_auth: what authentication costs a collector connection. Side by side in one run, over
 * a unix socket and TCP on 127.0.0.1, N connections each: the baseline (connect, accept, the
 * agent's hello into the collector) and the same with the challenge, its HMAC-SHA256 answer and
 * the collector's check first. Prints microseconds per connection and the ratio. Steps carry
 * no per-frame MAC, so authentication adds nothing per step. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "prof_int.h"

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* n connections to lfd at addr; auth: through the challenge. Returns seconds per connection. */
static double run(int lfd, const char *addr, int n, int auth, const lbs_buf *hello) {
  uint8_t secret[LBSPROF_SECRET_BYTES] = {7};
  lbs_coll *c = lbs__coll_create("/nonexistent/bench_auth.lbt", 0, secret);
  uint8_t buf[65536];
  double t0 = now();
  for (int i = 0; i < n; i++) {
    int cfd = lbs__connect(addr), sfd = accept(lfd, NULL, NULL);
    int id = lbs__coll_open(c, sfd, "bench", !auth);
    if (cfd < 0 || sfd < 0 || id < 0) return fprintf(stderr, "bench_auth: %s\n", lbs_errmsg()), -1;
    if (auth && lbs__auth_answer(cfd, secret, 0, 5))
      return fprintf(stderr, "bench_auth: %s\n", lbs_errmsg()), -1;
    if (send(cfd, hello->data, hello->len, 0) != (ssize_t)hello->len) return -1;
    size_t want = hello->len + (auth ? 16 + 8 + LBSPROF_MAC_BYTES : 0), got = 0;
    while (got < want) {
      ssize_t k = recv(sfd, buf, sizeof buf, 0);
      if (k <= 0) return -1;
      if (lbs__coll_input(c, id, buf, (size_t)k) != 0)
        return fprintf(stderr, "bench_auth: %s\n", lbs_errmsg()), -1;
      got += (size_t)k;
    }
    if (auth && lbs__auth_verdict(cfd, 5))
      return fprintf(stderr, "bench_auth: %s\n", lbs_errmsg()), -1;
    lbs__coll_close(c, id, NULL); /* the collector closes sfd */
    close(cfd);
  }
  double t = (now() - t0) / n;
  lbs__coll_free(c);
  return t;
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 2000;
  prof_meta m;
  memset(&m, 0, sizeof m);
  m.elements = 1000, m.nmetrics = 1, m.mesh_kind = 1, m.nodes = 1, m.ranks = 1, m.dims[0] = 1000,
  m.dims[1] = m.dims[2] = 1;
  int32_t h[2] = {0, 0};
  lbs_buf hello = {0};
  lbs__frame_build(&hello, FR_HELLO, h, 8, &m, sizeof m);
  char dir[] = "/tmp/lbs_bench_auth_XXXXXX", unix_addr[128], actual[256];
  if (!mkdtemp(dir)) return 1;
  snprintf(unix_addr, sizeof unix_addr, "unix:%s/c.sock", dir);
  const char *addrs[2] = {unix_addr, "tcp:127.0.0.1:0"};
  printf("bench_auth: %d connections each (connect, accept, hello into the collector)\n", n);
  printf("%-6s %14s %14s %10s %12s\n", "socket", "baseline us", "with auth us", "ratio",
         "added us");
  for (int a = 0; a < 2; a++) {
    int lfd = lbs__listen(addrs[a], actual, sizeof actual);
    if (lfd < 0) return fprintf(stderr, "bench_auth: %s\n", lbs_errmsg()), 1;
    double best0 = 1e9, best1 = 1e9;
    for (int rep = 0; rep < 3; rep++) { /* alternating, the best of three each */
      double t0 = run(lfd, actual, n, 0, &hello), t1 = run(lfd, actual, n, 1, &hello);
      if (t0 < 0 || t1 < 0) return 1;
      best0 = t0 < best0 ? t0 : best0, best1 = t1 < best1 ? t1 : best1;
    }
    printf("%-6s %14.1f %14.1f %10.2f %12.1f\n", a ? "tcp" : "unix", best0 * 1e6, best1 * 1e6,
           best1 / best0, (best1 - best0) * 1e6);
    close(lfd);
  }
  snprintf(actual, sizeof actual, "%s/c.sock", dir);
  unlink(actual), rmdir(dir);
  lbs_buf_free(&hello);
  return 0;
}
