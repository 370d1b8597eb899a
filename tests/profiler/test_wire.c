/* test_wire.c - the profiler's transports: rings (wrap-around, full, order) and frames
 * (partial input, checksums, versions). */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "prof_int.h"

static prof_shm *ring_shm(uint64_t cap) {
  size_t hdr = sizeof(prof_shm) + sizeof(prof_ring);
  prof_shm *s = aligned_alloc(64, (hdr + cap + 63) / 64 * 64);
  memset(s, 0, hdr);
  s->nlocal = 1, s->ring[0].cap = cap, s->ring[0].off = hdr;
  return s;
}

Test(ring, records_come_out_in_order_across_the_wrap) {
  prof_shm *s = ring_shm(96);
  lbs_buf b = {0};
  uint32_t type;
  int next = 0;
  for (int k = 0; k < 200; k++) {
    char msg[40];
    int len = 1 + k % 37; /* lengths that do not divide the ring */
    memset(msg, 'a' + k % 26, (size_t)len);
    while (!lbs__ring_write(s, 0, (uint32_t)(k + 1), msg, (size_t)len / 2, msg + len / 2,
                            (size_t)(len - len / 2))) {
      cr_assert_eq(lbs__ring_read(s, 0, &type, &b), 1, "a full ring has something to read");
      int want = 1 + next % 37;
      cr_assert_eq(type, (uint32_t)(next + 1));
      cr_assert_eq(b.len, (size_t)want);
      for (int i = 0; i < want; i++) cr_assert_eq(b.data[i], 'a' + next % 26);
      next++;
    }
  }
  while (lbs__ring_read(s, 0, &type, &b) == 1) cr_assert_eq(type, (uint32_t)(++next));
  cr_assert_eq(next, 200);
  cr_assert_eq(lbs__ring_read(s, 0, &type, &b), 0, "empty");
  lbs_buf_free(&b);
  free(s);
}

Test(ring, a_record_that_cannot_fit_is_refused_whole) {
  prof_shm *s = ring_shm(64);
  char big[100] = {0};
  cr_assert_eq(lbs__ring_write(s, 0, 1, big, 57, NULL, 0), 0); /* 8 + 64 > 64 */
  cr_assert_eq(atomic_load(&s->ring[0].head), 0);
  cr_assert_eq(lbs__ring_write(s, 0, 1, big, 56, NULL, 0), 1);
  free(s);
}

Test(frame, round_trip_in_pieces) {
  lbs_buf f = {0};
  cr_assert_eq(lbs__frame_build(&f, FR_STEP, "hello ", 6, "world", 5), LBS_OK);
  cr_assert_eq(lbs__frame_build(&f, FR_END, "x", 1, NULL, 0), LBS_OK);
  frame_reader fr = {{0}, 0, NULL, NULL};
  uint16_t type;
  const uint8_t *p;
  uint32_t len;
  int got = 0;
  for (size_t i = 0; i < f.len; i++) { /* one byte at a time */
    lbs_buf_append(&fr.in, f.data + i, 1);
    int r;
    while ((r = lbs__frame_next(&fr, &type, &p, &len)) == 1) {
      if (got == 0)
        cr_assert(type == FR_STEP && len == 11 && !memcmp(p, "hello world", 11));
      else
        cr_assert(type == FR_END && len == 1 && p[0] == 'x');
      got++;
    }
    cr_assert_eq(r, 0);
  }
  cr_assert_eq(got, 2);
  lbs_buf_free(&f), lbs_buf_free(&fr.in);
}

static int parse(const lbs_buf *f) {
  frame_reader fr = {{0}, 0, NULL, NULL};
  lbs_buf_append(&fr.in, f->data, f->len);
  uint16_t type;
  const uint8_t *p;
  uint32_t len;
  int r = lbs__frame_next(&fr, &type, &p, &len);
  lbs_buf_free(&fr.in);
  return r;
}

Test(frame, damage_is_refused_with_a_reason) {
  lbs_buf f = {0};
  lbs__frame_build(&f, FR_HELLO, "payload", 7, NULL, 0);
  f.data[18] ^= 1; /* payload bit */
  cr_assert_eq(parse(&f), -1);
  cr_assert(strstr(lbs_errmsg(), "checksum"), "%s", lbs_errmsg());
  f.data[18] ^= 1, f.data[4] = 99; /* version */
  cr_assert_eq(parse(&f), -1);
  cr_assert(strstr(lbs_errmsg(), "protocol version 99"), "%s", lbs_errmsg());
  f.data[4] = LBSPROF_PROTO_VERSION, f.data[0] ^= 0xff; /* magic */
  cr_assert_eq(parse(&f), -1);
  cr_assert(strstr(lbs_errmsg(), "not an lbsprof frame"), "%s", lbs_errmsg());
  lbs_buf_free(&f);
}

Test(address, bad_addresses_are_named) {
  char a[64];
  cr_assert_eq(lbs__listen("http://x", a, sizeof a), -1);
  cr_assert(strstr(lbs_errmsg(), "unix:PATH or tcp:HOST:PORT"));
  cr_assert_eq(lbs__connect("unix:/nonexistent/dir/sock"), -1);
  cr_assert(strstr(lbs_errmsg(), "cannot connect to unix:/nonexistent/dir/sock"), "%s",
            lbs_errmsg());
  int fd = lbs__listen("tcp:127.0.0.1:0", a, sizeof a);
  cr_assert_geq(fd, 0, "%s", lbs_errmsg());
  cr_assert(strncmp(a, "tcp:127.0.0.1:", 14) == 0 && strcmp(a, "tcp:127.0.0.1:0"),
            "the chosen port: %s", a);
  int c = lbs__connect(a);
  cr_assert_geq(c, 0, "%s", lbs_errmsg());
  close(c), close(fd);
}

/* getaddrinfo alone takes 99999 as port 34463 (16 bits) and a service name as its port. */
Test(address, ports_are_read_strictly) {
  char a[64];
  cr_assert_eq(lbs__listen("tcp:127.0.0.1:99999", a, sizeof a), -1, "listened on %s", a);
  cr_assert_str_eq(lbs_errmsg(),
                   "'tcp:127.0.0.1:99999': port 99999 is not in 1..65535 (or 0: any free port)");
  const char *bad[] = {"tcp:127.0.0.1:http", "tcp:127.0.0.1:",    "tcp:127.0.0.1:-1",
                       "tcp:127.0.0.1: 80",  "tcp:127.0.0.1:80x", "tcp:127.0.0.1:+80"};
  for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
    cr_assert_eq(lbs__addr_check(bad[k], 1), LBS_INVAL, "%s taken", bad[k]);
    cr_assert(strstr(lbs_errmsg(), "is not in 1..65535"), "%s", lbs_errmsg());
  }
  cr_assert_eq(lbs__connect("tcp:127.0.0.1:0"), -1, "port 0 is no peer's");
  cr_assert_str_eq(lbs_errmsg(), "'tcp:127.0.0.1:0': port 0 is not in 1..65535");
  cr_assert_eq(lbs__resolve("tcp:127.0.0.1:65536", 0), LBS_INVAL);
  cr_assert_eq(lbs__addr_check("tcp:127.0.0.1:65535", 0), LBS_OK, "%s", lbs_errmsg());
  cr_assert_eq(lbs__addr_check("tcp:*:0", 1), LBS_OK, "%s", lbs_errmsg());
  cr_assert_eq(lbs__addr_check("unix:/tmp/s", 1), LBS_OK, "%s", lbs_errmsg());
  cr_assert_eq(lbs__addr_check("udp:x:1", 1), LBS_INVAL);
}
