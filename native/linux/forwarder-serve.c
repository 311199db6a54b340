/*
 * forwarder-serve.c — the forwarder's serving loop (forwarder.c starts it,
 * already confined): each connection to 127.0.0.1:PORT in the sandbox is
 * paired with a new connection to the proxy's unix socket, and bytes move
 * between the two, never parsed.
 *
 * Why splice: a read/write relay copies every byte into user space and out
 * again; this one hands pages from socket to pipe to socket inside the
 * kernel (splice(2)), one pipe per direction — the proxy's own relay
 * (relay.c) is the model. Measured in docs/network.md ("Forwarder").
 *
 * Shape: one edge-triggered epoll(7) set for every pair (poll(2) rebuilt
 * and scanned 1 + 2 × MAX_PAIRS entries on each wake-up). A pair is pumped
 * until nothing can move or it used its budget of rounds; then the others
 * run first (no pair starves the rest).
 *
 * The traffic is the sandboxed command's, so untrusted:
 *  - bounded memory: MAX_PAIRS pairs, each with two pipes (their pages
 *    capped by F_SETPIPE_SZ, pipe(7)) or two COPY_BYTES buffers, allocated
 *    per pair (the slots are small; a profile's `limits.as` counts buffers,
 *    not pipe pages); a direction reads only while its pipe or buffer has
 *    room, so a reader that does not read stops the writer (TCP
 *    back-pressure), nothing queues here. The pipe pages count against the
 *    uid's pipe-user-pages-soft, which the command could use up with pipes
 *    of its own just as well;
 *  - bounded descriptors: the profile's RLIMIT_NOFILE holds here too (the
 *    forwarder is forked after the rlimits step). A pair is 2 sockets and up
 *    to 4 pipe ends, counted in fds_open. Pipes never cost a connection: a
 *    direction gets one only while the limit has room, and a new connection
 *    that finds none takes it from idle pipes, whose directions then copy
 *    through a buffer (as the forwarder always did: slower, never refused
 *    for it) — so as many connections fit as before splice. pipe2(2)
 *    failing otherwise (ENFILE, pipe-user-pages-hard) means a buffer too;
 *  - a connection that cannot be served at all (MAX_PAIRS open, no
 *    descriptor left, the proxy unreachable) is accepted and reset at once:
 *    its client fails with ECONNRESET instead of waiting, and no other pair
 *    waits for it;
 *  - end follows end: EOF on one side → shutdown(SHUT_WR) of the other once
 *    everything read before it was delivered (HTTP/1.0 bodies and `curl
 *    -T` uploads end that way); an error or reset on either side closes
 *    both with a reset (SO_LINGER 0), so a cut transfer never ends in the
 *    FIN of a complete one.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include "launcher.h"

#define MAX_PAIRS 512     /* concurrent connections; one more is reset at once */
/* Bytes per pipe (F_SETPIPE_SZ). 256 KiB moves a loopback download in a
 * quarter of the splice calls of the default 64 KiB. Past the user's
 * pipe-user-pages-soft (64 MiB by default, shared with the proxy's relay
 * and everything else of that uid) new pipes get 2 pages and the resize is
 * refused (pipe(7)): correct, slower — not an error. */
#define PIPE_BYTES (256 * 1024)
#define COPY_BYTES 65536  /* a direction without a pipe: the buffer it copies through */
#define ROUNDS 16         /* rounds of one direction per wake-up before the pair yields */
#define EVENTS 64
#define ACCEPTS 16        /* connections taken per wake-up: the listener is level-triggered, the rest come next turn */
#define PAUSE_MS 50       /* accept(2) failing for want of memory: retry after this, instead of spinning */

/* One direction: src → pipe (or buffer) → dst. */
struct way {
  int src, dst;     /* the pair's sockets, not owned here */
  int pipe[2];      /* src → pipe[1] … pipe[0] → dst; -1 when copying */
  char *buf;        /* copying: the unsent bytes are buf[off, off + held) */
  size_t off, held; /* held: bytes read from src, not yet sent to dst */
  size_t room;      /* the pipe's or the buffer's size */
  int eof, shut;    /* src read end of file; dst shut down for writing */
};

struct pair {
  int sock[2];       /* 0: the client in the sandbox, 1: the proxy's unix socket; -1: a free slot */
  struct way way[2]; /* 0: client → proxy, 1: proxy → client */
  int again;         /* stopped by its budget while still moving: served next turn without waiting */
};

static struct pair pairs[MAX_PAIRS];
static int epfd = -1;
/* A descriptor held in reserve: with none left (EMFILE), closing it makes
 * room to accept a pending connection and reset it — else the
 * level-triggered listener would wake the loop for it forever. */
static int spare = -1;
static int paused;           /* the listener is out of the epoll set until the next wake-up (at most PAUSE_MS) */
/* Descriptors this process holds (after forwarder.c's keep_only, only the
 * listener is open when serving starts), and RLIMIT_NOFILE: the kernel
 * gives the lowest free number (open(2)), so count ≤ limit is numbers < limit. */
static int fds_open, fd_limit;
static int n_again;          /* pairs with `again` set */

static int would_block(void) { return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR; }

/* ---------- one direction ---------- */

/* src → pipe or buffer, only into room it has: the bound on what a pair
 * holds. 1 when it moved (or saw end of file), 0 when blocked, -1 on error.
 * A pipe's EAGAIN is an empty socket, or slots filled by partial pages: the
 * pipe is then not empty, and the drain that empties it runs this again. */
static int fill(struct way *w) {
  ssize_t n;
  if (w->pipe[1] >= 0) {
    n = splice(w->src, NULL, w->pipe[1], NULL, w->room - w->held, SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
  } else {
    w->off = 0; /* only called with the buffer empty */
    n = read(w->src, w->buf, w->room);
  }
  if (n < 0) return would_block() ? 0 : -1;
  if (n == 0) w->eof = 1;
  w->held += (size_t)n;
  return 1;
}

/* Pipe or buffer → dst; 1 when some moved, 0 when blocked, -1 on error
 * (EPIPE, ECONNRESET: the other side will take no more). A closed peer
 * would raise SIGPIPE: the forwarder ignores it, and send says so too. */
static int drain(struct way *w) {
  ssize_t n;
  if (w->pipe[0] >= 0) n = splice(w->pipe[0], NULL, w->dst, NULL, w->held, SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
  else n = send(w->dst, w->buf + w->off, w->held, MSG_NOSIGNAL | MSG_DONTWAIT);
  if (n < 0) return would_block() ? 0 : -1;
  if (w->pipe[0] < 0) w->off += (size_t)n;
  w->held -= (size_t)n;
  return n > 0;
}

/* Room to read into: a pipe while not full, a buffer only once emptied. */
static int can_fill(const struct way *w) {
  return !w->eof && (w->pipe[1] >= 0 ? w->held < w->room : w->held == 0);
}

/* One round of each step that can run; 1 when anything moved, -1 on error. */
static int pump_round(struct way *w) {
  int moved = 0, r;
  if (w->held > 0 && (r = drain(w)) != 0) {
    if (r < 0) return -1;
    moved = 1;
  }
  if (can_fill(w) && (r = fill(w)) != 0) {
    if (r < 0) return -1;
    moved = 1;
  }
  return moved;
}

/* Move until nothing can (each step saw EAGAIN: edge-triggered epoll wakes
 * us at the next change) or the budget is used (1: serve again without
 * waiting). Once src ended and everything before its end was delivered,
 * dst is shut for writing — ENOTCONN: the peer is already gone, which the
 * other direction finds out. 0, 1, or -1 on error. */
static int pump(struct way *w) {
  int r = 1, rounds = 0;
  while (r > 0 && rounds++ < ROUNDS) r = pump_round(w);
  if (r < 0) return -1;
  if (w->eof && !w->shut && w->held == 0) {
    if (shutdown(w->dst, SHUT_WR) < 0 && errno != ENOTCONN) return -1;
    w->shut = 1;
  }
  return r > 0 && rounds > ROUNDS;
}

/* A pipe while the descriptor limit has room for one; -1 otherwise. */
static int way_pipe(struct way *w) {
  if (fds_open + 2 > fd_limit || pipe2(w->pipe, O_CLOEXEC | O_NONBLOCK) < 0) return -1;
  fds_open += 2;
  int size = fcntl(w->pipe[1], F_SETPIPE_SZ, PIPE_BYTES);
  if (size < 0) size = fcntl(w->pipe[1], F_GETPIPE_SZ);
  w->room = size > 0 ? (size_t)size : 4096;
  return 0;
}

static void way_unpipe(struct way *w) {
  close(w->pipe[0]);
  close(w->pipe[1]);
  w->pipe[0] = w->pipe[1] = -1;
  fds_open -= 2;
}

/* Copy through a buffer from now on. Only for a direction with nothing in
 * its pipe (held == 0): bytes in a pipe would be lost with it. */
static int way_buffer(struct way *w) {
  if (!(w->buf = malloc(COPY_BYTES))) return -1;
  if (w->pipe[0] >= 0) way_unpipe(w);
  w->room = COPY_BYTES;
  w->off = 0;
  return 0;
}

/* A pipe, else a buffer; -1 only when neither (out of memory): the pair is refused. */
static int way_open(struct way *w, int src, int dst) {
  w->src = src;
  w->dst = dst;
  w->pipe[0] = w->pipe[1] = -1;
  return way_pipe(w) == 0 ? 0 : way_buffer(w);
}

static void way_close(struct way *w) {
  if (w->pipe[0] >= 0) way_unpipe(w);
  free(w->buf);
  *w = (struct way){.pipe = {-1, -1}};
}

/* Room for `need` more descriptors (a new connection's sockets), taken
 * from pipes that hold nothing right now: their directions copy from then
 * on. Under the limit, connections come before speed. Busy pipes are left
 * alone; if that is not enough, accept or connect fails with EMFILE and the
 * connection is reset. */
static void make_room(int need) {
  for (int i = 0; i < 2 * MAX_PAIRS && fds_open + need > fd_limit; i++) {
    struct pair *p = &pairs[i / 2];
    struct way *w = &p->way[i % 2];
    if (p->sock[0] >= 0 && w->pipe[0] >= 0 && w->held == 0 && way_buffer(w) < 0) return;
  }
}

/* ---------- a pair ---------- */

static void set_again(struct pair *p, int again) {
  n_again += again - p->again;
  p->again = again;
}

/* Close a descriptor with a reset: SO_LINGER 0 sends RST instead of FIN
 * (socket(7)), so the peer cannot take a cut stream for a complete one. */
static void close_reset(int fd) {
  setsockopt(fd, SOL_SOCKET, SO_LINGER, &(struct linger){1, 0}, sizeof(struct linger));
  close(fd);
}

/* close(2) also takes each socket out of the epoll set: no other process
 * holds a duplicate (the forwarder never forks), epoll(7). Events of this
 * batch may still name the slot: pair_event checks it is in use, and
 * anything served on a slot reused meanwhile is one EAGAIN. */
static void pair_close(struct pair *p, int reset) {
  for (int i = 0; i < 2; i++) {
    if (p->sock[i] >= 0) reset ? close_reset(p->sock[i]) : (void)close(p->sock[i]);
    p->sock[i] = -1;
    way_close(&p->way[i]);
  }
  fds_open -= 2;
  set_again(p, 0);
}

/* Both directions; close once both have ended, or at the first error. */
static void pair_serve(struct pair *p) {
  int again = 0;
  for (int i = 0; i < 2; i++) {
    int r = pump(&p->way[i]);
    if (r < 0) return pair_close(p, 1);
    again |= r;
  }
  if (p->way[0].shut && p->way[1].shut) return pair_close(p, 0);
  set_again(p, again);
}

static int socket_error(int fd) {
  int err = 0;
  socklen_t len = sizeof err;
  return getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) < 0 ? errno : err;
}

static void pair_event(struct pair *p, uint32_t events) {
  if (p->sock[0] < 0) return; /* closed earlier in this batch */
  /* A reset or another error on either side closes both. */
  if ((events & EPOLLERR) && (socket_error(p->sock[0]) || socket_error(p->sock[1]))) return pair_close(p, 1);
  pair_serve(p);
}

/* Edge-triggered: one event per change, so each pump runs to EAGAIN.
 * Failing (ENOMEM, fs.epoll.max_user_watches): the pair is refused. */
static int pair_watch(struct pair *p) {
  for (int i = 0; i < 2; i++) {
    struct epoll_event ev = {.events = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET, .data.ptr = p};
    if (epoll_ctl(epfd, EPOLL_CTL_ADD, p->sock[i], &ev) < 0) return -1;
  }
  return 0;
}

static void pair_start(struct pair *p, int a, int b) {
  p->sock[0] = a;
  p->sock[1] = b;
  fds_open += 2;
  if (way_open(&p->way[0], a, b) < 0 || way_open(&p->way[1], b, a) < 0 || pair_watch(p) < 0) return pair_close(p, 1);
  pair_serve(p); /* bytes that came before the ADD */
}

/* ---------- new connections ---------- */

static int connect_proxy(const char *path) {
  struct sockaddr_un sun = {.sun_family = AF_UNIX};
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  strncpy(sun.sun_path, path, sizeof sun.sun_path - 1);
  /* Blocking connect: it waits only while the proxy's backlog (1024) is
   * full; then non-blocking, as every pump call must be. */
  if (connect(fd, (struct sockaddr *)&sun, sizeof sun) < 0 || fcntl(fd, F_SETFL, O_NONBLOCK) < 0) {
    close(fd);
    return -1;
  }
  return fd;
}

static struct pair *free_slot(void) {
  for (int i = 0; i < MAX_PAIRS; i++)
    if (pairs[i].sock[0] < 0) return &pairs[i];
  return NULL;
}

/* No descriptor left: take the pending connection on the spare's number and
 * reset it. 0 when done, -1 when there is no spare to give up. */
static int refuse_with_spare(int lfd) {
  if (spare < 0) return -1;
  close(spare);
  int a = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
  if (a >= 0) close_reset(a);
  spare = fcntl(lfd, F_DUPFD_CLOEXEC, 0);
  if (spare < 0) fds_open--; /* not expected: the number was just freed */
  return 0;
}

/* The listener out of the set (events 0: only errors are reported) until the next wake-up, or back in. */
static void pause_listener(int lfd, int on) {
  struct epoll_event ev = {.events = on ? 0 : EPOLLIN, .data.ptr = NULL};
  if (epoll_ctl(epfd, EPOLL_CTL_MOD, lfd, &ev) == 0) paused = on;
}

/* accept(2) failed: go on (the connection went away), refuse one, or pause. 1: go on. */
static int accept_failed(int lfd) {
  if (errno == ECONNABORTED || errno == EINTR) return 1;
  if (would_block()) return 0;
  if ((errno == EMFILE || errno == ENFILE) && refuse_with_spare(lfd) == 0) return 1;
  pause_listener(lfd, 1); /* ENOMEM, ENOBUFS, or no spare: the backlog keeps them meanwhile */
  return 0;
}

/* accept4(2); with the limit reached (EMFILE), once more after taking room from idle pipes. */
static int accept_conn(int lfd) {
  int a = accept4(lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
  if (a >= 0 || errno != EMFILE) return a;
  make_room(1);
  return accept4(lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
}

static void accept_ready(int lfd, const char *path) {
  for (int k = 0; k < ACCEPTS; k++) {
    int a = accept_conn(lfd);
    if (a < 0) {
      if (accept_failed(lfd)) continue;
      return;
    }
    struct pair *p = free_slot();
    if (p) make_room(2); /* `a` is open and not yet counted; the proxy's socket needs one more */
    int b = p ? connect_proxy(path) : -1;
    if (b < 0) close_reset(a); /* MAX_PAIRS open, no descriptor, or the proxy is gone */
    else pair_start(p, a, b);
  }
}

/* ---------- the loop ---------- */

/* The soft limit is also the hard one (a profile's `limits.nofile` sets
 * both), so there is nothing to raise. Capped: no overflow, and more than
 * every pair needs (6 each). */
static void read_fd_limit(void) {
  struct rlimit r;
  rlim_t n = getrlimit(RLIMIT_NOFILE, &r) == 0 ? r.rlim_cur : 1024;
  fd_limit = n > 8 * MAX_PAIRS ? 8 * MAX_PAIRS : (int)n;
}

static int serve_init(int lfd) {
  struct epoll_event ev = {.events = EPOLLIN, .data.ptr = NULL}; /* level-triggered: see ACCEPTS */
  for (int i = 0; i < MAX_PAIRS; i++) {
    pairs[i].sock[0] = pairs[i].sock[1] = -1;
    for (int j = 0; j < 2; j++) pairs[i].way[j].pipe[0] = pairs[i].way[j].pipe[1] = -1;
  }
  read_fd_limit();
  epfd = epoll_create1(EPOLL_CLOEXEC);
  if (epfd < 0 || epoll_ctl(epfd, EPOLL_CTL_ADD, lfd, &ev) < 0) return -1;
  spare = fcntl(lfd, F_DUPFD_CLOEXEC, 0); /* -1 at a limit this low: accept_failed pauses instead */
  fds_open = 2 + (spare >= 0); /* the listener, the epoll set, the spare */
  return 0;
}

static void serve_again(void) {
  for (int i = 0; n_again > 0 && i < MAX_PAIRS; i++) {
    if (!pairs[i].again) continue;
    set_again(&pairs[i], 0);
    pair_serve(&pairs[i]);
  }
}

/* Serve the listener `lfd` until the forwarder is killed with the run.
 * Returns only if epoll fails (the forwarder then exits, and its
 * connections end). */
void cordon_forwarder_serve(int lfd, const char *path) {
  struct epoll_event ev[EVENTS];
  if (serve_init(lfd) < 0) return;
  for (;;) {
    int n = epoll_wait(epfd, ev, EVENTS, n_again ? 0 : paused ? PAUSE_MS : -1);
    if (n < 0 && errno != EINTR) return;
    if (paused) pause_listener(lfd, 0);
    for (int i = 0; i < n; i++) {
      if (ev[i].data.ptr) pair_event(ev[i].data.ptr, ev[i].events);
      else accept_ready(lfd, path);
    }
    serve_again();
  }
}
