/*
 * zygote-child.c — how the zygote (zygote.c) starts a child: passing
 * descriptors (unix(7), SCM_RIGHTS), a clean slate in the child, and the
 * "spare", a launcher child forked *before* its request arrives.
 *
 * Why a spare: fork(2) of even this small static process costs close to a
 * millisecond on a VM. Forked ahead of time, while the previous command
 * runs, that cost leaves the path between the caller's request and the
 * command's execve; the request's descriptors are handed to the waiting
 * spare over a private socket pair instead.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "launcher.h"
#include "zygote.h"

void zy_close_fds(struct request *r) {
  for (size_t i = 0; i < r->nfds; i++) close(r->fds[i]);
  r->nfds = 0;
}

/* One message and the descriptors attached to it. Descriptors arrive
 * close-on-exec (MSG_CMSG_CLOEXEC) so none leaks into an unrelated child. */
ssize_t zy_receive(int sock, struct request *r) {
  union { char buf[CMSG_SPACE(sizeof(int) * CHILD_FDS)]; struct cmsghdr align; } ctl;
  struct iovec iov = {r->buf, r->cap};
  struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.buf, .msg_controllen = sizeof ctl.buf};
  ssize_t n;
  r->nfds = 0;
  do n = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC); while (n < 0 && errno == EINTR);
  if (n <= 0) return n;
  for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
    if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) continue;
    size_t k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
    for (size_t i = 0; i < k && r->nfds < CHILD_FDS; i++) memcpy(&r->fds[r->nfds++], CMSG_DATA(c) + i * sizeof(int), sizeof(int));
  }
  /* A truncated message or descriptor list is not a request we understood. */
  if (msg.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) { zy_close_fds(r); errno = EMSGSIZE; return -1; }
  r->len = (size_t)n;
  r->buf[n < (ssize_t)r->cap ? n : (ssize_t)r->cap - 1] = 0;
  return n;
}

int zy_send(int sock, const char *msg, size_t len, const int *fds, size_t nfds) {
  union { char buf[CMSG_SPACE(sizeof(int) * CHILD_FDS)]; struct cmsghdr align; } ctl;
  struct iovec iov = {(void *)msg, len};
  struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.buf, .msg_controllen = CMSG_SPACE(sizeof(int) * nfds)};
  struct cmsghdr *c = CMSG_FIRSTHDR(&m);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  c->cmsg_len = CMSG_LEN(sizeof(int) * nfds);
  memcpy(CMSG_DATA(c), fds, sizeof(int) * nfds);
  ssize_t n;
  do n = sendmsg(sock, &m, MSG_NOSIGNAL); while (n < 0 && errno == EINTR);
  return n == (ssize_t)len ? 0 : -1;
}

/* The child starts from a clean slate: default signal handling and an empty
 * mask (both survive execve, signal(7)), the caller's umask, and no
 * descriptor of the zygote's own. */
static void reset_child(int sig_fd, const char *umask_octal) {
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, NULL);
  signal(SIGPIPE, SIG_DFL);
  close(sig_fd);
  umask((mode_t)strtoul(umask_octal, NULL, 8) & 0777);
}

/* Move the five received descriptors to 0..4 and close everything else
 * (the request socket and the event stream included). They are first
 * lifted above 4, so that placing one can never overwrite another that is
 * still to be placed; dup2(2) clears close-on-exec on the final copies. */
static int place_fds(const struct request *r) {
  int high[CHILD_FDS];
  for (int i = 0; i < CHILD_FDS; i++)
    if ((high[i] = fcntl(r->fds[i], F_DUPFD_CLOEXEC, CHILD_FDS)) < 0) return -1;
  for (int i = 0; i < CHILD_FDS; i++)
    if (dup2(high[i], i) < 0) return -1;
  return (int)syscall(SYS_close_range, CHILD_FDS, ~0U, 0);
}

static void run_launcher(struct request *r, const char *umask_octal, int sig_fd) {
  reset_child(sig_fd, umask_octal);
  if (place_fds(r) < 0) _exit(125);
  _exit(launcher_run(3, 4));
}

/* Launcher mode without a spare: a plain fork, since the child runs the
 * whole launcher (it allocates, and it never execs itself). */
pid_t zy_start_launcher(struct request *r, const char *umask_octal, int sig_fd) {
  pid_t pid = fork();
  if (pid == 0) run_launcher(r, umask_octal, sig_fd);
  return pid;
}

struct exec_job {
  struct request *r;
  char **argv;
  const char *umask_octal;
  int sig_fd;
};

/* Namespace mode: exec bwrap on fds 0..4, with an empty environment (the
 * command's environment travels in the plan); bwrap keeps fds 3 and 4 open
 * for the launcher it runs. Only system calls here: this child shares the
 * zygote's memory until execve (see zy_start_exec). */
static int exec_child(void *arg) {
  struct exec_job *j = arg;
  char *envp[] = {NULL};
  reset_child(j->sig_fd, j->umask_octal);
  if (place_fds(j->r) < 0) _exit(125);
  execve(j->argv[0], j->argv, envp);
  struct cordon_err e;
  cordon_err_set(&e, "launch", "execve", errno);
  snprintf(e.detail, sizeof e.detail, "%s", j->argv[0]);
  status_write_err(4, &e);
  _exit(127);
}

/* Like posix_spawn(3): CLONE_VM | CLONE_VFORK copies no page tables and
 * suspends the zygote until the child has exec'd (clone(2)). */
pid_t zy_start_exec(struct request *r, char **argv, const char *umask_octal, int sig_fd) {
  static char stack[64 * 1024] __attribute__((aligned(16)));
  struct exec_job j = {r, argv, umask_octal, sig_fd};
  return clone(exec_child, stack + sizeof stack, CLONE_VM | CLONE_VFORK | SIGCHLD, &j);
}

static struct { pid_t pid; int sock; } spare = {0, -1};

/* The spare waits for its one request: the umask and five descriptors. It
 * dies with the zygote (PDEATHSIG) and never runs anything without a
 * request. */
static void spare_main(int sock, pid_t zygote, int sig_fd) {
  char buf[16];
  struct request r = {.buf = buf, .cap = sizeof buf};
  if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != zygote) _exit(0);
  if (zy_receive(sock, &r) <= 0 || r.nfds != CHILD_FDS) _exit(0);
  run_launcher(&r, buf, sig_fd);
}

void zy_spare_make(int sig_fd) {
  int sv[2];
  pid_t zygote = getpid();
  if (spare.pid > 0 || socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0) return;
  pid_t pid = fork();
  if (pid == 0) { close(sv[0]); spare_main(sv[1], zygote, sig_fd); }
  close(sv[1]);
  if (pid < 0) { close(sv[0]); return; }
  spare.pid = pid;
  spare.sock = sv[0];
}

static void spare_drop(void) {
  close(spare.sock);
  spare.pid = 0;
  spare.sock = -1;
}

/* Hand the request to the spare; its pid, or -1 when there is none (or it
 * died meanwhile: the caller then forks as usual). */
pid_t zy_spare_take(struct request *r, const char *umask_octal) {
  pid_t pid = spare.pid;
  if (pid <= 0) return -1;
  int ok = zy_send(spare.sock, umask_octal, strlen(umask_octal) + 1, r->fds, r->nfds) == 0;
  spare_drop();
  if (ok) return pid;
  kill(pid, SIGKILL); /* reaped later; its exit is reported for an unknown pid */
  return -1;
}

void zy_spare_reaped(pid_t pid) {
  if (pid == spare.pid) spare_drop();
}
