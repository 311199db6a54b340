/*
 * relay.c — the network proxy's byte relay for approved tunnels (Linux).
 *
 * Why native: the JavaScript relay reads each chunk into a Buffer and
 * writes it to the other socket — two copies between kernel and user space
 * per byte, and per-chunk JS work on the caller's main thread, which is also
 * where the proxy decides and the caller runs. Here the bytes never leave the
 * kernel: splice(2) moves pages socket → pipe → socket, one pipe per
 * direction, on one thread of the addon's own.
 *
 * Shape:
 *  - ONE relay thread for every tunnel, started on first use, driven by one
 *    edge-triggered epoll(7) set; 200 tunnels are 200 entries, not 400
 *    threads. A tunnel that keeps moving yields after a budget of rounds and
 *    is served again after the others (no tunnel starves the rest).
 *  - The JS thread never touches a tunnel after handing it over: it builds
 *    the tunnel, then writes its pointer to a pipe the relay thread reads;
 *    only the relay thread registers, moves and frees (no locks, and no
 *    window in which both threads act on one tunnel).
 *  - Completion reaches JS through a pipe per tunnel (its read end is
 *    returned): a record of byte counts and the errno, then end of file.
 *    JS reads it on its own event loop; nothing here calls into JS (no
 *    N-API thread-safe function, nothing that can block Node's loop).
 *
 * The traffic is the sandboxed command's, so untrusted:
 *  - bounded memory per tunnel: two pipes (the kernel caps a pipe's pages,
 *    pipe(7)) and the two prefixes (CORDON_RELAY_MAX_PREFIX, freed once
 *    sent); nothing queues without bound — a direction reads only while its
 *    pipe has room, so a slow reader stops the writer (TCP back-pressure);
 *  - a bound on tunnels (CORDON_RELAY_MAX_TUNNELS): fds and pipes are finite;
 *  - every descriptor here is close-on-exec (F_DUPFD_CLOEXEC, pipe2
 *    O_CLOEXEC, epoll_create1 EPOLL_CLOEXEC): Node spawns the sandboxed
 *    command, and a tunnel's socket or pipe must never be inherited by it.
 *
 * Semantics kept from the JS relay: bytes in order and none lost (a prefix
 * first, then the pipe); end follows end (EOF on one side's read →
 * shutdown(SHUT_WR) of the other once that direction's pipe is drained);
 * an error or reset on either side closes both (with a reset, SO_LINGER 0,
 * so that a cut transfer never looks complete to the other side).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>
#include "relay.h"

/* Bytes per pipe (F_SETPIPE_SZ). 256 KiB moves a loopback transfer in a
 * quarter of the splice calls of the default 64 KiB. Not more: an
 * unprivileged user's pipes share /proc/sys/fs/pipe-user-pages-soft (64 MiB
 * by default); past it new pipes get 2 pages (pipe(7)) — still correct, only
 * slower — so a failing F_SETPIPE_SZ is not an error. */
#define RELAY_PIPE_BYTES (256 * 1024)
/* Rounds of one direction per wake-up before the tunnel yields to others. */
#define RELAY_ROUNDS 16
#define RELAY_EVENTS 64

enum { END_CLIENT = 0, END_UPSTREAM = 1, END_NOTIFY = 2 };

struct relay_dir {
  int src, dst;            /* the tunnel's sockets, not owned here */
  int pipe[2];             /* src → pipe[1] … pipe[0] → dst */
  uint8_t *prefix;         /* bytes Node read before the handoff: sent first */
  size_t prefix_len, prefix_off;
  size_t in_pipe;          /* bytes in the pipe, not yet sent */
  size_t pipe_bytes;       /* the pipe's size */
  uint64_t moved;          /* bytes delivered to dst */
  int eof, shut;           /* src read end of file; dst shut down for writing */
};

struct relay_tunnel;
struct relay_end {
  struct relay_tunnel *t;
  int which;               /* END_* */
};

struct relay_tunnel {
  int sock[2];             /* END_CLIENT, END_UPSTREAM: our duplicates */
  int notify;              /* the notification pipe's write end */
  struct relay_dir dir[2]; /* 0: client → upstream, 1: upstream → client */
  struct relay_end end[3];
  int closed, queued;      /* relay thread only */
  int unheard;             /* the notification pipe's reader is gone: no record */
  struct relay_tunnel *next; /* the ready list or the list to free */
};

static int relay_epfd = -1;
static int relay_inbox[2] = {-1, -1}; /* tunnel pointers, JS thread → relay thread */
static int relay_init_err;
static pthread_once_t relay_once = PTHREAD_ONCE_INIT;
/* Tunnels handed over and not yet freed: the JS thread adds, the relay thread subtracts. */
static atomic_int relay_tunnels;
/* Relay thread only: tunnels that used their budget, and tunnels closed in this batch. */
static struct relay_tunnel *relay_ready, *relay_dead;

static int would_block(void) { return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR; }

static void put_le(uint8_t *p, uint64_t v, int n) {
  for (int i = 0; i < n; i++) p[i] = (uint8_t)(v >> (8 * i));
}

/* ---------- one direction ---------- */

/* Send what is left of the prefix; 1 when some moved, 0 when blocked, -1 on error. */
static int send_prefix(struct relay_dir *d) {
  /* MSG_NOSIGNAL: a vanished peer is EPIPE to handle, not SIGPIPE. */
  ssize_t n = send(d->dst, d->prefix + d->prefix_off, d->prefix_len - d->prefix_off, MSG_NOSIGNAL | MSG_DONTWAIT);
  if (n < 0) return would_block() ? 0 : -1;
  d->prefix_off += (size_t)n;
  d->moved += (uint64_t)n;
  if (d->prefix_off == d->prefix_len) {
    free(d->prefix); /* bounded memory: a prefix lives only until sent */
    d->prefix = NULL;
    d->prefix_len = d->prefix_off = 0;
  }
  return n > 0;
}

/* Pipe → dst. Only after the prefix is gone: the prefix came first on the wire. */
static int drain_pipe(struct relay_dir *d) {
  ssize_t n = splice(d->pipe[0], NULL, d->dst, NULL, d->in_pipe, SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
  if (n < 0) return would_block() ? 0 : -1;
  d->in_pipe -= (size_t)n;
  d->moved += (uint64_t)n;
  return n > 0;
}

/* src → pipe, while the pipe has room (the bound on what a tunnel holds).
 * EAGAIN is an empty socket or a pipe whose slots are full; in the second
 * case the pipe is not empty, and draining it runs this again. */
static int fill_pipe(struct relay_dir *d) {
  ssize_t n = splice(d->src, NULL, d->pipe[1], NULL, d->pipe_bytes - d->in_pipe, SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
  if (n < 0) return would_block() ? 0 : -1;
  if (n == 0) d->eof = 1;
  d->in_pipe += (size_t)n;
  return 1;
}

/* One round of each step that can run; 1 when anything moved, -1 on error. */
static int pump_round(struct relay_dir *d) {
  int moved = 0, r;
  if (d->prefix && (r = send_prefix(d)) != 0) {
    if (r < 0) return -1;
    moved = 1;
  }
  if (!d->prefix && d->in_pipe > 0 && (r = drain_pipe(d)) != 0) {
    if (r < 0) return -1;
    moved = 1;
  }
  if (!d->eof && d->in_pipe < d->pipe_bytes && (r = fill_pipe(d)) != 0) {
    if (r < 0) return -1;
    moved = 1;
  }
  return moved;
}

/* Move until nothing can move (each step saw EAGAIN: edge-triggered epoll
 * then wakes us on the next change) or the budget is used (1: serve again
 * without waiting). End follows end: once src ended and everything before
 * its end was delivered, dst is shut for writing. 0, 1, or -1 on error. */
static int pump(struct relay_dir *d) {
  int r = 1, rounds = 0;
  while (r > 0 && rounds++ < RELAY_ROUNDS) r = pump_round(d);
  if (r < 0) return -1;
  if (d->eof && !d->shut && !d->prefix && d->in_pipe == 0) {
    if (shutdown(d->dst, SHUT_WR) < 0 && errno != ENOTCONN) return -1;
    d->shut = 1;
  }
  return r > 0 && rounds > RELAY_ROUNDS;
}

/* ---------- a tunnel ---------- */

static void tunnel_free_fds(struct relay_tunnel *t) {
  for (int i = 0; i < 2; i++) {
    if (t->sock[i] >= 0) close(t->sock[i]);
    for (int j = 0; j < 2; j++)
      if (t->dir[i].pipe[j] >= 0) close(t->dir[i].pipe[j]);
    free(t->dir[i].prefix);
  }
  if (t->notify >= 0) close(t->notify);
}

/* Write the record (best effort: a reader that left wants no record) and
 * close everything. err != 0 resets both connections: a transfer cut by an
 * error must not end like a complete one (a clean FIN would). */
static void tunnel_close(struct relay_tunnel *t, int err) {
  uint8_t rec[CORDON_RELAY_RECORD_BYTES];
  put_le(rec, t->dir[0].moved, 8);
  put_le(rec + 8, t->dir[1].moved, 8);
  put_le(rec + 16, (uint32_t)err, 4);
  /* ≤ PIPE_BUF into an empty pipe: written whole or not at all (pipe(7)).
   * Not to a pipe without reader: that is EPIPE and a SIGPIPE for nothing. */
  if (!t->unheard && write(t->notify, rec, sizeof rec) < 0) { /* the reader left meanwhile */ }
  for (int i = 0; i < 3; i++) {
    int fd = i == END_NOTIFY ? t->notify : t->sock[i];
    /* Explicitly: epoll forgets an fd only when its open file is released,
     * and a child between fork and exec may still hold one (epoll(7) Q6). */
    epoll_ctl(relay_epfd, EPOLL_CTL_DEL, fd, NULL);
    if (err && i != END_NOTIFY) setsockopt(fd, SOL_SOCKET, SO_LINGER, &(struct linger){1, 0}, sizeof(struct linger));
  }
  tunnel_free_fds(t);
  t->closed = 1;
  t->next = relay_dead; /* freed after this batch: its events may still be in it */
  relay_dead = t;
  atomic_fetch_sub(&relay_tunnels, 1);
}

static int socket_error(int fd) {
  int err = 0;
  socklen_t len = sizeof err;
  if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) < 0) return errno;
  return err;
}

static void queue_ready(struct relay_tunnel *t) {
  if (t->queued) return;
  t->queued = 1;
  t->next = relay_ready;
  relay_ready = t;
}

/* Run both directions; close on error or once both have ended. */
static void tunnel_serve(struct relay_tunnel *t) {
  int again = 0;
  for (int i = 0; i < 2; i++) {
    int r = pump(&t->dir[i]);
    if (r < 0) return tunnel_close(t, errno ? errno : EIO);
    again |= r;
  }
  if (t->dir[0].shut && t->dir[1].shut) return tunnel_close(t, 0);
  if (again) queue_ready(t);
}

static void tunnel_event(struct relay_end *e, uint32_t events) {
  struct relay_tunnel *t = e->t;
  if (t->closed) return;
  /* JS closed its end of the notification pipe (the proxy is closing): cut. */
  if (e->which == END_NOTIFY) {
    t->unheard = 1;
    return tunnel_close(t, ECONNABORTED);
  }
  /* A reset or another error on either side closes both. */
  int err = (events & EPOLLERR) ? socket_error(t->sock[e->which]) : 0;
  if (err) return tunnel_close(t, err);
  tunnel_serve(t);
}

/* Register a tunnel's three descriptors (relay thread: nothing else can act
 * on the tunnel meanwhile). Edge-triggered: an event per change, and each
 * pump runs until EAGAIN. The notification pipe's write end is watched for
 * EPOLLERR only: its reader closed. */
static void tunnel_adopt(struct relay_tunnel *t) {
  for (int i = 0; i < 3; i++) {
    int fd = i == END_NOTIFY ? t->notify : t->sock[i];
    struct epoll_event ev = {.events = i == END_NOTIFY ? EPOLLET : EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET,
                             .data.ptr = &t->end[i]};
    /* Failing (ENOMEM, fs.epoll.max_user_watches): the tunnel is closed
     * with that errno; a DEL of a descriptor never added is a harmless ENOENT. */
    if (epoll_ctl(relay_epfd, EPOLL_CTL_ADD, fd, &ev) < 0) return tunnel_close(t, errno);
  }
  tunnel_serve(t); /* bytes that arrived before the ADD, and the prefixes */
}

/* ---------- the relay thread ---------- */

static void take_inbox(void) {
  struct relay_tunnel *t;
  ssize_t n;
  while ((n = read(relay_inbox[0], &t, sizeof t)) == (ssize_t)sizeof t) tunnel_adopt(t);
}

static void serve_ready(void) {
  struct relay_tunnel *list = relay_ready;
  relay_ready = NULL;
  while (list) {
    struct relay_tunnel *t = list;
    list = t->next;
    t->queued = 0;
    if (!t->closed) tunnel_serve(t);
  }
}

static void free_dead(void) {
  while (relay_dead) {
    struct relay_tunnel *t = relay_dead;
    relay_dead = t->next;
    free(t);
  }
}

static void *relay_main(void *arg) {
  struct epoll_event ev[RELAY_EVENTS];
  for (;;) {
    int n = epoll_wait(relay_epfd, ev, RELAY_EVENTS, relay_ready ? 0 : -1);
    for (int i = 0; i < n; i++) {
      if (ev[i].data.ptr == NULL) take_inbox();
      else tunnel_event(ev[i].data.ptr, ev[i].events);
    }
    serve_ready();
    free_dead();
  }
  return NULL;
}

/* Start the relay thread once. It blocks every signal: Node handles
 * signals on its own thread, and a relay that saw EINTR or a SIGPIPE
 * (splice to a closed socket raises it; Node ignores it) would gain nothing. */
static void relay_init(void) {
  sigset_t all, old;
  pthread_t th;
  pthread_attr_t attr;
  relay_epfd = epoll_create1(EPOLL_CLOEXEC);
  if (relay_epfd < 0 || pipe2(relay_inbox, O_CLOEXEC | O_NONBLOCK) < 0) {
    relay_init_err = errno;
    return;
  }
  struct epoll_event ev = {.events = EPOLLIN, .data.ptr = NULL};
  if (epoll_ctl(relay_epfd, EPOLL_CTL_ADD, relay_inbox[0], &ev) < 0) {
    relay_init_err = errno;
    return;
  }
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  pthread_attr_init(&attr);
  pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  relay_init_err = pthread_create(&th, &attr, relay_main, NULL);
  pthread_attr_destroy(&attr);
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  if (!relay_init_err) pthread_setname_np(th, "cordon-relay");
}

/* ---------- the handoff (JS thread) ---------- */

static int copy_prefix(struct relay_dir *d, const uint8_t *data, size_t len) {
  if (len == 0) return 0;
  d->prefix = malloc(len);
  if (!d->prefix) return -1;
  memcpy(d->prefix, data, len);
  d->prefix_len = len;
  return 0;
}

/* A stream socket (TCP or unix): splice would accept other files too, and a
 * datagram socket would lose the message boundaries. */
static int is_stream_socket(int fd) {
  int type = 0;
  socklen_t len = sizeof type;
  return getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len) == 0 && type == SOCK_STREAM;
}

/* Our own, close-on-exec duplicate of a socket Node owns: Node closes its
 * descriptor right after the handoff; the connection lives on in ours (a
 * socket closes when its last descriptor does, close(2)). Non-blocking: a
 * flag of the open file, which Node's already is — set so anyway, since one
 * blocking call would stall every tunnel. */
static int dup_socket(int fd) {
  int d = fcntl(fd, F_DUPFD_CLOEXEC, 3);
  if (d < 0) return -1;
  int fl = fcntl(d, F_GETFL);
  if (fl < 0 || fcntl(d, F_SETFL, fl | O_NONBLOCK) < 0) {
    close(d);
    return -1;
  }
  return d;
}

static int make_pipe(struct relay_dir *d) {
  if (pipe2(d->pipe, O_CLOEXEC | O_NONBLOCK) < 0) return -1;
  int size = fcntl(d->pipe[1], F_SETPIPE_SZ, RELAY_PIPE_BYTES);
  if (size < 0) size = fcntl(d->pipe[1], F_GETPIPE_SZ);
  d->pipe_bytes = size > 0 ? (size_t)size : 4096;
  return 0;
}

static struct relay_tunnel *tunnel_new(void) {
  struct relay_tunnel *t = calloc(1, sizeof *t);
  if (!t) return NULL;
  t->sock[0] = t->sock[1] = t->notify = -1;
  for (int i = 0; i < 3; i++) t->end[i] = (struct relay_end){t, i};
  for (int i = 0; i < 2; i++) t->dir[i].pipe[0] = t->dir[i].pipe[1] = -1;
  return t;
}

/* Everything a tunnel needs, or -1 with errno. `note` gets the
 * notification pipe's read end. */
static int tunnel_build(struct relay_tunnel *t, int client, int upstream, int *note) {
  int np[2];
  if ((t->sock[END_CLIENT] = dup_socket(client)) < 0 || (t->sock[END_UPSTREAM] = dup_socket(upstream)) < 0) return -1;
  for (int i = 0; i < 2; i++) {
    t->dir[i].src = t->sock[i];
    t->dir[i].dst = t->sock[1 - i];
    if (make_pipe(&t->dir[i]) < 0) return -1;
  }
  /* The write end non-blocking: the record must never stall the relay. */
  if (pipe2(np, O_CLOEXEC) < 0) return -1;
  t->notify = np[1];
  *note = np[0];
  if (fcntl(np[1], F_SETFL, O_NONBLOCK) < 0) return -1;
  return 0;
}

static int fail(struct cordon_err *e, const char *syscall, int err) {
  cordon_err_set(e, "relay", syscall, err);
  return -1;
}

static void tunnel_discard(struct relay_tunnel *t, int note) {
  int err = errno;
  tunnel_free_fds(t);
  if (note >= 0) close(note);
  free(t);
  atomic_fetch_sub(&relay_tunnels, 1);
  errno = err;
}

int cordon_relay_start(int client, int upstream, const uint8_t *to_upstream, size_t to_upstream_len,
                       const uint8_t *to_client, size_t to_client_len, struct cordon_err *e) {
  if (client < 0 || upstream < 0 || client == upstream) return fail(e, "relay (descriptors)", EBADF);
  if (to_upstream_len > CORDON_RELAY_MAX_PREFIX || to_client_len > CORDON_RELAY_MAX_PREFIX) return fail(e, "relay (prefix)", EMSGSIZE);
  if (!is_stream_socket(client) || !is_stream_socket(upstream)) return fail(e, "getsockopt (SO_TYPE)", ENOTSOCK);
  pthread_once(&relay_once, relay_init);
  if (relay_init_err) return fail(e, "relay (start)", relay_init_err);
  /* The tunnel bound, reserved before anything is allocated. */
  if (atomic_fetch_add(&relay_tunnels, 1) >= CORDON_RELAY_MAX_TUNNELS) {
    atomic_fetch_sub(&relay_tunnels, 1);
    return fail(e, "relay (tunnel limit)", EAGAIN);
  }
  struct relay_tunnel *t = tunnel_new();
  int note = -1;
  if (!t) {
    atomic_fetch_sub(&relay_tunnels, 1);
    return fail(e, "calloc", ENOMEM);
  }
  if (tunnel_build(t, client, upstream, &note) < 0 || copy_prefix(&t->dir[0], to_upstream, to_upstream_len) < 0 ||
      copy_prefix(&t->dir[1], to_client, to_client_len) < 0) {
    tunnel_discard(t, note);
    return fail(e, "relay (setup)", errno);
  }
  /* One pointer (< PIPE_BUF: whole or not at all). The inbox holds 8192 of
   * them, more than the tunnel bound, so it cannot be full. From here on
   * the tunnel is the relay thread's. */
  if (write(relay_inbox[1], &t, sizeof t) != (ssize_t)sizeof t) {
    tunnel_discard(t, note);
    return fail(e, "write (relay inbox)", errno ? errno : EIO);
  }
  return note;
}
