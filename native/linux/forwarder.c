/*
 * forwarder.c — namespace mode with a network allowlist: the sandbox's only
 * way to the network.
 *
 * The sandbox has a network namespace of its own with loopback only (bwrap
 * --unshare-net), so nothing in it reaches any host. cordon's proxy runs in
 * the caller's Node process, outside; it also listens on a unix socket that
 * bwrap binds into the sandbox. The forwarder listens on 127.0.0.1:PORT in
 * the sandbox's namespace — where HTTP_PROXY points — and relays each
 * connection to that one socket. It is trusted code inside the sandbox, so:
 *
 *  - it is tiny: one poll(2) loop, two buffers per open connection, no
 *    parsing (the proxy outside decides everything);
 *  - its listener is bound by the supervisor before the command exists, so
 *    the command can neither race it for the port nor find it missing;
 *  - it is confined before it serves anything: a Landlock domain that
 *    handles every filesystem right and TCP bind/connect with no rule (it
 *    opens no file and makes no TCP connection: accept(2) is not a Landlock
 *    access, and connecting to a pathname unix socket is not one either in
 *    ABI <= 7), signal and abstract-socket scoping, not dumpable (the command,
 *    same uid, cannot ptrace or read its memory); it inherits no
 *    capabilities and no_new_privs from the launcher;
 *  - it dies with the run: it is the supervisor's child (the supervisor is a
 *    subreaper and sweeps every child once the command ends), with
 *    PR_SET_PDEATHSIG SIGKILL should the supervisor die first, and in a pid
 *    namespace whose init takes it down.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>
#include "cordon-wire.h"
#include "landlock-abi.h"
#include "launcher.h"

#define MAX_PAIRS 512     /* concurrent connections; more wait in the listen backlog */
#define BUF_SIZE 65536    /* per direction: large enough for loopback throughput */

/* One relayed connection: a = the client in the sandbox, b = the proxy's
 * unix socket. The buffers are allocated per connection, in the forwarder
 * only: as static arrays they would be 64 MiB of the launcher's address
 * space in every launch, counted against a profile's `limits.as`. */
struct pair {
  int a, b;
  char *ab, *ba;
  size_t ab_len, ab_off, ba_len, ba_off;
  int a_eof, b_eof; /* read side saw end of file */
};

static struct pair pairs[MAX_PAIRS];

/* The listener, bound in the sandbox's network namespace by the supervisor. */
int cordon_forwarder_listen(int port, struct cordon_err *e) {
  struct sockaddr_in sin = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
  int one = 1, fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (fd < 0) { cordon_err_set(e, "forwarder", "socket", errno); return -1; }
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (bind(fd, (struct sockaddr *)&sin, sizeof sin) < 0 || listen(fd, 1024) < 0) {
    cordon_err_set(e, "forwarder", "bind", errno);
    snprintf(e->detail, sizeof e->detail, "127.0.0.1:%d in the sandbox's network namespace", port);
    close(fd);
    return -1;
  }
  return fd;
}

/* Landlock: no file, no TCP bind or connect, no signals or abstract sockets outside. */
static int confine_landlock(struct cordon_err *e) {
  int v = (int)syscall(SYS_landlock_create_ruleset, NULL, 0, LL_CREATE_RULESET_VERSION);
  if (v <= 0) return 0; /* the namespaces and the dropped capabilities still hold it; the report says Landlock is missing */
  const struct cordon_landlock_abi *abi = cordon_landlock_rights(v);
  struct ll_ruleset_attr attr = {abi->fs, abi->net & (LL_NET_BIND_TCP | LL_NET_CONNECT_TCP), abi->scoped & (LL_SCOPE_SIGNAL | LL_SCOPE_ABSTRACT_UNIX_SOCKET)};
  int rs = (int)syscall(SYS_landlock_create_ruleset, &attr, (size_t)abi->attr_size, 0);
  if (rs < 0) { cordon_err_set(e, "forwarder", "landlock_create_ruleset", errno); return -1; }
  int rc = (int)syscall(SYS_landlock_restrict_self, rs, 0);
  if (rc < 0) cordon_err_set(e, "forwarder", "landlock_restrict_self", errno);
  close(rs);
  return rc;
}

/* Landlock, then its own seccomp filter (the command's always-rules, and no
 * socket but AF_UNIX, no execve, no bind or listen: TS forwarderProgram()). */
static int confine(const struct plan *p, struct cordon_err *e) {
  if (confine_landlock(e)) return -1;
  return p->fwd_bpf ? cordon_seccomp_load(p->fwd_bpf, p->fwd_len, "forwarder", e) : 0;
}

/* The forwarder's side of the start-up report: 0, or the errno and syscall
 * it failed at, so the supervisor can refuse to start the command. */
static void report_ready(int fd, const struct cordon_err *e) {
  struct { int err; char syscall[48]; } msg = {e ? e->err : 0, ""};
  if (e) snprintf(msg.syscall, sizeof msg.syscall, "%s", e->syscall);
  if (write(fd, &msg, sizeof msg) < 0) _exit(CORDON_EXIT_SETUP);
  close(fd);
}

/* The supervisor's side: wait until the forwarder is confined (or failed). */
static int await_ready(int fd, struct cordon_err *e) {
  struct { int err; char syscall[48]; } msg = {EPIPE, "read"};
  ssize_t n;
  do n = read(fd, &msg, sizeof msg); while (n < 0 && errno == EINTR);
  close(fd);
  if (n == (ssize_t)sizeof msg && msg.err == 0) return 0;
  msg.syscall[sizeof msg.syscall - 1] = 0;
  cordon_err_set(e, "forwarder", n == (ssize_t)sizeof msg ? "confine" : "read", n == (ssize_t)sizeof msg ? msg.err : EPIPE);
  snprintf(e->detail, sizeof e->detail, "the network forwarder could not be confined (%s)", msg.syscall);
  return -1;
}

static int connect_proxy(const char *path) {
  struct sockaddr_un sun = {.sun_family = AF_UNIX};
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  strncpy(sun.sun_path, path, sizeof sun.sun_path - 1);
  /* Blocking connect: it waits only while the proxy's backlog (1024) is full. */
  if (connect(fd, (struct sockaddr *)&sun, sizeof sun) < 0 || fcntl(fd, F_SETFL, O_NONBLOCK) < 0) { close(fd); return -1; }
  return fd;
}

static void close_pair(struct pair *p) {
  close(p->a);
  close(p->b);
  free(p->ab);
  free(p->ba);
  p->a = p->b = -1;
  p->ab = p->ba = NULL;
}

static void accept_one(int lfd, const char *path) {
  int a = accept4(lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
  if (a < 0) return;
  for (int i = 0; i < MAX_PAIRS; i++) {
    if (pairs[i].a >= 0) continue;
    int b = connect_proxy(path);
    if (b < 0) break; /* the proxy is gone: drop the client (it sees a reset) */
    memset(&pairs[i], 0, sizeof pairs[i]);
    pairs[i].ab = malloc(BUF_SIZE);
    pairs[i].ba = malloc(BUF_SIZE);
    pairs[i].a = a;
    pairs[i].b = b;
    if (!pairs[i].ab || !pairs[i].ba) close_pair(&pairs[i]); /* out of memory: this connection only */
    return;
  }
  close(a);
}

/* One direction of a pair: its buffer and its ends. */
struct way { int from, to; char *buf; size_t *len, *off; int *eof; };

/* Move bytes one way: read `from` when the buffer is empty, write what is
 * buffered to `to`; at end of file, once drained, half-close `to` so the
 * other side sees it (HTTP/1.0 bodies end that way). -1: drop the pair. */
static int pump(struct way w, short rev_from) {
  if (*w.len == 0 && !*w.eof && (rev_from & (POLLIN | POLLHUP | POLLERR))) {
    ssize_t r = read(w.from, w.buf, BUF_SIZE);
    if (r > 0) { *w.len = (size_t)r; *w.off = 0; }
    else if (r == 0 || (errno != EAGAIN && errno != EINTR)) { *w.eof = 1; shutdown(w.to, SHUT_WR); }
  }
  if (*w.len > *w.off) {
    ssize_t n = write(w.to, w.buf + *w.off, *w.len - *w.off);
    if (n > 0) *w.off += (size_t)n;
    else if (n < 0 && errno != EAGAIN && errno != EINTR) return -1;
    if (*w.off == *w.len) *w.len = *w.off = 0;
  }
  return 0;
}

static short events(size_t in_buf, int eof, size_t out_buf) {
  return (short)((in_buf == 0 && !eof ? POLLIN : 0) | (out_buf > 0 ? POLLOUT : 0));
}

static nfds_t fill(struct pollfd *fds, int lfd) {
  nfds_t n = 1;
  fds[0] = (struct pollfd){lfd, POLLIN, 0};
  for (int i = 0; i < MAX_PAIRS; i++) {
    struct pair *p = &pairs[i];
    if (p->a < 0) continue;
    fds[n++] = (struct pollfd){p->a, events(p->ab_len, p->a_eof, p->ba_len), 0};
    fds[n++] = (struct pollfd){p->b, events(p->ba_len, p->b_eof, p->ab_len), 0};
  }
  return n;
}

static void step_pair(struct pair *p, short ra, short rb) {
  struct way ab = {p->a, p->b, p->ab, &p->ab_len, &p->ab_off, &p->a_eof};
  struct way ba = {p->b, p->a, p->ba, &p->ba_len, &p->ba_off, &p->b_eof};
  if (pump(ab, ra) < 0 || pump(ba, rb) < 0 || (p->a_eof && p->b_eof && !p->ab_len && !p->ba_len)) return close_pair(p);
  /* A side that hung up after its input was read: nothing more can be
   * delivered to it, and poll(2) reports POLLHUP at once on every turn —
   * keeping the pair would spin. */
  if (((ra & (POLLHUP | POLLERR)) && p->a_eof) || ((rb & (POLLHUP | POLLERR)) && p->b_eof)) close_pair(p);
}

static void serve(int lfd, const char *path) {
  static struct pollfd fds[1 + 2 * MAX_PAIRS];
  for (int i = 0; i < MAX_PAIRS; i++) pairs[i].a = pairs[i].b = -1;
  for (;;) {
    nfds_t n = fill(fds, lfd);
    if (poll(fds, n, -1) < 0) { if (errno == EINTR) continue; return; }
    nfds_t k = 1;
    for (int i = 0; i < MAX_PAIRS; i++) {
      struct pair *p = &pairs[i];
      if (p->a < 0) continue;
      step_pair(p, fds[k].revents, fds[k + 1].revents);
      k += 2;
    }
    if (fds[0].revents & POLLIN) accept_one(lfd, path);
  }
}

/* In the forwarder: hold nothing but the listener (fd 3) and the report
 * pipe (fd 4) — not the status fd, not the command's stdio. */
static void keep_only(int lfd, int ready) {
  /* Above 9 first: either may already be 3 or 4 and be overwritten by the other. */
  int l = fcntl(lfd, F_DUPFD, 10), r = fcntl(ready, F_DUPFD, 10);
  if (l < 0 || r < 0 || dup2(l, 3) < 0 || dup2(r, 4) < 0) _exit(CORDON_EXIT_SETUP);
  cordon_close_from(5, ~0U >> 1);
  close(0); close(1); close(2);
}

/* Fork the forwarder on the supervisor's listener `lfd`, and return once it
 * is confined: a forwarder that could not be is a setup error, and the
 * command never starts. The supervisor keeps no copy of the listener.
 * Returns the forwarder's pid, or -1. */
int cordon_forwarder_start(int lfd, const struct plan *p, struct cordon_err *e) {
  int ready[2];
  if (pipe2(ready, O_CLOEXEC) < 0) { cordon_err_set(e, "forwarder", "pipe2", errno); close(lfd); return -1; }
  pid_t parent = getpid(), pid = fork();
  if (pid < 0) { cordon_err_set(e, "forwarder", "fork", errno); close(lfd); close(ready[0]); close(ready[1]); return -1; }
  if (pid > 0) {
    close(lfd);
    close(ready[1]);
    return await_ready(ready[0], e) ? -1 : pid;
  }
  /* Dies with the supervisor (which kills it after the command anyway). */
  if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent) _exit(CORDON_EXIT_SETUP);
  prctl(PR_SET_DUMPABLE, 0);
  signal(SIGPIPE, SIG_IGN); /* a client that vanished is an EPIPE, not the forwarder's death */
  keep_only(lfd, ready[1]);
  struct cordon_err err;
  memset(&err, 0, sizeof err);
  if (confine(p, &err) < 0) { report_ready(4, &err); _exit(CORDON_EXIT_SETUP); }
  report_ready(4, NULL);
  serve(3, p->fwd_socket);
  _exit(0);
}
