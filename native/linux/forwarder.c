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
 *  - it is tiny: one epoll(7) loop that splices each connection's bytes
 *    through two pipes (forwarder-serve.c, which has the bounds on pairs,
 *    pipes and descriptors), no parsing (the proxy outside decides
 *    everything);
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
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "cordon-wire.h"
#include "landlock-abi.h"
#include "launcher.h"

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
 * socket but AF_UNIX, no execve, no bind or listen: TS forwarderProgram()).
 * What serving needs passes both: the filter is a deny list whose default is
 * allow, and none of its rules names pipe2, splice, fcntl (F_SETPIPE_SZ) or
 * epoll_* — they need no rule of their own, and the command's filter is not
 * touched; for Landlock a pipe is no file (pipe2 resolves no path) and
 * splice no access right. test/native/launcher-forwarder-splice.test.ts
 * runs the splice loop under exactly this domain and filter. */
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
  cordon_forwarder_serve(3, p->fwd_socket);
  _exit(0);
}
