/* auth.c - who may talk to a collector: the run's secret, token files, and the challenge that
 * every connection answers before anything else (see prof_int.h).
 *
 * The secret is 32 bytes from getrandom(2). A connection proves it holds the secret with
 * HMAC-SHA256(secret, "lbsprof-auth-3" || nonce) over a fresh 32-byte nonce the collector sent
 * (OpenSSL's HMAC; the comparison is constant-time). The secret itself never crosses a socket. */
#include <errno.h>
#include <fcntl.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "prof_int.h"

static const char auth_label[] = "lbsprof-auth-3";

lbs_err lbs__random(void *buf, size_t n) {
  uint8_t *p = buf;
  while (n) {
    ssize_t k = getrandom(p, n, 0);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return lbs_fail(LBS_IO, "getrandom: %s", strerror(errno));
    p += k, n -= (size_t)k;
  }
  return LBS_OK;
}

void lbs__hex(const uint8_t *b, size_t n, char *out) {
  static const char d[] = "0123456789abcdef";
  for (size_t i = 0; i < n; i++) out[2 * i] = d[b[i] >> 4], out[2 * i + 1] = d[b[i] & 15];
  out[2 * n] = '\0';
}

static int nibble(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/* Exactly 2n hex digits (and nothing else) into n bytes; 0 or -1. */
int lbs__unhex(const char *s, size_t slen, uint8_t *out, size_t n) {
  if (slen != 2 * n) return -1;
  for (size_t i = 0; i < n; i++) {
    int hi = nibble(s[2 * i]), lo = nibble(s[2 * i + 1]);
    if (hi < 0 || lo < 0) return -1;
    out[i] = (uint8_t)(hi << 4 | lo);
  }
  return 0;
}

lbs_err lbs__token_read(const char *path, uint8_t secret[LBSPROF_SECRET_BYTES]) {
  int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return lbs_fail(LBS_IO, "token file %s: %s", path, strerror(errno));
  struct stat sb;
  lbs_err e = LBS_OK;
  char text[2 * LBSPROF_SECRET_BYTES + 3];
  ssize_t got = 0;
  if (fstat(fd, &sb))
    e = lbs_fail(LBS_IO, "token file %s: %s", path, strerror(errno));
  else if (!S_ISREG(sb.st_mode))
    e = lbs_fail(LBS_IO, "token file %s: not a regular file", path);
  else if (sb.st_uid != geteuid())
    e = lbs_fail(LBS_IO, "token file %s: owned by uid %d, not by this user (uid %d)", path,
                 (int)sb.st_uid, (int)geteuid());
  else if (sb.st_mode & 077)
    e = lbs_fail(LBS_IO,
                 "token file %s: mode %04o lets others read it; it must be 0600 (chmod 600 %s)",
                 path, (unsigned)(sb.st_mode & 07777), path);
  else {
    got = read(fd, text, sizeof text);
    if (got < 0) e = lbs_fail(LBS_IO, "token file %s: %s", path, strerror(errno));
  }
  close(fd);
  if (e) return e;
  size_t len = (size_t)got;
  while (len && (text[len - 1] == '\n' || text[len - 1] == '\r')) len--;
  if (lbs__unhex(text, len, secret, LBSPROF_SECRET_BYTES))
    return lbs_fail(
        LBS_FORMAT,
        "token file %s: not a token (%d hex digits expected, as 'lbsim collect' writes)", path,
        2 * LBSPROF_SECRET_BYTES);
  return LBS_OK;
}

lbs_err lbs__token_create(const char *path, uint8_t secret[LBSPROF_SECRET_BYTES]) {
  lbs_err e = lbs__random(secret, LBSPROF_SECRET_BYTES);
  if (e) return e;
  int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return lbs_fail(LBS_IO, "token file %s: %s", path, strerror(errno));
  char text[2 * LBSPROF_SECRET_BYTES + 2];
  lbs__hex(secret, LBSPROF_SECRET_BYTES, text);
  strcat(text, "\n");
  size_t n = strlen(text);
  /* O_CREAT applied the umask: make sure nobody else may read it, whatever the umask */
  if (fchmod(fd, 0600) || write(fd, text, n) != (ssize_t)n || fsync(fd)) {
    e = lbs_fail(LBS_IO, "token file %s: %s", path, strerror(errno));
    close(fd);
    unlink(path);
    return e;
  }
  if (close(fd)) return lbs_fail(LBS_IO, "token file %s: %s", path, strerror(errno));
  return LBS_OK;
}

lbs_err lbs__secret_from_env(uint8_t secret[LBSPROF_SECRET_BYTES]) {
  const char *v = getenv(LBSPROF_SECRET_ENV);
  if (!v)
    return lbs_fail(LBS_INVAL, "%s is not set (the run's secret, given by liblbsprof)",
                    LBSPROF_SECRET_ENV);
  if (lbs__unhex(v, strlen(v), secret, LBSPROF_SECRET_BYTES))
    return lbs_fail(LBS_INVAL, "%s is not %d hex digits", LBSPROF_SECRET_ENV,
                    2 * LBSPROF_SECRET_BYTES);
  return LBS_OK;
}

void lbs__auth_mac(const uint8_t secret[LBSPROF_SECRET_BYTES],
                   const uint8_t nonce[LBSPROF_NONCE_BYTES], uint8_t mac[LBSPROF_MAC_BYTES]) {
  uint8_t msg[sizeof auth_label - 1 + LBSPROF_NONCE_BYTES];
  memcpy(msg, auth_label, sizeof auth_label - 1);
  memcpy(msg + sizeof auth_label - 1, nonce, LBSPROF_NONCE_BYTES);
  unsigned len = LBSPROF_MAC_BYTES;
  HMAC(EVP_sha256(), secret, LBSPROF_SECRET_BYTES, msg, sizeof msg, mac, &len);
}

int lbs__auth_verify(const uint8_t secret[LBSPROF_SECRET_BYTES],
                     const uint8_t nonce[LBSPROF_NONCE_BYTES],
                     const uint8_t mac[LBSPROF_MAC_BYTES]) {
  uint8_t want[LBSPROF_MAC_BYTES];
  lbs__auth_mac(secret, nonce, want);
  int ok = CRYPTO_memcmp(want, mac, LBSPROF_MAC_BYTES) == 0;
  OPENSSL_cleanse(want, sizeof want);
  return ok;
}

/* Reads exactly n bytes (a whole frame) by the deadline. */
static lbs_err read_frame(int fd, uint8_t *in, size_t n, double timeout_s, const char *what) {
  size_t have = 0;
  double until = lbs__now_s() + timeout_s;
  while (have < n) {
    int ms = (int)((until - lbs__now_s()) * 1000);
    if (ms <= 0) return lbs_fail(LBS_IO, "the collector sent no %s within %.0f s", what, timeout_s);
    struct pollfd pf = {fd, POLLIN, 0};
    int r = poll(&pf, 1, ms);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return lbs_fail(LBS_IO, "poll: %s", strerror(errno));
    if (r == 0) continue;
    ssize_t k = recv(fd, in + have, n - have, 0);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0)
      return lbs_fail(LBS_IO, "the collector closed the connection before its %s%s%s", what,
                      k < 0 ? ": " : "", k < 0 ? strerror(errno) : "");
    have += (size_t)k;
  }
  return LBS_OK;
}

/* The one frame in in[0..n) if it is of type and len, else an error. */
static lbs_err one_frame(const uint8_t *in, size_t n, uint16_t want, uint32_t want_len,
                         uint8_t *payload) {
  frame_reader fr = {{0}, 0, NULL, NULL};
  lbs_buf_append(&fr.in, in, n);
  uint16_t type;
  const uint8_t *p;
  uint32_t len;
  int f = lbs__frame_next(&fr, &type, &p, &len);
  lbs_err e = LBS_OK;
  if (f != 1 || type != want || len != want_len)
    e = lbs_fail(LBS_FORMAT, "the peer is not an lbsprof collector of protocol %d%s%s",
                 LBSPROF_PROTO_VERSION, f < 0 ? ": " : "", f < 0 ? lbs_errmsg() : "");
  else
    memcpy(payload, p, len);
  lbs_buf_free(&fr.in);
  return e;
}

lbs_err lbs__auth_answer(int fd, const uint8_t secret[LBSPROF_SECRET_BYTES], int node,
                         double timeout_s) {
  uint8_t in[16 + LBSPROF_NONCE_BYTES], nonce[LBSPROF_NONCE_BYTES];
  lbs_err e = read_frame(fd, in, sizeof in, timeout_s, "challenge");
  if (!e) e = one_frame(in, sizeof in, FR_CHALLENGE, LBSPROF_NONCE_BYTES, nonce);
  if (e) return e;
  struct {
    int32_t node, pad;
    uint8_t mac[LBSPROF_MAC_BYTES];
  } a = {node, 0, {0}};
  lbs__auth_mac(secret, nonce, a.mac);
  return lbs__frame_send(fd, FR_AUTH, &a, sizeof a, NULL, 0);
}

lbs_err lbs__auth_verdict(int fd, double timeout_s) {
  uint8_t in[16 + 8];
  int32_t v[2];
  lbs_err e = read_frame(fd, in, sizeof in, timeout_s, "verdict");
  if (!e) e = one_frame(in, sizeof in, FR_VERDICT, 8, (uint8_t *)v);
  if (!e && v[0] != 1)
    e = lbs_fail(LBS_INVAL,
                 "the collector refused this run's token (is it another run's collector?)");
  return e;
}

lbs_err lbs__auth_client(int fd, const uint8_t secret[LBSPROF_SECRET_BYTES], int node,
                         double timeout_s) {
  lbs_err e = lbs__auth_answer(fd, secret, node, timeout_s);
  return e ? e : lbs__auth_verdict(fd, timeout_s);
}
