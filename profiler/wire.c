/* wire.c - the profiler's transports: shared-memory rings, socket frames, addresses. */
#include <errno.h>
#include <math.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "lbs_traces.h"
#include "prof_int.h"

/* ---------------------------------------------------------------- rings */

uint64_t lbs__ring_record_bytes(size_t len) { return 8 + ((len + 7) & ~(uint64_t)7); }

static void put(uint8_t *ring, uint64_t cap, uint64_t pos, const void *src, size_t n) {
  uint64_t at = pos % cap, first = cap - at < n ? cap - at : n;
  memcpy(ring + at, src, first);
  if (first < n) memcpy(ring, (const uint8_t *)src + first, n - first);
}

static void get(const uint8_t *ring, uint64_t cap, uint64_t pos, void *dst, size_t n) {
  uint64_t at = pos % cap, first = cap - at < n ? cap - at : n;
  memcpy(dst, ring + at, first);
  if (first < n) memcpy((uint8_t *)dst + first, ring, n - first);
}

int lbs__ring_write(prof_shm *shm, int r, uint32_t type, const void *a, size_t alen, const void *b,
                    size_t blen) {
  prof_ring *rg = &shm->ring[r];
  uint8_t *data = (uint8_t *)shm + rg->off;
  uint64_t need = lbs__ring_record_bytes(alen + blen);
  uint64_t head = atomic_load_explicit(&rg->head, memory_order_relaxed);
  uint64_t tail = atomic_load_explicit(&rg->tail, memory_order_acquire);
  if (rg->cap - (head - tail) < need) return 0;
  uint32_t hdr[2] = {type, (uint32_t)(alen + blen)};
  put(data, rg->cap, head, hdr, 8);
  if (alen) put(data, rg->cap, head + 8, a, alen);
  if (blen) put(data, rg->cap, head + 8 + alen, b, blen);
  atomic_store_explicit(&rg->head, head + need, memory_order_release);
  return 1;
}

int lbs__ring_read(prof_shm *shm, int r, uint32_t *type, lbs_buf *buf) {
  prof_ring *rg = &shm->ring[r];
  const uint8_t *data = (const uint8_t *)shm + rg->off;
  uint64_t tail = atomic_load_explicit(&rg->tail, memory_order_relaxed);
  uint64_t head = atomic_load_explicit(&rg->head, memory_order_acquire);
  if (head == tail) return 0;
  uint32_t hdr[2];
  get(data, rg->cap, tail, hdr, 8);
  buf->len = 0;
  if (lbs_buf_reserve(buf, hdr[1] + 1)) return -1;
  get(data, rg->cap, tail + 8, buf->data, hdr[1]);
  buf->len = hdr[1];
  *type = hdr[0];
  atomic_store_explicit(&rg->tail, tail + lbs__ring_record_bytes(hdr[1]), memory_order_release);
  return 1;
}

/* ---------------------------------------------------------------- frames */

lbs_err lbs__frame_build(lbs_buf *out, uint16_t type, const void *a, size_t alen, const void *b,
                         size_t blen) {
  uLong c = crc32(0L, Z_NULL, 0);
  if (alen) c = crc32(c, a, (uInt)alen);
  if (blen) c = crc32(c, b, (uInt)blen);
  uint32_t crc = (uint32_t)c;
  uint8_t h[16];
  uint32_t magic = LBSPROF_FRAME_MAGIC, len = (uint32_t)(alen + blen);
  uint16_t ver = LBSPROF_PROTO_VERSION;
  memcpy(h, &magic, 4), memcpy(h + 4, &ver, 2), memcpy(h + 6, &type, 2), memcpy(h + 8, &len, 4),
      memcpy(h + 12, &crc, 4);
  lbs_err e = lbs_buf_append(out, h, 16);
  if (!e && alen) e = lbs_buf_append(out, a, alen);
  if (!e && blen) e = lbs_buf_append(out, b, blen);
  return e;
}

lbs_err lbs__frame_send_raw(int fd, const void *buf, size_t n) {
  const uint8_t *p = buf;
  while (n) {
    ssize_t k = send(fd, p, n, MSG_NOSIGNAL);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return lbs_fail(LBS_IO, "send: %s", strerror(errno));
    p += k, n -= (size_t)k;
  }
  return LBS_OK;
}

lbs_err lbs__frame_send(int fd, uint16_t type, const void *a, size_t alen, const void *b,
                        size_t blen) {
  lbs_buf f = {0};
  lbs_err e = lbs__frame_build(&f, type, a, alen, b, blen);
  if (!e) e = lbs__frame_send_raw(fd, f.data, f.len);
  lbs_buf_free(&f);
  return e;
}

int lbs__frame_next(frame_reader *fr, uint16_t *type, const uint8_t **payload, uint32_t *len) {
  if (fr->consumed) { /* drop what was returned */
    memmove(fr->in.data, fr->in.data + fr->consumed, fr->in.len - fr->consumed);
    fr->in.len -= fr->consumed;
    fr->consumed = 0;
  }
  if (fr->in.len < 16) return 0;
  uint32_t magic, n, crc;
  uint16_t ver;
  memcpy(&magic, fr->in.data, 4), memcpy(&ver, fr->in.data + 4, 2),
      memcpy(type, fr->in.data + 6, 2);
  memcpy(&n, fr->in.data + 8, 4), memcpy(&crc, fr->in.data + 12, 4);
  if (magic != LBSPROF_FRAME_MAGIC)
    return lbs_fail(LBS_FORMAT, "not an lbsprof frame (magic %08x)", magic), -1;
  if (ver != LBSPROF_PROTO_VERSION)
    return lbs_fail(LBS_VERSION, "protocol version %u, this collector speaks %d", ver,
                    LBSPROF_PROTO_VERSION),
           -1;
  if (n > LBSPROF_FRAME_MAX) return lbs_fail(LBS_FORMAT, "a frame announcing %u bytes", n), -1;
  if (fr->check && fr->check(fr->ctx, *type, n)) return -1; /* before any of its payload is kept */
  if (fr->in.len < 16 + (size_t)n) return 0;
  if (lbs_crc32(fr->in.data + 16, n) != crc)
    return lbs_fail(LBS_CORRUPT, "frame checksum mismatch"), -1;
  *payload = fr->in.data + 16;
  *len = n;
  fr->consumed = 16 + (size_t)n;
  return 1;
}

/* ---------------------------------------------------------------- addresses */

/* "tcp:HOST:PORT" into host and port, the port a decimal number in 1..65535, or 0 (any free port)
 * where listening (passive): getaddrinfo alone would take a service name, and 99999 cut to 16 bits
 * (34463). LBS_INVAL naming the address and why. */
static lbs_err parse_tcp(const char *addr, int passive, char *host, size_t hl, char *port,
                         size_t pl) {
  const char *colon = strncmp(addr, "tcp:", 4) ? NULL : strrchr(addr + 4, ':');
  if (!colon || (size_t)(colon - addr - 4) >= hl || strlen(colon + 1) >= pl)
    return lbs_fail(LBS_INVAL, "address '%s' is not tcp:HOST:PORT", addr);
  int64_t n;
  if (lbs_parse_i64(colon + 1, passive ? 0 : 1, 65535, &n) || (colon[1] < '0' || colon[1] > '9'))
    return lbs_fail(LBS_INVAL, "'%s': port %s is not in 1..65535%s", addr,
                    colon[1] ? colon + 1 : "''", passive ? " (or 0: any free port)" : "");
  memcpy(host, addr + 4, (size_t)(colon - addr - 4));
  host[colon - addr - 4] = '\0';
  snprintf(port, pl, "%d", (int)n);
  return LBS_OK;
}

lbs_err lbs__addr_check(const char *addr, int passive) {
  char host[256], port[32];
  if (!strncmp(addr, "unix:", 5)) {
    if (strlen(addr + 5) >= sizeof(((struct sockaddr_un *)0)->sun_path) || !addr[5])
      return lbs_fail(LBS_INVAL, "'%s': the socket path is empty or too long", addr);
    return LBS_OK;
  }
  if (strncmp(addr, "tcp:", 4))
    return lbs_fail(LBS_INVAL, "address '%s' is not unix:PATH or tcp:HOST:PORT", addr);
  return parse_tcp(addr, passive, host, sizeof host, port, sizeof port);
}

/* What is at a unix socket path may go only when it is a stale socket of this user: a socket
 * file we own that nobody listens on (connect() is refused), left by a collector that was killed.
 * Its removal is said, so that a run reusing a dead one's path is not silent about it. Anything
 * else there is an error naming it. */
static lbs_err clear_stale_socket(const struct sockaddr_un *sa) {
  const char *path = sa->sun_path;
  struct stat sb;
  if (lstat(path, &sb))
    return errno == ENOENT ? LBS_OK : lbs_fail(LBS_IO, "%s: %s", path, strerror(errno));
  if (!S_ISSOCK(sb.st_mode))
    return lbs_fail(LBS_IO, "%s: exists and is not a socket; refusing to replace it", path);
  if (sb.st_uid != geteuid())
    return lbs_fail(LBS_IO, "%s: a socket of another user (uid %d); refusing to replace it", path,
                    (int)sb.st_uid);
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) return lbs_fail(LBS_IO, "%s: %s", path, strerror(errno));
  int rc = connect(fd, (const struct sockaddr *)sa, sizeof *sa), err = errno;
  close(fd);
  if (rc == 0 || err == EAGAIN || err == EINPROGRESS)
    return lbs_fail(LBS_IO, "%s: another process listens on this socket", path);
  if (err != ECONNREFUSED)
    return lbs_fail(LBS_IO, "%s: cannot tell whether it is in use: %s", path, strerror(err));
  if (unlink(path) && errno != ENOENT)
    return lbs_fail(LBS_IO, "%s: cannot remove the stale socket: %s", path, strerror(errno));
  lbs_log(LBS_LOG_WARN,
          "collect: warning: %s: a stale socket (nobody listens on it: its collector is gone); "
          "removed",
          path);
  return LBS_OK;
}

int lbs__listen(const char *addr, char *actual, size_t actual_len) {
  if (!strncmp(addr, "unix:", 5)) {
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    if (strlen(addr + 5) >= sizeof sa.sun_path)
      return lbs_fail(LBS_INVAL, "socket path too long: %s", addr + 5), -1;
    strcpy(sa.sun_path, addr + 5);
    if (clear_stale_socket(&sa)) return -1;
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    /* only this user may connect: the mode is set before listen(), so nobody connects in between */
    int bound = fd >= 0 && bind(fd, (struct sockaddr *)&sa, sizeof sa) == 0;
    if (!bound || chmod(sa.sun_path, 0600) || listen(fd, 64)) {
      lbs_fail(LBS_IO, "cannot listen on %s: %s", addr, strerror(errno));
      if (bound) unlink(sa.sun_path); /* the socket this call made */
      if (fd >= 0) close(fd);
      return -1;
    }
    snprintf(actual, actual_len, "%s", addr);
    return fd;
  }
  if (strncmp(addr, "tcp:", 4))
    return lbs_fail(LBS_INVAL, "address '%s' is not unix:PATH or tcp:HOST:PORT", addr), -1;
  char host[256], port[32];
  if (parse_tcp(addr, 1, host, sizeof host, port, sizeof port)) return -1;
  struct addrinfo hints = {.ai_family = AF_UNSPEC,
                           .ai_socktype = SOCK_STREAM,
                           .ai_flags = AI_PASSIVE},
                  *res;
  int gai = getaddrinfo(strcmp(host, "*") ? host : NULL, port, &hints, &res);
  if (gai)
    return lbs_fail(LBS_IO, "cannot resolve %s in %s: %s", host, addr, gai_strerror(gai)), -1;
  int fd = socket(res->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1;
  if (fd >= 0) setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (fd < 0 || bind(fd, res->ai_addr, res->ai_addrlen) || listen(fd, 64)) {
    lbs_fail(LBS_IO, "cannot listen on %s: %s", addr, strerror(errno));
    if (fd >= 0) close(fd);
    freeaddrinfo(res);
    return -1;
  }
  freeaddrinfo(res);
  struct sockaddr_storage ss;
  socklen_t sl = sizeof ss;
  getsockname(fd, (struct sockaddr *)&ss, &sl);
  int p = ss.ss_family == AF_INET ? ntohs(((struct sockaddr_in *)&ss)->sin_port)
                                  : ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
  snprintf(actual, actual_len, "tcp:%s:%d", host, p);
  return fd;
}

int lbs__connect(const char *addr) {
  int fd = -1;
  if (!strncmp(addr, "unix:", 5)) {
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    snprintf(sa.sun_path, sizeof sa.sun_path, "%s", addr + 5);
    fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof sa)) {
      lbs_fail(LBS_IO, "cannot connect to %s: %s", addr, strerror(errno));
      close(fd);
      return -1;
    }
    return fd;
  }
  char host[256], port[32];
  if (strncmp(addr, "tcp:", 4))
    return lbs_fail(LBS_INVAL, "address '%s' is not unix:PATH or tcp:HOST:PORT", addr), -1;
  if (parse_tcp(addr, 0, host, sizeof host, port, sizeof port)) return -1;
  struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM}, *res;
  int gai = getaddrinfo(host, port, &hints, &res);
  if (gai)
    return lbs_fail(LBS_IO, "cannot resolve %s in %s: %s", host, addr, gai_strerror(gai)), -1;
  fd = socket(res->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd >= 0 && connect(fd, res->ai_addr, res->ai_addrlen)) {
    lbs_fail(LBS_IO, "cannot connect to %s: %s", addr, strerror(errno));
    close(fd);
    fd = -1;
  }
  freeaddrinfo(res);
  return fd;
}

double lbs__now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

lbs_err lbs__resolve(const char *addr, int passive) {
  char host[256], port[32];
  lbs_err e = parse_tcp(addr, passive, host, sizeof host, port, sizeof port);
  if (e) return e;
  struct addrinfo hints = {.ai_family = AF_UNSPEC,
                           .ai_socktype = SOCK_STREAM,
                           .ai_flags = passive ? AI_PASSIVE : 0},
                  *res;
  int rc = getaddrinfo(passive && !strcmp(host, "*") ? NULL : host, port, &hints, &res);
  if (rc) return lbs_fail(LBS_IO, "cannot resolve %s in %s: %s", host, addr, gai_strerror(rc));
  freeaddrinfo(res);
  return LBS_OK;
}

/* ---------------------------------------------------------------- environment */

static const struct {
  const char *name;
  double dflt, lo, hi;
} env_vars[LBS_ENV_N] = {
    [LBS_ENV_RETRY_S] = {"LBSPROF_RETRY_S", 10, 0, 1e6},
    [LBS_ENV_BUFFER_MB] = {"LBSPROF_BUFFER_MB", 256, 0, 1 << 20},
    [LBS_ENV_PING_S] = {"LBSPROF_PING_S", 5, 0.01, 3600},
    [LBS_ENV_AUTH_TIMEOUT_S] = {"LBSPROF_AUTH_TIMEOUT_S", 5, 0.01, 3600},
    [LBS_ENV_CONN_IDLE_S] = {"LBSPROF_CONN_IDLE_S", 60, 0.1, 1e6},
    [LBS_ENV_COLLECT_CONN_MB] = {"LBSPROF_COLLECT_CONN_MB", 1024, 1, 1 << 20},
    [LBS_ENV_COLLECT_STEP_MB] = {"LBSPROF_COLLECT_STEP_MB", 16384, 1, 1 << 30},
    [LBS_ENV_COLLECT_IDLE_S] = {"LBSPROF_COLLECT_IDLE_S", 120, 0.1, 1e6},
};

lbs_err lbs__env_check(lbs__env_var first, lbs__env_var end) {
  double x;
  for (int v = first; v < (int)end; v++)
    if (lbs_env_f64(env_vars[v].name, env_vars[v].dflt, env_vars[v].lo, env_vars[v].hi, &x))
      return LBS_INVAL;
  return LBS_OK;
}

double lbs__env(lbs__env_var v) {
  double x;
  if (lbs_env_f64(env_vars[v].name, env_vars[v].dflt, env_vars[v].lo, env_vars[v].hi, &x))
    x = env_vars[v].dflt;
  return x;
}

lbs_bound lbs__bound_stage(lbs_bound whole, int stage) {
  switch (whole.kind) {
  /* sqrt(1 + eps) - 1 without the cancellation, a little under so the product stays <= 1 + eps */
  case LBS_BOUND_REL:
    return (lbs_bound){LBS_BOUND_REL, whole.eps / (sqrt(1 + whole.eps) + 1) * (1 - 1e-12)};
  case LBS_BOUND_ABS: return (lbs_bound){LBS_BOUND_ABS, whole.eps / 2};
  /* the store's range is of the agents' values, which may be wider by the first half */
  case LBS_BOUND_RANGE:
    return (lbs_bound){LBS_BOUND_RANGE,
                       stage == 0 ? whole.eps / 2 : whole.eps / 2 / (1 + whole.eps)};
  default: return whole;
  }
}
