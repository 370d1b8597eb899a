/* prof_int.h - private to profiler/: the shared-memory rings between ranks and their node
 * agent, the records in them, and the framed socket protocol between agents and collector.
 *
 * Shared memory (one segment per node, created by the node's first rank): a header, then one
 * single-producer single-consumer byte ring per local rank. A record is {u32 type, u32 len}
 * then len bytes, padded to 8; it may wrap around the ring's end. The rank publishes head
 * after writing (release); the agent publishes tail after reading.
 *
 * Socket frames (agent -> collector): {u32 magic 'LBSF', u16 version, u16 type, u32 len,
 * u32 crc32(payload)} then the payload. A frame with a bad magic, version or checksum ends
 * that connection with a message naming the agent's node.
 *
 * Who may talk (auth.c): the collector opens every connection with FR_CHALLENGE (a fresh
 * 32-byte nonce); the first frame back must be FR_AUTH {i32 node, pad, HMAC-SHA256(secret,
 * "lbsprof-auth-3" || nonce)}, else the connection is dropped and logged before anything it
 * sent is read; FR_VERDICT {i32 1 accepted / 0 refused, pad} tells the agent which. The run's
 * secret (32 random bytes) reaches the agents and rank 0's collector in LBSPROF_SECRET (hex, in
 * their environment only), and a stand-alone `lbsim collect` keeps it in a token file of mode 0600
 * (LBSPROF_TOKEN_FILE / opts.token_file for the application). Then: HELLO, MESH, STEP..., END, with
 * PING while an agent has nothing to send, and REMAP before the first step of a new layout. Every
 * frame's announced length is checked against what its type may carry in the connection's state
 * before a byte of its payload is buffered. */
#ifndef LBS_PROF_INT_H
#define LBS_PROF_INT_H

#include <stdatomic.h>
#include <stdint.h>

#include "lbs_core.h"

#define LBSPROF_SHM_MAGIC 0x4c425350u   /* 'LBSP' */
#define LBSPROF_FRAME_MAGIC 0x4c425346u /* 'LBSF' */
#define LBSPROF_PROTO_VERSION 9
#define LBSPROF_APP_META 1024 /* bytes of application keys in the run description */
#define LBSPROF_MAX_METRICS 16
#define LBSPROF_MAX_EVENTS 8 /* LBS_TRACE_MAX_EVENTS */
#define LBSPROF_MAX_PHASES 8 /* phases of time_ns (lbsprof_phase_register) */

/* ring records */
enum { REC_META = 1, REC_MESH = 2, REC_STEP = 3, REC_END = 4, REC_REMAP = 5 };
/* frames */
enum {
  FR_HELLO = 1,
  FR_MESH = 2,
  FR_STEP = 3,
  FR_END = 4,
  FR_CHALLENGE = 5,
  FR_AUTH = 6,
  FR_PING = 7,
  FR_VERDICT = 8,
  FR_REMAP = 9
};
/* agent states in the segment header */
enum { AGENT_STARTING = 0, AGENT_RUNNING = 1, AGENT_GONE = 2 };

typedef struct {
  _Atomic uint64_t head; /* bytes written by the rank */
  _Atomic uint64_t tail; /* bytes consumed by the agent */
  _Atomic int32_t pid;   /* the rank's process id (0 until it attaches) */
  _Atomic int32_t done;  /* 1 after the rank's END record */
  uint64_t cap;          /* ring bytes, a multiple of 8 */
  uint64_t off;          /* offset of the ring's bytes from the segment start */
} prof_ring;

typedef struct {
  uint32_t magic, version;
  int32_t nlocal;              /* local ranks, one ring each */
  _Atomic int32_t agent_pid;   /* the agent's process id */
  _Atomic int32_t agent_state; /* AGENT_* */
  uint64_t bytes;              /* segment size */
  prof_ring ring[];            /* nlocal */
} prof_shm;

/* What every rank, agent and the collector agree on (REC_META / FR_HELLO payload). */
typedef struct {
  int64_t elements;     /* E over all ranks */
  int32_t nmetrics;     /* M */
  int32_t codec;        /* lbs_codec of the agents and the store */
  double eps;           /* the bound's eps (the whole path) */
  int32_t mesh_kind;    /* 1: structured box, 2: elements by id */
  int32_t dim;          /* coordinate dimensions (elements), 0 if none */
  int32_t has_adj;      /* adjacency given (elements) */
  int32_t sample_every; /* sampling interval */
  int32_t on_full;      /* LBSPROF_WAIT / LBSPROF_DROP */
  int32_t nodes;        /* node agents */
  int32_t ranks;        /* MPI ranks */
  int32_t bound_kind;   /* lbs_bound_kind of the whole path */
  int64_t adj_entries;  /* adjacency entries over all ranks (elements with has_adj) */
  int64_t dims[3];      /* structured global size */
  char name[LBSPROF_MAX_METRICS][32];
  char unit[LBSPROF_MAX_METRICS][16];
  char app[LBSPROF_APP_META]; /* the application's own keys (lbsprof_meta): "key=value\n" lines */
  int32_t nevents;            /* K: the application's events (lbsprof_event_register) */
  uint32_t phases; /* bit m: metric m ("time_ns.NAME") is a phase of time_ns, in metric order */
  char event[LBSPROF_MAX_EVENTS][32];
  int32_t
      adj_weights; /* 1: each rank's MESH record carries a weight per arc (lbsprof_mesh_weighted) */
  int32_t edge_steps; /* 1: edge_weight = stored@step, steps may carry arc weights (below) */
} prof_meta;

/* REC_STEP payload header; then M x n doubles (metric-major, local element order), then the
 * rank's K event values (seconds accumulated since its previous sampled step's end), then
 * (nweights >= 0) the weights of its elements' arcs at the step (lbsprof_edge_weights: element
 * by element in local order, each element's arcs in the mesh's order); nweights is -1 when the
 * rank gave none at the step.
 *
 * A node's FR_STEP: {i32 node, M, i64 step, app, n}, per metric {i32 codec, pad, u64 len} and the
 * encoded values of the node's n elements, then (K > 0) K doubles per local rank in local rank
 * order: the collector puts them at the MPI rank of the rank's MESH part; then, with
 * prof_meta.edge_steps, an i64 nweights per local rank (-1: none at this step) and the weights of
 * those that gave some, concatenated in local rank order (sent as they are: they are exact). */
typedef struct {
  int64_t step, app_step, n;
  int32_t nmetrics, nevents;
  int64_t nweights; /* arc weights after the events, or -1 */
} prof_step_hdr;

/* A rank's MESH record: {i64 n, dim, has_adj, rank (its rank in the profiler's communicator)},
 * gid[n], coords[n * dim], deg[n] (has_adj), adj[sum deg], adjw[sum deg] (doubles, with
 * prof_meta.adj_weights: each arc's weight, finite and >= 0). A node's FR_MESH: {i32 node,
 * nranks}, then per local rank {u64 len} and its record.
 *
 * Migration (lbsprof_remap): REC_REMAP {i64 from_step, n, gid[n]}: the rank's elements from its
 * step from_step on (every rank remaps at the same step). A rank's records come in order (STEP s,
 * REMAP from s + 1, STEP s + 1, ...), so the agent keeps each rank's layouts until the node's
 * steps before from_step have gone, then sends FR_REMAP {i32 node, nranks, i64 from_step,
 * n[nranks]} and the node's ids concatenated in local rank order, before the first step frame of
 * the new layout. An agent that reconnects sends the last REMAP it sent after its MESH again: the
 * collector keeps the newest from_step per node and ignores an older or equal one. */
typedef struct {
  int32_t node, nranks;
  int64_t from_step;
} prof_remap_hdr;

/* REC_END / FR_END payload */
typedef struct {
  int64_t dropped; /* samples (steps) dropped because a ring was full */
  int64_t steps;   /* sampled steps sent */
  int32_t lost;    /* FR_END: ranks that died before their END */
  int32_t pad;
} prof_end;

/* Ring operations. write: 1 written, 0 no room (nothing written). read: record length into
 * *len and type into *type with the payload copied into buf (grown as needed), 1, or 0 when
 * empty. */
int lbs__ring_write(prof_shm *shm, int r, uint32_t type, const void *a, size_t alen, const void *b,
                    size_t blen);
int lbs__ring_read(prof_shm *shm, int r, uint32_t *type, lbs_buf *buf);
/* Bytes a record of len payload bytes takes in a ring. */
uint64_t lbs__ring_record_bytes(size_t len);

/* Frames over a socket fd. send: LBS_IO on failure. The reader keeps partial input in buf:
 * frame_next returns 1 with a frame (type, payload pointer into buf, len) and consumes it on
 * the next call, 0 when more bytes are needed, or -1 (message set) on a bad frame. */
lbs_err lbs__frame_send(int fd, uint16_t type, const void *a, size_t alen, const void *b,
                        size_t blen);
lbs_err lbs__frame_send_raw(int fd, const void *frames, size_t n); /* already built */
lbs_err lbs__frame_build(lbs_buf *out, uint16_t type, const void *a, size_t alen, const void *b,
                         size_t blen);
typedef struct {
  lbs_buf in;      /* received bytes */
  size_t consumed; /* bytes of in already returned */
  /* when set: may a frame of this type announce len bytes here? 0, or -1 with the message set;
   * asked as soon as a header is in, before its payload is waited for */
  int (*check)(void *ctx, uint16_t type, uint32_t len);
  void *ctx;
} frame_reader;
int lbs__frame_next(frame_reader *fr, uint16_t *type, const uint8_t **payload, uint32_t *len);

/* The most a frame may announce, whatever its type. */
#define LBSPROF_FRAME_MAX (1u << 31)

/* Authentication (auth.c). */
#define LBSPROF_SECRET_BYTES 32
#define LBSPROF_NONCE_BYTES 32
#define LBSPROF_MAC_BYTES 32
#define LBSPROF_SECRET_ENV "LBSPROF_SECRET"
lbs_err lbs__random(void *buf, size_t n);             /* getrandom(2) */
void lbs__hex(const uint8_t *b, size_t n, char *out); /* out: 2n + 1 chars */
int lbs__unhex(const char *s, size_t slen, uint8_t *out, size_t n);
/* A token file: a regular file of this user, mode 0600 (no group or other bits), holding the
 * secret as 64 hex digits (a newline may follow). Errors name the file and the reason. */
lbs_err lbs__token_read(const char *path, uint8_t secret[LBSPROF_SECRET_BYTES]);
/* A new random secret written to a new file (O_EXCL, no symlink followed) of mode 0600. */
lbs_err lbs__token_create(const char *path, uint8_t secret[LBSPROF_SECRET_BYTES]);
lbs_err lbs__secret_from_env(uint8_t secret[LBSPROF_SECRET_BYTES]);
void lbs__auth_mac(const uint8_t secret[LBSPROF_SECRET_BYTES],
                   const uint8_t nonce[LBSPROF_NONCE_BYTES], uint8_t mac[LBSPROF_MAC_BYTES]);
int lbs__auth_verify(
    const uint8_t secret[LBSPROF_SECRET_BYTES], const uint8_t nonce[LBSPROF_NONCE_BYTES],
    const uint8_t mac[LBSPROF_MAC_BYTES]); /* 1 when mac is right (constant time) */
/* The agent's side on a fresh connection: waits (up to timeout_s) for the challenge and answers
 * it; then waits for the collector's verdict (LBS_INVAL when it refused the token). client: both.
 */
lbs_err lbs__auth_answer(int fd, const uint8_t secret[LBSPROF_SECRET_BYTES], int node,
                         double timeout_s);
lbs_err lbs__auth_verdict(int fd, double timeout_s);
lbs_err lbs__auth_client(int fd, const uint8_t secret[LBSPROF_SECRET_BYTES], int node,
                         double timeout_s);

/* Addresses: "unix:/path" or "tcp:host:port". listen: a bound listening socket and the
 * address to give clients (for tcp port 0, the chosen port); a unix path may hold only a
 * stale socket (nobody listening), which is replaced: a file, directory or live socket there
 * is an error naming it. connect: a connected socket, or -1 with the reason in lbs_errmsg(). */
int lbs__listen(const char *addr, char *actual, size_t actual_len);
int lbs__connect(const char *addr);
/* CLOCK_MONOTONIC in seconds (agent, collector, handshake timeouts). */
double lbs__now_s(void);
/* Does tcp:HOST:PORT resolve (passive: as an address to listen on, "*" allowed)? */
lbs_err lbs__resolve(const char *addr, int passive);
/* Is addr unix:PATH or tcp:HOST:PORT with PORT in 1..65535 (0 too where passive), without
 * resolving it? LBS_INVAL "'ADDR': port P is not in 1..65535" and the like. */
lbs_err lbs__addr_check(const char *addr, int passive);

/* The profiler's numbers from the environment (README.md), each with its default and range: the
 * agents' first, then the collector's. */
typedef enum {
  LBS_ENV_RETRY_S,         /* how long an agent retries a lost collector */
  LBS_ENV_BUFFER_MB,       /* what it buffers meanwhile */
  LBS_ENV_PING_S,          /* an idle agent's heartbeat */
  LBS_ENV_AUTH_TIMEOUT_S,  /* the collector: a connection's time to authenticate */
  LBS_ENV_CONN_IDLE_S,     /* an agent's silence before its connection is dropped */
  LBS_ENV_COLLECT_CONN_MB, /* one connection's buffer */
  LBS_ENV_COLLECT_STEP_MB, /* the steps being assembled */
  LBS_ENV_COLLECT_IDLE_S,  /* no agent at all before the collector gives up */
  LBS_ENV_N
} lbs__env_var;
#define LBS_ENV_FIRST_COLLECTOR LBS_ENV_AUTH_TIMEOUT_S
/* Checks the variables [first, end): LBS_INVAL "NAME='VALUE' is not a number in [LO, HI]" for
 * the first that is set and bad. liblbsprof's init and `lbsim collect` check before they start
 * anything, and each agent and collector at its start. */
lbs_err lbs__env_check(lbs__env_var first, lbs__env_var end);
/* Variable v's value: its default when unset (or bad, which the check above has refused). */
double lbs__env(lbs__env_var v);

/* The bound each of the two lossy stages (0: the node agents, 1: the store) works to, so that
 * the stored values meet `whole` against the measured ones: rel:eps as sqrt(1 + eps) - 1 at
 * each (the factors multiply), abs and range as halves (the store's range is of the agents'
 * values, up to 1 + eps wider). */
#include "lbs_traces.h"
_Static_assert(LBSPROF_MAX_EVENTS == LBS_TRACE_MAX_EVENTS, "the events a trace stores");
lbs_bound lbs__bound_stage(lbs_bound whole, int stage);

/* The agent (shm_fd: the node's segment, inherited; label: for messages) and the collector
 * (lbsprof-agent's two modes, and `lbsim collect`). The secret is the run's. */
int lbs__agent_main(int shm_fd, const char *label, int node, const char *collector,
                    const char *compact, const uint8_t secret[LBSPROF_SECRET_BYTES]);
int lbs__collect_main(int listen_fd, const char *addr, const char *out_path, int nodes,
                      const uint8_t secret[LBSPROF_SECRET_BYTES]);

/* The collector's state machine, apart from its sockets (collector.c; the fuzzer drives it). */
typedef struct lbs_coll lbs_coll;
lbs_coll *lbs__coll_create(const char *out_path, int nodes,
                           const uint8_t secret[LBSPROF_SECRET_BYTES]);
/* A new connection (fd may be -1: nothing is sent). trusted skips the challenge (tests and
 * fuzzing only). Returns its id (>= 0), or -1 when it was refused. */
int lbs__coll_open(lbs_coll *c, int fd, const char *peer, int trusted);
/* Bytes received on connection id: 0 go on, 1 it ended cleanly, -1 it was dropped (logged).
 * Either way a connection that ended is closed and forgotten. */
int lbs__coll_input(lbs_coll *c, int id, const uint8_t *data, size_t n);
void lbs__coll_close(lbs_coll *c, int id, const char *why); /* why: NULL for a plain EOF */
/* Writes what is complete, the run's metadata, closes the trace; the exit status (0 whole). */
int lbs__coll_finish(lbs_coll *c);
void lbs__coll_free(lbs_coll *c);

#endif
